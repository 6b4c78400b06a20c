// Package suite reads a benchmark suite (YAML): which workloads to run, under
// which profiler modes, how often, and what counts as a regression.
//
// The reader walks yaml.v3 nodes itself instead of decoding into structs, so
// every error can name the file, the line and the field path
// ("suite.yaml:14: workloads[1].runs: must be > 0"), and unknown keys are
// rejected with the same precision.
package suite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"vbench/internal/attach"
	"vbench/internal/results"
)

// Defaults for fields a suite leaves out.
const (
	DefaultRuns      = 10
	DefaultWarmup    = 1
	DefaultTimeout   = 2 * time.Minute
	DefaultMinChange = 0.05
	DefaultAlpha     = 0.01
)

// Suite is a parsed, validated suite file. Relative paths are resolved
// against the suite file's directory.
type Suite struct {
	Path   string // as given
	Dir    string // absolute directory of the suite file
	SHA256 string // of the file's bytes

	Name      string
	Runs      int
	Warmup    int
	Modes     []results.Mode
	Timeout   time.Duration
	Profiler  Profiler
	MinChange float64 // e.g. 0.05
	Alpha     float64 // e.g. 0.01
	Baseline  string  // absolute; defaults to <suite dir>/../baselines/<name>.json
	Workloads []Workload
}

// Profiler holds the settings passed to the profiler in profiled modes.
type Profiler struct {
	Interval time.Duration
	Include  []string
	Exclude  []string
}

// Workload is one program to measure.
type Workload struct {
	Name     string
	Line     int      // where it is defined, for later error messages
	Project  string   // absolute path of a .csproj (or a directory holding one); or empty
	Args     []string // for Project
	Command  []string // argv, run without a shell; Command[0] resolved (see resolveCommand)
	Env      []string // KEY=VALUE, sorted by key
	Cwd      string   // absolute
	Checksum string
	Runs     int            // 0: the suite's
	Timeout  time.Duration  // 0: the suite's
	Modes    []results.Mode // nil: the suite's
}

// EffectiveModes is the workload's own subset, or the suite's modes.
func (w *Workload) EffectiveModes(s *Suite) []results.Mode {
	if w.Modes != nil {
		return w.Modes
	}
	return s.Modes
}

// Error is a problem in a suite file, located by line and field path.
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
	}
	if e.Field == "" {
		return loc + ": " + e.Msg
	}
	return loc + ": " + e.Field + ": " + e.Msg
}

var nameRe = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// NameRule describes valid suite and workload names in error messages.
const NameRule = "lowercase letters, digits, '-' and '_', starting with a letter or digit"

// ValidName reports whether s is a valid suite or workload name. Names become
// file and directory names, so they can never contain a path separator or "..".
func ValidName(s string) bool { return nameRe.MatchString(s) }

// Load reads and validates the suite at path.
func Load(path string) (*Suite, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read suite: %v", unwrapPath(err))}
	}
	return Parse(path, data)
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse validates a suite's bytes; path locates relative paths and errors.
func Parse(path string, data []byte) (*Suite, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	sum := sha256.Sum256(data)
	p := &parser{file: path, dir: filepath.Dir(abs)}
	s := &Suite{Path: path, Dir: p.dir, SHA256: hex.EncodeToString(sum[:])}

	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, p.yamlErr(data, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 || doc.Content[0].Tag == "!!null" {
		return nil, &Error{File: path, Line: 1, Msg: "empty suite file"}
	}
	root := doc.Content[0]
	p.suite(root, s)
	if p.err != nil {
		// yaml.v3 places an empty node at the end of the stream, past the
		// last line break: name the last line instead.
		p.err.Line = min(p.err.Line, YAMLLines(data))
		return nil, p.err
	}
	return s, nil
}

type parser struct {
	file string
	dir  string
	err  *Error // first error wins: it is the one to fix first
}

var yamlLineRe = regexp.MustCompile(`^(?:yaml: )?(?:line (\d+): )?(.*)$`)

// yamlParserProblems are the problems yaml.v3's parser (not its scanner)
// reports: it gives their line 0-based, and no line at all for line 0.
var yamlParserProblems = map[string]bool{
	"did not find expected ',' or ']'": true, "did not find expected ',' or '}'": true,
	"did not find expected '-' indicator": true, "did not find expected <document start>": true,
	"did not find expected key": true, "did not find expected node content": true,
	"found duplicate %YAML directive": true, "found incompatible YAML document": true,
	"found undefined tag handle": true, "did not find expected <stream-start>": true,
	"found duplicate %TAG directive": true,
}

var unknownAnchorRe = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// yamlErr turns a yaml.v3 error into an Error with a 1-based line. yaml.v3
// numbers scanner errors from 1 and parser errors from 0, leaves out line 0
// (the first line), names the line where the enclosing block starts rather
// than the offending one, and gives no line for bad bytes or unknown anchors.
// So the line is found again: the shortest prefix of the file (in lines)
// that fails with the same problem (or the bad byte, or the alias).
func (p *parser) yamlErr(data []byte, err error) error {
	problem, line := yamlProblem(err)
	if a := unknownAnchorRe.FindStringSubmatch(problem); a != nil {
		if i := bytes.Index(data, []byte("*"+a[1])); i >= 0 {
			line = lineAt(data, i)
		}
	} else if i := badYAMLByte(data); i >= 0 && yamlReaderProblem(problem) {
		line = lineAt(data, i)
	} else {
		// Once a prefix holds the offending line it fails the same way, and
		// so does every longer one: binary-search the shortest.
		ends := yamlLineEnds(data)
		lo := max(line, 1)
		k := lo + sort.Search(len(ends)-lo+1, func(i int) bool {
			var doc yaml.Node
			pp, _ := yamlProblem(yaml.Unmarshal(data[:ends[lo+i-1]], &doc))
			return pp == problem
		})
		if k <= len(ends) {
			line = k
		}
	}
	// An unterminated construct ends at the end of the stream: past the last
	// newline, a line no editor shows. Name the file's last line instead.
	if last := YAMLLines(data); line > last {
		line = last
	}
	return &Error{File: p.file, Line: max(line, 1), Msg: "malformed YAML: " + problem}
}

// yamlProblem splits a yaml.v3 error into its problem and the 1-based line
// it gives (0 when it gives none).
func yamlProblem(err error) (string, int) {
	if err == nil {
		return "", 0
	}
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	m := yamlLineRe.FindStringSubmatch(msg)
	line := 0
	if m[1] != "" {
		line, _ = strconv.Atoi(m[1])
		if yamlParserProblems[m[2]] {
			line++
		}
	}
	return m[2], line
}

// yamlReaderProblem reports whether yaml.v3's reader (bad bytes, not bad
// syntax) raised problem.
func yamlReaderProblem(problem string) bool {
	return strings.Contains(problem, "UTF-") || strings.HasPrefix(problem, "input error") ||
		problem == "control characters are not allowed" || problem == "invalid Unicode character"
}

// badYAMLByte is the offset of the first byte YAML refuses to read (invalid
// UTF-8, or a character outside YAML's printable set), or -1.
func badYAMLByte(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		printable := r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0x7e) || r == 0x85 ||
			(r >= 0xa0 && r <= 0xd7ff) || (r >= 0xe000 && r <= 0xfffd && r != 0xfeff) || (r >= 0x10000 && r <= 0x10ffff)
		if r == 0xfeff && i == 0 {
			printable = true // a byte-order mark
		}
		if (r == utf8.RuneError && n == 1) || !printable {
			return i
		}
		i += n
	}
	return -1
}

// yamlLineEnds returns the offset just past each line of data, counting
// line breaks as YAML does (LF, CRLF, CR, NEL, LS, PS).
func yamlLineEnds(data []byte) []int {
	var ends []int
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == '\r' && i+1 < len(data) && data[i+1] == '\n':
			n = 2
			fallthrough
		case r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029:
			ends = append(ends, i+n)
		}
		i += n
	}
	if len(ends) == 0 || ends[len(ends)-1] < len(data) {
		ends = append(ends, len(data))
	}
	return ends
}

// YAMLLines is how many lines data has for YAML (a last line break does not
// start another line); suite errors name lines in 1..YAMLLines.
func YAMLLines(data []byte) int { return len(yamlLineEnds(data)) }

// lineAt is the 1-based YAML line holding byte off.
func lineAt(data []byte, off int) int {
	ends := yamlLineEnds(data)
	return sort.Search(len(ends), func(i int) bool { return ends[i] > off }) + 1
}

func (p *parser) fail(n *yaml.Node, field, format string, args ...any) {
	if p.err != nil {
		return
	}
	line := 0
	if n != nil {
		line = n.Line
	}
	p.err = &Error{File: p.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// fields iterates a mapping node, rejecting keys not in known.
func (p *parser) fields(n *yaml.Node, field string, known []string, fn func(key string, k, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		p.fail(n, field, "must be a mapping (key: value), got %s", kindName(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if line, dup := seen[k.Value]; dup {
			p.fail(k, join(field, k.Value), "defined twice (first at line %d)", line)
			return
		}
		seen[k.Value] = k.Line
		ok := false
		for _, x := range known {
			if k.Value == x {
				ok = true
			}
		}
		name := join(field, k.Value)
		if !ok {
			p.fail(k, name, "unknown field (known: %s)", strings.Join(known, ", "))
			return
		}
		fn(k.Value, k, v)
		if p.err != nil {
			return
		}
	}
}

func join(parent, child string) string {
	if parent == "" {
		return child
	}
	return parent + "." + child
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return fmt.Sprintf("%q", n.Value)
}

func (p *parser) str(n *yaml.Node, field string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.fail(n, field, "must be a string, got %s", kindName(n))
		return ""
	}
	return n.Value
}

// name reads a suite or workload name, which becomes a file name.
func (p *parser) name(n *yaml.Node, field string) string {
	s := p.str(n, field)
	if p.err == nil && !ValidName(s) {
		p.fail(n, field, "invalid name %q: use %s", s, NameRule)
	}
	return s
}

func (p *parser) integer(n *yaml.Node, field string, min int) int {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		p.fail(n, field, "must be an integer, got %s", kindName(n))
		return 0
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil {
		p.fail(n, field, "must be an integer, got %q", n.Value)
		return 0
	}
	if v < min {
		p.fail(n, field, "must be >= %d, got %d", min, v)
	}
	return v
}

func (p *parser) duration(n *yaml.Node, field string) time.Duration {
	s := p.str(n, field)
	if p.err != nil {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		p.fail(n, field, "must be a duration like 30s, 2m or 10ms, got %q", s)
		return 0
	}
	if d <= 0 {
		p.fail(n, field, "must be > 0, got %s", s)
	}
	return d
}

func (p *parser) strList(n *yaml.Node, field string) []string {
	if n.Kind != yaml.SequenceNode {
		p.fail(n, field, "must be a list, got %s", kindName(n))
		return nil
	}
	out := []string{}
	for i, e := range n.Content {
		out = append(out, p.str(e, fmt.Sprintf("%s[%d]", field, i)))
	}
	return out
}

func (p *parser) modes(n *yaml.Node, field string) []results.Mode {
	// YAML reads a bare null as "no value"; in a mode list it is the null mode.
	if n.Kind == yaml.SequenceNode {
		for _, e := range n.Content {
			if e.Kind == yaml.ScalarNode && e.Tag == "!!null" && e.Value == "null" {
				e.Tag = "!!str"
			}
		}
	}
	names := p.strList(n, field)
	if p.err != nil {
		return nil
	}
	if len(names) == 0 {
		p.fail(n, field, "must list at least one mode (%s)", results.List(results.BuiltinModes))
		return nil
	}
	ms := make([]results.Mode, len(names))
	seen := map[results.Mode]bool{}
	for i, name := range names {
		m := results.Mode(name)
		ms[i] = m
		f := fmt.Sprintf("%s[%d]", field, i)
		if !m.Builtin() {
			p.fail(n.Content[i], f, "unknown mode %q (known: %s)", m, results.List(results.BuiltinModes))
			return nil
		}
		if seen[m] {
			p.fail(n.Content[i], f, "mode %q listed twice", m)
			return nil
		}
		seen[m] = true
	}
	return ms
}

// fraction reads "5%" or 0.05.
func (p *parser) fraction(n *yaml.Node, field string) float64 {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.fail(n, field, "must be a number or a percentage, got %s", kindName(n))
		return 0
	}
	s := strings.TrimSpace(n.Value)
	var v float64
	var err error
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		v, err = strconv.ParseFloat(strings.TrimSpace(pct), 64)
		v /= 100
	} else {
		v, err = strconv.ParseFloat(s, 64)
	}
	if err != nil {
		p.fail(n, field, "must be a number like 0.05 or a percentage like 5%%, got %q", s)
		return 0
	}
	return v
}

func (p *parser) suite(root *yaml.Node, s *Suite) {
	s.Runs, s.Warmup, s.Timeout = DefaultRuns, DefaultWarmup, DefaultTimeout
	s.MinChange, s.Alpha = DefaultMinChange, DefaultAlpha
	s.Modes = append([]results.Mode(nil), results.BuiltinModes...)
	var nameNode, workloadsNode *yaml.Node
	baseline := ""
	p.fields(root, "", []string{"name", "runs", "warmup", "modes", "timeout", "profiler", "thresholds", "baseline", "workloads"}, func(key string, k, v *yaml.Node) {
		switch key {
		case "name":
			nameNode = v
			s.Name = p.name(v, key)
		case "runs":
			s.Runs = p.integer(v, key, 1)
		case "warmup":
			s.Warmup = p.integer(v, key, 0)
		case "modes":
			s.Modes = p.modes(v, key)
		case "timeout":
			s.Timeout = p.duration(v, key)
		case "profiler":
			p.profiler(v, key, &s.Profiler)
		case "thresholds":
			p.thresholds(v, key, s)
		case "baseline":
			baseline = p.str(v, key)
			if p.err == nil && baseline == "" {
				p.fail(v, key, "must not be empty")
			}
		case "workloads":
			workloadsNode = v
		}
	})
	if p.err != nil {
		return
	}
	if nameNode == nil {
		p.fail(root, "name", "missing: every suite needs a name (results and baselines are keyed by it)")
		return
	}
	if workloadsNode == nil {
		p.fail(root, "workloads", "missing: list at least one workload")
		return
	}
	if baseline == "" {
		baseline = filepath.Join("..", "baselines", s.Name+".json")
	}
	s.Baseline = p.abs(baseline)
	p.workloads(workloadsNode, s)
}

func (p *parser) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(p.dir, path)
}

func (p *parser) profiler(n *yaml.Node, field string, pr *Profiler) {
	p.fields(n, field, []string{"interval", "include", "exclude"}, func(key string, k, v *yaml.Node) {
		f := join(field, key)
		switch key {
		case "interval":
			// The profiler declines to load with any other interval, which
			// would fail every profiled cell after the build: refuse it here.
			pr.Interval = p.duration(v, f)
			if p.err == nil && (pr.Interval < attach.MinInterval || pr.Interval > attach.MaxInterval) {
				p.fail(v, f, "must be between %v and %v (what the profiler accepts), got %s", attach.MinInterval, attach.MaxInterval, v.Value)
			}
		case "include":
			pr.Include = p.strList(v, f)
		case "exclude":
			pr.Exclude = p.strList(v, f)
		}
	})
}

func (p *parser) thresholds(n *yaml.Node, field string, s *Suite) {
	p.fields(n, field, []string{"min_change", "alpha"}, func(key string, k, v *yaml.Node) {
		f := join(field, key)
		switch key {
		case "min_change":
			s.MinChange = p.fraction(v, f)
			if p.err == nil && !(s.MinChange >= 0 && s.MinChange < 1) { // NaN too
				p.fail(v, f, "must be between 0%% and 100%%, got %v", v.Value)
			}
		case "alpha":
			s.Alpha = p.fraction(v, f)
			if p.err == nil && !(s.Alpha > 0 && s.Alpha < 0.5) { // NaN too
				p.fail(v, f, "must be a significance level between 0 and 0.5 (e.g. 0.01), got %v", v.Value)
			}
		}
	})
}

func (p *parser) workloads(n *yaml.Node, s *Suite) {
	if n.Kind != yaml.SequenceNode {
		p.fail(n, "workloads", "must be a list of workloads, got %s", kindName(n))
		return
	}
	if len(n.Content) == 0 {
		p.fail(n, "workloads", "must list at least one workload")
		return
	}
	seen := map[string]int{}
	for i, wn := range n.Content {
		field := fmt.Sprintf("workloads[%d]", i)
		w := p.workload(wn, field, s)
		if p.err != nil {
			return
		}
		if line, dup := seen[w.Name]; dup {
			p.fail(wn, field+".name", "duplicate workload name %q (first defined at line %d)", w.Name, line)
			return
		}
		seen[w.Name] = wn.Line
		s.Workloads = append(s.Workloads, w)
	}
}

func (p *parser) workload(n *yaml.Node, field string, s *Suite) Workload {
	w := Workload{Line: n.Line}
	var projectNode, commandNode, argsNode, cwdNode *yaml.Node
	env := map[string]string{}
	p.fields(n, field, []string{"name", "project", "args", "command", "env", "cwd", "checksum", "runs", "timeout", "modes"}, func(key string, k, v *yaml.Node) {
		f := join(field, key)
		switch key {
		case "name":
			w.Name = p.name(v, f)
		case "project":
			projectNode = v
			w.Project = p.str(v, f)
		case "args":
			argsNode = v
			w.Args = p.strList(v, f)
		case "command":
			commandNode = v
			w.Command = p.strList(v, f)
			if p.err == nil && len(w.Command) == 0 {
				p.fail(v, f, "must not be empty: give the program and its arguments as a list")
			}
		case "env":
			if v.Kind != yaml.MappingNode {
				p.fail(v, f, "must be a mapping of variable names to values, got %s", kindName(v))
				return
			}
			for i := 0; i+1 < len(v.Content); i += 2 {
				kk, vv := v.Content[i], v.Content[i+1]
				name := kk.Value
				if _, dup := env[name]; dup {
					p.fail(kk, f+"."+name, "defined twice")
					return
				}
				if name == "" || strings.ContainsAny(name, "= \t") {
					p.fail(kk, f+"."+name, "invalid environment variable name")
					return
				}
				// vbench sets these per mode; from the suite they would load
				// a profiler into the none mode's runs.
				if !strings.HasPrefix(name, "VBENCH_") && len(attach.ScrubEnv([]string{name + "="})) == 0 {
					p.fail(kk, f+"."+name, "profiler variables are set by vbench for each mode (use the suite's profiler settings)")
					return
				}
				env[name] = p.str(vv, f+"."+name)
			}
		case "cwd":
			cwdNode = v
			w.Cwd = p.str(v, f)
		case "checksum":
			w.Checksum = p.str(v, f)
		case "runs":
			w.Runs = p.integer(v, f, 1)
		case "timeout":
			w.Timeout = p.duration(v, f)
		case "modes":
			w.Modes = p.modes(v, f)
		}
	})
	if p.err != nil {
		return w
	}
	if w.Name == "" {
		p.fail(n, field+".name", "missing: every workload needs a name")
		return w
	}
	field = fmt.Sprintf("%s(%s)", field, w.Name)
	switch {
	case projectNode != nil && commandNode != nil:
		p.fail(commandNode, field+".command", "give either project or command, not both")
	case projectNode == nil && commandNode == nil:
		p.fail(n, field, "needs either project (a C# project to build) or command (an argv list)")
	case commandNode != nil && argsNode != nil:
		p.fail(argsNode, field+".args", "args go with project; put a command's arguments in the command list")
	case projectNode != nil:
		w.Project = p.abs(w.Project)
		p.checkProject(projectNode, field+".project", &w)
	default:
		w.Command[0] = p.resolveCommand(commandNode, field+".command[0]", w.Command[0])
	}
	if p.err != nil {
		return w
	}
	if w.Modes != nil {
		for i, m := range w.Modes {
			if !contains(s.Modes, m) {
				p.fail(w.modeNode(n, i), fmt.Sprintf("%s.modes[%d]", field, i), "mode %q is not among the suite's modes %v", m, s.Modes)
				return w
			}
		}
	}
	if cwdNode != nil {
		w.Cwd = p.abs(w.Cwd)
		if fi, err := os.Stat(w.Cwd); err != nil || !fi.IsDir() {
			p.fail(cwdNode, field+".cwd", "%s is not a directory", w.Cwd)
			return w
		}
	} else {
		w.Cwd = p.dir
	}
	for k, v := range env {
		w.Env = append(w.Env, k+"="+v)
	}
	sort.Strings(w.Env)
	return w
}

func (w *Workload) modeNode(n *yaml.Node, i int) *yaml.Node {
	for j := 0; j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value == "modes" && i < len(n.Content[j+1].Content) {
			return n.Content[j+1].Content[i]
		}
	}
	return n
}

// checkProject accepts a .csproj file, or a directory holding exactly one.
func (p *parser) checkProject(n *yaml.Node, field string, w *Workload) {
	fi, err := os.Stat(w.Project)
	if err != nil {
		p.fail(n, field, "%s does not exist", w.Project)
		return
	}
	if fi.IsDir() {
		m, _ := filepath.Glob(filepath.Join(w.Project, "*.csproj"))
		if len(m) != 1 {
			p.fail(n, field, "%s holds %d .csproj files; name the project file", w.Project, len(m))
			return
		}
		w.Project = m[0]
		return
	}
	if filepath.Ext(w.Project) != ".csproj" {
		p.fail(n, field, "%s is not a .csproj file", w.Project)
	}
}

// resolveCommand finds argv[0]: a name without a slash is looked up in PATH
// (as a shell would, but without one), a path with a slash is taken relative
// to the suite file's directory.
func (p *parser) resolveCommand(n *yaml.Node, field, name string) string {
	if name == "" {
		p.fail(n, field, "must not be empty")
		return name
	}
	if !strings.Contains(name, "/") {
		path, err := exec.LookPath(name)
		if err != nil {
			p.fail(n, field, "command %q not found in PATH", name)
			return name
		}
		return path
	}
	path := p.abs(name)
	fi, err := os.Stat(path)
	if err != nil {
		p.fail(n, field, "command %s not found", path)
		return name
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		p.fail(n, field, "command %s is not an executable file", path)
	}
	return path
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
