package cli

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"vbench/internal/suite"
	"vbench/internal/testbin"
	"vbench/reports"
)

// The GitHub workflow is what users copy, and nothing runs it here; this test
// reads it the way Actions and bash would and checks what can go stale: the
// job graph, the shard matrix, artifact names, the baseline path, and every
// bin/vbench command line against the real cobra command tree.

const workflowPath = ".github/workflows/vbench.yml"

func TestWorkflow(t *testing.T) {
	root := testbin.RepoRoot()
	data, err := os.ReadFile(filepath.Join(root, workflowPath))
	if err != nil {
		t.Fatal(err)
	}
	wf, problems := checkWorkflow(data, root)
	for _, p := range problems {
		t.Error(p)
	}
	// The checks below must have had something to check.
	if n := len(wf.commands); n < 6 {
		t.Errorf("found %d bin/vbench commands in %s, expected the run, merge, compare and report steps", n, workflowPath)
	}
	for _, sub := range []string{"run", "merge", "compare", "report"} {
		if !slices.ContainsFunc(wf.commands, func(c vbenchCall) bool { return c.cmd.Name() == sub }) {
			t.Errorf("%s never calls vbench %s", workflowPath, sub)
		}
	}
}

// The checker must catch the mistakes it is there for: each edit below makes
// the real workflow wrong in one way, and the problem list must say so.
func TestWorkflowCheckCatchesMistakes(t *testing.T) {
	root := testbin.RepoRoot()
	data, err := os.ReadFile(filepath.Join(root, workflowPath))
	if err != nil {
		t.Fatal(err)
	}
	good := string(data)
	for _, tc := range []struct{ from, to, want string }{
		{"--junit junit.xml", "--junti junit.xml", "unknown flag: --junti"},
		{"bin/vbench merge shard-*.json", "bin/vbench mrege shard-*.json", `unknown command "mrege"`},
		{"bin/vbench compare \"$BASELINE\" results.json", "bin/vbench compare results.json", "compare needs OLD.json and NEW.json"},
		{"--shard ${{ matrix.shard }}/$SHARDS", "--shard ${{ matrix.shard }}/$SHARD", "$SHARD is not set"},
		{"--shard ${{ matrix.shard }}/$SHARDS", "--shard $SHARDS", "--shard \"3\""},
		{"-o report.html", "-o report.pdf", "report.pdf"},
		{"--json shard-${{ matrix.shard }}.json", "--json out/shard-${{ matrix.shard }}.json", "nothing before it writes shard-1.json"},
		{"shard: [1, 2, 3]", "shard: [1, 2]", "matrix shards [1 2], want 1..SHARDS = 1..3"},
		{"BASELINE: benchmarks/baselines/default.json", "BASELINE: baselines/default.json", "writes benchmarks/baselines/default.json"},
		{"name: vbench-shard-${{ matrix.shard }}", "name: shard-${{ matrix.shard }}", `pattern "vbench-shard-*" matches no artifact`},
		{"name: vbench-bin\n          path: bin/\n\n  bench:", "name: vbench-binaries\n          path: bin/\n\n  bench:", `artifact "vbench-bin" is not uploaded`},
		{"  merge:\n    needs: bench", "  merge:\n    needs: build-test", "merge must need bench"},
		{"--quiet\n", "--quiet --runs\n", "flag needs an argument: --runs"},
		{"if: steps.compare.outputs.code", "if: steps.comparison.outputs.code", "no earlier step of merge has id \"comparison\""},
		{"run: make lint", "run: make lnt", `the Makefile has no target "lnt"`},
		{"run: ./scripts/ensure-chromium.sh", "run: ./scripts/install-chromium.sh", "./scripts/install-chromium.sh is not an executable script"},
		{"--against bin/base/libvbenchprof.so", "--againts bin/base/libvbenchprof.so", "unknown flag: --againts"},
		{"--against bin/base/libvbenchprof.so", "--against base/libvbenchprof.so", "--against base/libvbenchprof.so: no earlier step of bench puts it there"},
		{"id: merge\n", "id: merged\n", `no earlier step of merge has id "merge"`},
		{"bin/vbench history show", "bin/vbench history shwo", "history shwo --history history-branch/default.history.jsonl --format markdown --fail-on slower: unknown flag"},
		{"--format markdown --fail-on slower", "--format html --fail-on slower", `--format "html"`},
		{"-o history.html", "-o histroy.html", "nothing before it writes history.html"},
	} {
		if !strings.Contains(good, tc.from) {
			t.Errorf("the workflow no longer contains %q; update this test", tc.from)
			continue
		}
		// Every occurrence: a pull request's and a push's command lines alike.
		_, problems := checkWorkflow([]byte(strings.ReplaceAll(good, tc.from, tc.to)), root)
		all := strings.Join(problems, "\n")
		if !strings.Contains(all, tc.want) {
			t.Errorf("after %q → %q, no problem mentions %q; got:\n%s", tc.from, tc.to, tc.want, all)
		}
	}
}

// The parts of a workflow this test reads.
type workflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]*job   `yaml:"jobs"`

	commands []vbenchCall // every bin/vbench command line, per matrix value
}

type job struct {
	Needs    stringList        `yaml:"needs"`
	Env      map[string]string `yaml:"env"`
	Strategy struct {
		Matrix map[string][]any `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []step `yaml:"steps"`
}

type step struct {
	ID   string            `yaml:"id"`
	If   string            `yaml:"if"`
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
}

// stringList is a YAML string or list of strings (needs: a or needs: [a, b]).
type stringList []string

func (s *stringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*s = []string{n.Value}
		return nil
	}
	var l []string
	err := n.Decode(&l)
	*s = l
	return err
}

// vbenchCall is one bin/vbench command line, parsed by the real command tree.
type vbenchCall struct {
	where string // job, step and matrix value, for messages
	args  []string
	cmd   *cobra.Command
}

// checkWorkflow parses a workflow and returns every problem found.
func checkWorkflow(data []byte, root string) (*workflow, []string) {
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		return &wf, []string{fmt.Sprintf("%s: %v", workflowPath, err)}
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	// Jobs in order: build-test → bench (matrix over shards) → merge.
	for _, name := range []string{"build-test", "bench", "merge"} {
		if wf.Jobs[name] == nil {
			bad("no job %q", name)
		}
	}
	if len(problems) > 0 {
		return &wf, problems
	}
	if !slices.Contains(wf.Jobs["bench"].Needs, "build-test") {
		bad("bench must need build-test (it downloads the binaries built there); needs %v", wf.Jobs["bench"].Needs)
	}
	if !slices.Contains(wf.Jobs["merge"].Needs, "bench") {
		bad("merge must need bench (it merges the shards' results); needs %v", wf.Jobs["merge"].Needs)
	}
	shards, err := strconv.Atoi(wf.Env["SHARDS"])
	if err != nil || shards < 1 {
		bad("env SHARDS = %q, want a count of shards", wf.Env["SHARDS"])
	}
	var matrix []string
	for _, v := range wf.Jobs["bench"].Strategy.Matrix["shard"] {
		matrix = append(matrix, fmt.Sprint(v))
	}
	var want []string
	for i := 1; i <= shards; i++ {
		want = append(want, strconv.Itoa(i))
	}
	if !slices.Equal(matrix, want) {
		bad("bench: matrix shards %v, want 1..SHARDS = 1..%d", matrix, shards)
	}

	// The baseline the workflow compares with is the one `vbench baseline
	// update $SUITE` writes.
	if s, err := suite.Load(filepath.Join(root, wf.Env["SUITE"])); err != nil {
		bad("env SUITE: %v", err)
	} else if rel, _ := filepath.Rel(root, s.Baseline); rel != filepath.Clean(wf.Env["BASELINE"]) {
		bad("env BASELINE = %s, but vbench baseline update %s writes %s", wf.Env["BASELINE"], wf.Env["SUITE"], rel)
	}

	// Artifacts: every job's uploads (one per matrix value), then every
	// download must name an upload of a job it needs (directly or not).
	uploads := map[string][]string{} // artifact name → job
	uploadPaths := map[string][]string{}
	for name, j := range wf.Jobs {
		for _, vals := range j.matrixValues() {
			for _, st := range j.Steps {
				if strings.HasPrefix(st.Uses, "actions/upload-artifact@") {
					a := expand(st.With["name"], vals, wf.Env)
					uploads[a] = append(uploads[a], name)
					uploadPaths[a] = strings.Fields(expand(st.With["path"], vals, wf.Env))
				}
			}
		}
	}
	for name, j := range wf.Jobs {
		ancestors := wf.ancestors(name)
		for _, vals := range j.matrixValues() {
			var files []string // what this job has on disk, as far as we track it
			var ids []string   // steps so far
			for i, st := range j.Steps {
				where := fmt.Sprintf("%s step %d (%s)", name, i+1, st.title())
				refs := st.If + st.Run
				for _, v := range st.Env {
					refs += " " + v
				}
				for _, m := range stepRefRe.FindAllStringSubmatch(refs, -1) {
					if !slices.Contains(ids, m[1]) {
						bad("%s: refers to steps.%s, but no earlier step of %s has id %q", where, m[1], name, m[1])
					}
				}
				if st.ID != "" {
					ids = append(ids, st.ID)
				}
				switch {
				case strings.HasPrefix(st.Uses, "actions/download-artifact@"):
					var names []string
					if p := st.With["pattern"]; p != "" {
						for a := range uploads {
							if ok, _ := path.Match(p, a); ok {
								names = append(names, a)
							}
						}
						if len(names) == 0 {
							bad("%s: pattern %q matches no artifact uploaded by this workflow", where, p)
						}
					} else {
						names = []string{st.With["name"]}
					}
					for _, a := range names {
						if len(uploads[a]) == 0 {
							bad("%s: artifact %q is not uploaded by any job", where, a)
							continue
						}
						if !slices.ContainsFunc(uploads[a], func(u string) bool { return ancestors[u] }) {
							bad("%s: artifact %q comes from %v, which %s does not need", where, a, uploads[a], name)
						}
						for _, p := range uploadPaths[a] {
							// A directory's contents land in the download
							// path, a file under it (merge-multiple puts
							// several artifacts' files side by side).
							if strings.HasSuffix(p, "/") {
								files = append(files, path.Clean(st.With["path"])+"/")
							} else {
								files = append(files, path.Join(st.With["path"], path.Base(p)))
							}
						}
					}
				case strings.HasPrefix(st.Uses, "actions/upload-artifact@"):
					for _, p := range strings.Fields(expand(st.With["path"], vals, wf.Env)) {
						if !slices.Contains(files, p) {
							bad("%s: uploads %s, but nothing before it writes %s", where, p, p)
						}
					}
				case st.Run != "":
					env := map[string]string{}
					for _, m := range []map[string]string{wf.Env, j.Env, st.Env} {
						for k, v := range m {
							env[k] = expand(v, vals, wf.Env)
						}
					}
					calls, outs, errs := vbenchCalls(expand(st.Run, vals, wf.Env), env, where, root)
					problems = append(problems, errs...)
					// An A/B run's OLD build must be on disk: under a
					// directory an earlier step brought (bin/ from build-test).
					for _, c := range calls {
						if f := c.cmd.Flags().Lookup("against"); f != nil && f.Value.String() != "" {
							v := f.Value.String()
							if !slices.ContainsFunc(files, func(d string) bool { return strings.HasSuffix(d, "/") && strings.HasPrefix(v, d) }) {
								bad("%s: --against %s: no earlier step of %s puts it there", where, v, name)
							}
						}
					}
					wf.commands = append(wf.commands, calls...)
					files = append(files, outs...)
					if strings.Contains(st.Run, "make build") {
						files = append(files, "bin/")
					}
				}
			}
		}
	}
	return &wf, problems
}

func (s step) title() string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Uses != "":
		return s.Uses
	}
	return strings.SplitN(s.Run, "\n", 2)[0]
}

// matrixValues lists the job's matrix combinations (one key is enough here);
// a job without a matrix runs once.
func (j *job) matrixValues() []map[string]string {
	if len(j.Strategy.Matrix) == 0 {
		return []map[string]string{{}}
	}
	var out []map[string]string
	for k, vs := range j.Strategy.Matrix {
		for _, v := range vs {
			out = append(out, map[string]string{k: fmt.Sprint(v)})
		}
	}
	return out
}

// ancestors are the jobs that finish before name starts.
func (wf *workflow) ancestors(name string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		if j := wf.Jobs[n]; j != nil {
			for _, d := range j.Needs {
				if !seen[d] {
					seen[d] = true
					walk(d)
				}
			}
		}
	}
	walk(name)
	return seen
}

var stepRefRe = regexp.MustCompile(`steps\.([A-Za-z0-9_-]+)\.`)

// expand replaces the ${{ … }} expressions Actions substitutes before the
// shell runs: matrix values, workflow env, and step outputs (a plausible "0").
// An expression it does not know is left in place, so the command check fails.
var exprRe = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

func expand(s string, matrix, env map[string]string) string {
	return exprRe.ReplaceAllStringFunc(s, func(m string) string {
		e := exprRe.FindStringSubmatch(m)[1]
		switch {
		case strings.HasPrefix(e, "matrix."):
			if v, ok := matrix[strings.TrimPrefix(e, "matrix.")]; ok {
				return v
			}
		case strings.HasPrefix(e, "env."):
			if v, ok := env[strings.TrimPrefix(e, "env.")]; ok {
				return v
			}
		case strings.HasPrefix(e, "steps.") && strings.Contains(e, ".outputs."):
			return "0"
		}
		return m
	})
}

// vbenchCalls finds the bin/vbench command lines of a run script, parses each
// with the real command tree and returns them, the files they write, and the
// problems found. The shell reading is what these scripts need: line
// continuations, comments, quotes, $VAR, and lists joined by ; && || |.
func vbenchCalls(script string, env map[string]string, where, root string) (calls []vbenchCall, outs, problems []string) {
	// Variables the runner sets for every step.
	for k, v := range map[string]string{"GITHUB_STEP_SUMMARY": "/tmp/summary.md", "GITHUB_OUTPUT": "/tmp/output", "RUNNER_TEMP": "/tmp"} {
		if _, ok := env[k]; !ok {
			env[k] = v
		}
	}
	script = strings.ReplaceAll(script, "\\\n", " ")
	for _, line := range strings.Split(script, "\n") {
		words, redirects, err := shellWords(line, env)
		if err != nil {
			if strings.Contains(line, "bin/vbench") {
				problems = append(problems, fmt.Sprintf("%s: %q: %v", where, strings.TrimSpace(line), err))
			}
			continue
		}
		outs = append(outs, redirects...)
		for _, cmdWords := range splitList(words) {
			for len(cmdWords) > 0 && slices.Contains([]string{"then", "else", "do", "if", "elif", "while", "!"}, cmdWords[0]) {
				cmdWords = cmdWords[1:]
			}
			if len(cmdWords) == 0 {
				continue
			}
			switch {
			case cmdWords[0] == "make":
				if err := checkMakeTargets(root, cmdWords[1:]); err != nil {
					problems = append(problems, fmt.Sprintf("%s: %v", where, err))
				}
				continue
			case strings.HasPrefix(cmdWords[0], "./scripts/") || strings.HasPrefix(cmdWords[0], "scripts/"):
				if fi, err := os.Stat(filepath.Join(root, cmdWords[0])); err != nil || fi.Mode()&0o111 == 0 {
					problems = append(problems, fmt.Sprintf("%s: %s is not an executable script in the repository", where, cmdWords[0]))
				}
				continue
			case cmdWords[0] != "bin/vbench" && cmdWords[0] != "./bin/vbench":
				continue
			}
			c, written, err := parseVbench(cmdWords[1:], root)
			c.where = where
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %s: %v", where, strings.Join(cmdWords, " "), err))
				continue
			}
			calls = append(calls, c)
			outs = append(outs, written...)
		}
	}
	return calls, outs, problems
}

// shellWords splits one line into words (operators ; && || | as words of
// their own), expanding $VAR and ${VAR} outside single quotes and dropping
// comments and redirections (whose targets are returned as files written).
func shellWords(line string, env map[string]string) (words, redirected []string, err error) {
	var cur strings.Builder
	inWord, quote := false, byte(0)
	flush := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	varRe := regexp.MustCompile(`^\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*|\?)`)
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quote != 0 && ch == quote:
			quote = 0
			continue
		case quote == '\'':
			cur.WriteByte(ch)
			continue
		case ch == '$':
			m := varRe.FindString(line[i:])
			if m == "" {
				return nil, nil, fmt.Errorf("cannot read %q", line[i:])
			}
			name := strings.Trim(m[1:], "{}")
			v, ok := env[name]
			if name == "?" {
				v, ok = "0", true
			}
			if !ok {
				return nil, nil, fmt.Errorf("$%s is not set by the workflow", name)
			}
			cur.WriteString(v)
			inWord = true
			i += len(m) - 1
			continue
		case quote == '"':
			cur.WriteByte(ch)
			continue
		case ch == '\'' || ch == '"':
			quote, inWord = ch, true
		case ch == '#' && !inWord:
			flush()
			return words, redirected, nil
		case ch == ' ' || ch == '\t':
			flush()
		case ch == ';' || ch == '|' || ch == '&':
			flush()
			op := string(ch)
			if i+1 < len(line) && line[i+1] == ch {
				op += string(ch)
				i++
			}
			words = append(words, op)
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, nil, fmt.Errorf("unclosed quote")
	}
	flush()
	// Redirections: "> f", ">> f", "2> f", "2>&1", ">f".
	var out []string
	for i := 0; i < len(words); i++ {
		w := strings.TrimLeft(words[i], "0123456789")
		switch {
		case w == ">" || w == ">>" || w == "<":
			if i+1 < len(words) {
				if w != "<" {
					redirected = append(redirected, words[i+1])
				}
				i++
			}
		case strings.HasPrefix(w, ">&"):
		case strings.HasPrefix(w, ">"):
			redirected = append(redirected, strings.TrimLeft(w, ">"))
		default:
			out = append(out, words[i])
		}
	}
	return out, redirected, nil
}

// checkMakeTargets checks that the Makefile defines each target.
func checkMakeTargets(root string, targets []string) error {
	data, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		return err
	}
	for _, t := range targets {
		if strings.HasPrefix(t, "-") || strings.Contains(t, "=") {
			continue
		}
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(t) + `\s*:`).Match(data) {
			return fmt.Errorf("make %s: the Makefile has no target %q", t, t)
		}
	}
	return nil
}

// splitList splits words at ; && || |.
func splitList(words []string) [][]string {
	var out [][]string
	var cur []string
	for _, w := range words {
		if w == ";" || w == "&&" || w == "||" || w == "|" || w == "&" {
			out = append(out, cur)
			cur = nil
			continue
		}
		cur = append(cur, w)
	}
	return append(out, cur)
}

// parseVbench parses vbench's arguments with the real command tree: the
// subcommand must exist, every flag exist and take its value, the positional
// arguments satisfy the command's Args rule; flag values the commands check
// before running (--format, --shard, report's -o) are checked the same way;
// a suite must load. It returns the files the command writes.
func parseVbench(args []string, root string) (vbenchCall, []string, error) {
	top := NewRootCmd()
	cmd, rest, err := top.Find(args)
	if err != nil {
		return vbenchCall{args: args}, nil, err
	}
	c := vbenchCall{args: args, cmd: cmd}
	if cmd == top {
		return c, nil, fmt.Errorf("no subcommand")
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return c, nil, err
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		return c, nil, err
	}
	flag := func(name string) string {
		if f := cmd.Flags().Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	if cmd.HasParent() && cmd.Parent().Name() == "history" {
		if f := flag("format"); f != "" && !slices.Contains(reports.HistoryFormats, f) {
			return c, nil, fmt.Errorf("--format %q: want one of %v", f, reports.HistoryFormats)
		}
	} else if f := flag("format"); f != "" && cmd.Name() != "report" {
		if err := checkFormat(f); err != nil {
			return c, nil, err
		}
	}
	if s := flag("shard"); s != "" {
		if _, err := parseShard(s); err != nil {
			return c, nil, err
		}
	}
	if cmd.Name() == "report" {
		if _, err := pickFormat(flag("format"), flag("output"), reports.Formats, reports.FormatsFor(reports.ForReport)); err != nil {
			return c, nil, err
		}
	}
	if slices.Contains([]string{"run", "list", "update"}, cmd.Name()) {
		if _, err := suite.Load(filepath.Join(root, cmd.Flags().Arg(0))); err != nil {
			return c, nil, err
		}
	}
	var written []string
	for _, name := range []string{"json", "junit", "output"} {
		if v := flag(name); v != "" {
			written = append(written, v)
		}
	}
	return c, written, nil
}
