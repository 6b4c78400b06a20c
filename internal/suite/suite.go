// Package suite reads a benchmark suite (YAML): which workloads to run, under
// which profiler modes, how often, and what counts as a regression.
//
// The reader walks yaml.v3 nodes itself instead of decoding into structs, so
// every error can name the file, the line and the field path
// ("suite.yaml:14: workloads[1].runs: must be >= 1, got 0"), and unknown keys
// are rejected with the same precision.
//
// The files follow the reading: suite.go holds the types and Load/Parse;
// yamlpos.go finds the real line of yaml.v3's own syntax errors; nodes.go
// reads typed values (strings, names, integers, durations, lists, modes,
// fractions, mappings of known fields) from nodes; validate.go gives the
// suite's top-level fields their meaning, modes.go the modes' and metrics',
// workload.go a workload's.
package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// Defaults for fields a suite leaves out.
const (
	DefaultRuns      = 10
	DefaultWarmup    = 1
	DefaultTimeout   = 2 * time.Minute
	DefaultMinChange = 0.05
	DefaultAlpha     = 0.01
	// DefaultMinChangeInstructions is min_change_instructions where a
	// suite sets none (or its min_change, when smaller): counted runs
	// repeat within ~0.01 % (±0.5 % where a program's threads race: a
	// suite gives such a workload one thread when counted), so 1 % is
	// a hundred times a one-thread program's spread, and time's 5 % would let
	// through a change counts show plainly (a stage 30 % dearer, +2.4 %
	// of a program under tracing, judged same at 5 %).
	DefaultMinChangeInstructions = 0.01
	// DefaultMaxRunsFactor: a cell judged against another in the same run
	// (an A/B pair) may take up to this many times its runs when its
	// verdict is still undecided (runner's adaptive rounds).
	DefaultMaxRunsFactor = 3
	// RunsLimit bounds runs, warmup and max_runs. Every launch is kept (its
	// sample in the results file, a few hundred bytes) and costs a process
	// start (a millisecond at the very least): 100000 runs of one cell are
	// already a day of a one-second workload and an interval 100 times
	// narrower than the default 10 runs give. A suite asking for a
	// billion (a typo, a generated file) is refused in a second rather
	// than found out after hours.
	RunsLimit = 100000
)

// Suite is a parsed, validated suite file. Relative paths are resolved
// against the suite file's directory.
type Suite struct {
	Path   string // as given
	Dir    string // absolute directory of the suite file
	SHA256 string // of the file's bytes

	Name   string
	Runs   int
	Warmup int
	// MaxRuns caps the runs of an A/B pair's cells when their verdict is
	// undecided after Runs; 0 means DefaultMaxRunsFactor times the cell's
	// runs. A cap at or below a cell's runs adds none.
	MaxRuns int
	// Modes are the suite's modes by name, as listed; Specs their
	// definitions in the same order (see Spec for any mode by name).
	Modes []modes.Mode
	Specs []modes.Spec
	// ModeLacks is, by mode, what a mode needs that this machine lacks
	// (its wrapper's command): refused only when the mode is selected.
	ModeLacks map[modes.Mode]*Error
	Metric    results.Metric // the workloads' default
	Timeout   time.Duration
	Profiler  Profiler
	MinChange float64 // e.g. 0.05
	// MinChangeInstructions is thresholds.min_change_instructions: the
	// minimum change of cells measured in instructions; unset, the smaller
	// of MinChange and DefaultMinChangeInstructions; 0: MinChange.
	MinChangeInstructions float64
	// MeasureMinChange holds thresholds.metrics: a measure's own minimum
	// change; the others take results.Measure.DefaultMinChange of MinChange.
	MeasureMinChange map[results.Measure]results.MinChange
	Alpha            float64 // e.g. 0.01
	Baseline         string  // absolute; defaults to <suite dir>/baselines/<name>.json
	// History is the file `vbench history` appends runs to; absolute;
	// defaults to <name>.history.jsonl beside the baseline.
	History string
	// Calibration names the workload that stands for the machine's speed
	// in a history: every other cell's value over the calibration's cell
	// of the same mode in the same run is a series of its own, from which
	// a machine that got faster or slower between invocations divides out.
	// Empty: none.
	Calibration string
	Workloads   []Workload
}

// Profiler holds the suite's profiler settings: the built-in engine modes'
// settings, and the defaults of the engine modes the suite defines.
type Profiler = modes.ProfilerSettings

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
	Metric   results.Metric // what its cells measure: its own, else the suite's
	Runs     int            // 0: the suite's
	Timeout  time.Duration  // 0: the suite's
	Modes    []modes.Mode   // nil: the suite's
	// Server and Load are set together on a service workload (service.go):
	// Project/Args/Command start its server, which Load drives.
	Server *Server
	Load   *LoadSpec
	// Against is another workload of the suite this one is judged against
	// (e.g. the base commit's build of the same program): both run in the
	// same rounds, and each of this workload's cells is judged against the
	// other's cell of the same mode. Empty: judged against the baseline.
	Against string
	// Instructions is the size the workload runs at when its cells are
	// measured in instructions (nil: its usual one).
	Instructions *Size
	// Scale is set on each workload a scaled one (scale:) expanded into:
	// its size, the argument that sets it, the workload it came from.
	Scale *results.Scale
	// Lacks is what the workload needs that this machine lacks (its
	// command, the load generator), nil when nothing: runner.NewPlan
	// refuses it only when the workload is selected.
	Lacks *Error
}

// Size is another set of arguments for a workload, with the checksum they
// give: for a project its args, for a command the arguments after its
// program.
type Size struct {
	Args     []string
	Checksum string
	Runs     int           // 0: the workload's runs
	Timeout  time.Duration // 0: the workload's, times valgrind's slowdown (runner)
}

// AtInstructionSize is w as it runs under metric instructions: its
// instructions: size in place of its arguments and checksum, or w itself
// when it gives none.
func (w *Workload) AtInstructionSize() *Workload {
	if w.Instructions == nil {
		return w
	}
	c := *w
	if c.Project != "" {
		c.Args = w.Instructions.Args
	} else if len(c.Command) > 0 {
		c.Command = append([]string{c.Command[0]}, w.Instructions.Args...)
	}
	c.Checksum = w.Instructions.Checksum
	if w.Instructions.Runs > 0 {
		c.Runs = w.Instructions.Runs
	}
	return &c
}

// EffectiveModes is the workload's own subset, or the suite's modes.
func (w *Workload) EffectiveModes(s *Suite) []modes.Mode {
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

// parser is one reading of a suite file: where it lives (for errors and
// relative paths) and the first problem found.
type parser struct {
	file string
	dir  string
	err  *Error // first error wins: it is the one to fix first
	// lack is the first thing the workload or mode being read needs from
	// the machine and this one lacks (a command, the load generator): not
	// an error of the file, refused only when a selected cell needs it.
	lack *Error
	// scales are the scale: fields by workload name, until expandScales.
	scales map[string]*scaleSpec
	// attachLines are the lines of the modes' attach: fields.
	attachLines map[modes.Mode]int
}

// need records what the machine lacks (see parser.lack).
func (p *parser) need(n *yaml.Node, field, format string, args ...any) {
	if p.lack == nil {
		p.lack = &Error{File: p.file, Line: n.Line, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
}
