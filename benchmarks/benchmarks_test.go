// Package benchmarks holds the C# workloads the harness runs; this test is
// their self-check. It builds every workload in Release, runs each with the
// suites' arguments and with small ones, and checks the contract the harness
// and the profiler rely on: exit codes, exactly one VBENCH line, checksums
// equal to the suites', --scale growing the work, unknown arguments refused.
package benchmarks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"vbench/internal/modes"
	"vbench/internal/suite"
	"vbench/internal/testbin"
	"vbench/runner"
)

// suiteFile mirrors the suite YAML schema the harness parses; decoding with
// KnownFields rejects any key the harness would reject.
type suiteFile struct {
	Name     string      `yaml:"name"`
	Runs     int         `yaml:"runs"`
	Warmup   int         `yaml:"warmup"`
	Modes    []suiteMode `yaml:"modes"`
	Timeout  string      `yaml:"timeout"`
	Metric   string      `yaml:"metric"`
	Profiler struct {
		Interval string   `yaml:"interval"`
		Include  []string `yaml:"include"`
		Exclude  []string `yaml:"exclude"`
	} `yaml:"profiler"`
	Thresholds struct {
		MinChange             string  `yaml:"min_change"`
		MinChangeInstructions string  `yaml:"min_change_instructions"`
		Alpha                 float64 `yaml:"alpha"`
	} `yaml:"thresholds"`
	Baseline  string          `yaml:"baseline"`
	Workloads []suiteWorkload `yaml:"workloads"`
}

// suiteMode is a suite's mode: a built-in mode's name, or a mapping
// defining one by its name and engine.
type suiteMode struct{ Name, Engine string }

func (m *suiteMode) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&m.Name)
	}
	var def struct {
		Name   string `yaml:"name"`
		Engine string `yaml:"engine"`
	}
	err := n.Decode(&def)
	m.Name, m.Engine = def.Name, def.Engine
	return err
}

func modeNames(ms []suiteMode) string {
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	return strings.Join(names, ", ")
}

type suiteWorkload struct {
	Name     string            `yaml:"name"`
	Project  string            `yaml:"project"`
	Command  []string          `yaml:"command"`
	Args     []string          `yaml:"args"`
	Checksum string            `yaml:"checksum"`
	Runs     int               `yaml:"runs"`
	Timeout  string            `yaml:"timeout"`
	Modes    []string          `yaml:"modes"`
	Env      map[string]string `yaml:"env"`
	Cwd      string            `yaml:"cwd"`
	Metric   string            `yaml:"metric"`
	// The size it is counted at under metric instructions.
	Instructions *struct {
		Args     []string `yaml:"args"`
		Checksum string   `yaml:"checksum"`
		Runs     int      `yaml:"runs"`
	} `yaml:"instructions"`
	// A service workload (web): its server and load.
	Server *struct {
		Project string   `yaml:"project"`
		Args    []string `yaml:"args"`
		Ready   string   `yaml:"ready"`
	} `yaml:"server"`
	Load *struct {
		URL         string `yaml:"url"`
		Connections int    `yaml:"connections"`
		Warmup      string `yaml:"warmup"`
		Duration    string `yaml:"duration"`
		Handler     string `yaml:"handler"`
	} `yaml:"load"`
}

// project is the workload's project: its own, or its server's.
func (w *suiteWorkload) project() string {
	if w.Server != nil {
		return w.Server.Project
	}
	return w.Project
}

var workloadName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

func loadSuite(t *testing.T, file string) suiteFile {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s suiteFile
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return s
}

// result is one run of a workload.
type result struct {
	stdout, stderr string
	code           int
}

func run(t *testing.T, dll string, args ...string) result {
	t.Helper()
	cmd := exec.Command(testbin.Dotnet(t), append([]string{dll}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running %s: %v", dll, err)
	}
	return r
}

// vbench runs a workload that must succeed and returns its VBENCH tokens,
// checking the line's contract on the way.
func vbench(t *testing.T, dll string, args ...string) map[string]string {
	t.Helper()
	r := run(t, dll, args...)
	if r.code != 0 {
		t.Fatalf("%s %v: exit %d\nstdout:\n%s\nstderr:\n%s", filepath.Base(dll), args, r.code, r.stdout, r.stderr)
	}
	var lines []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "VBENCH ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("%s %v: %d VBENCH lines, want exactly 1:\n%s", filepath.Base(dll), args, len(lines), r.stdout)
	}
	tokens := map[string]string{}
	for _, tok := range strings.Fields(strings.TrimPrefix(lines[0], "VBENCH ")) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok || k == "" || v == "" {
			t.Fatalf("bad token %q in %q", tok, lines[0])
		}
		if _, dup := tokens[k]; dup {
			t.Fatalf("duplicate key %q in %q", k, lines[0])
		}
		tokens[k] = v
	}
	if ns := intToken(t, tokens, "elapsed_ns"); ns <= 0 {
		t.Errorf("elapsed_ns=%d, want > 0", ns)
	}
	// The kernel's CPU time (metric kernel-cpu): present, and possibly 0 for
	// a kernel shorter than the clock's microsecond.
	if ns := intToken(t, tokens, "cpu_ns"); ns < 0 {
		t.Errorf("cpu_ns=%d, want >= 0", ns)
	}
	if tokens["checksum"] == "" {
		t.Errorf("no checksum in %q", lines[0])
	}
	calls := 0
	for k := range tokens {
		if strings.HasPrefix(k, "calls.") {
			calls++
			if n := intToken(t, tokens, k); n <= 0 {
				t.Errorf("%s=%d, want > 0", k, n)
			}
			if !strings.HasPrefix(k, "calls.Vbench.") {
				t.Errorf("%s: counted functions live in a Vbench.* namespace", k)
			}
		}
	}
	if calls == 0 {
		t.Errorf("no calls.* counts in %q", lines[0])
	}
	return tokens
}

func intToken(t *testing.T, tokens map[string]string, key string) int64 {
	t.Helper()
	v, ok := tokens[key]
	if !ok {
		t.Fatalf("no %s in the VBENCH line", key)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q is not an integer", key, v)
	}
	return n
}

// The suites parse under the harness's schema, cover every workload, and
// each workload prints exactly the checksum its suite expects.
func TestSuites(t *testing.T) {
	projects, _ := filepath.Glob("*/*.csproj")
	if len(projects) < 8 {
		t.Fatalf("found %d workload projects, want at least 8", len(projects))
	}
	for _, file := range []string{"suite.yaml", "quick.yaml"} {
		t.Run(file, func(t *testing.T) {
			s := loadSuite(t, file)
			if s.Name == "" || s.Runs < 1 || s.Warmup < 0 || len(s.Modes) == 0 || len(s.Workloads) == 0 {
				t.Fatalf("%s: incomplete suite: %+v", file, s)
			}
			seen := map[string]bool{}
			for _, w := range s.Workloads {
				if !workloadName.MatchString(w.Name) || seen[w.Name] {
					t.Errorf("%s: bad or duplicate workload name %q", file, w.Name)
				}
				seen[w.Name] = true
				switch {
				case w.Server != nil:
					if w.Server.Project == "" || w.Load == nil || w.Load.Handler == "" {
						t.Errorf("%s: service %s needs a server project and a load with a handler", file, w.Name)
					}
				case w.Project == "" || w.Checksum == "":
					t.Errorf("%s: %s needs a project and a checksum", file, w.Name)
				}
			}
			if file == "suite.yaml" {
				inSuite := map[string]bool{}
				for _, w := range s.Workloads {
					inSuite[filepath.Clean(w.project())] = true
				}
				for _, p := range projects {
					if !inSuite[p] {
						t.Errorf("suite.yaml does not run %s", p)
					}
				}
				// Every built-in mode, then the allocation engines (each its
				// own engine's name), which run where they are checked
				// (allocs) or cheap; every workload runs every built-in mode.
				want := modes.List(modes.Builtins) + ", allocation-sampling, allocations"
				if modeNames(s.Modes) != want {
					t.Errorf("suite.yaml modes %s, want %s", modeNames(s.Modes), want)
				}
				for _, m := range s.Modes[len(modes.Builtins):] {
					if m.Engine != m.Name {
						t.Errorf("suite.yaml mode %s runs engine %q", m.Name, m.Engine)
					}
				}
				for _, w := range s.Workloads {
					if len(w.Modes) > 0 && !strings.HasPrefix(strings.Join(w.Modes, ", "), modes.List(modes.Builtins)) {
						t.Errorf("suite.yaml's %s runs %v: not every built-in mode", w.Name, w.Modes)
					}
				}
			}
			for _, w := range s.Workloads {
				if w.Server != nil {
					continue // a server prints no VBENCH line: runner's service tests run it
				}
				t.Run(w.Name, func(t *testing.T) {
					dll := testbin.Workload(t, filepath.Join("benchmarks", w.Project))
					got := vbench(t, dll, w.Args...)
					if got["checksum"] != w.Checksum {
						t.Errorf("checksum %s, %s expects %s", got["checksum"], file, w.Checksum)
					}
					// Every batch workload of both suites is counted at a
					// size of its own (issue 46), whose checksum must hold.
					if w.Instructions == nil {
						t.Fatalf("%s gives no instructions: size", file)
					}
					if got := vbench(t, dll, w.Instructions.Args...); got["checksum"] != w.Instructions.Checksum {
						t.Errorf("instructions: size's checksum %s, %s expects %s", got["checksum"], file, w.Instructions.Checksum)
					}
				})
			}
		})
	}
}

// Small arguments for each workload, and the count that measures its work.
var small = []struct {
	name, project string
	args          []string
	work          string // a calls.* key proportional to the work
}{
	{"fibonacci", "fibonacci/Fibonacci.csproj", []string{"--n", "15", "--iterations", "20"}, "calls.Vbench.Fibonacci.Program.Fib"},
	{"mandelbrot", "mandelbrot/Mandelbrot.csproj", []string{"--width", "40", "--height", "40", "--repeat", "2"}, "calls.Vbench.Mandelbrot.Mandel.Iterate"},
	{"binarytrees", "binarytrees/BinaryTrees.csproj", []string{"--depth", "10"}, "calls.Vbench.BinaryTrees.Program.BottomUpTree"},
	{"exceptions", "exceptions/Exceptions.csproj", []string{"--iterations", "200"}, "calls.Vbench.Exceptions.Program.Thrower"},
	{"threads", "threads/Threads.csproj", []string{"--rounds", "20", "--threads", "3", "--items", "4", "--tasks", "100", "--chains", "20", "--steps", "3", "--work", "50"}, "calls.Vbench.Threads.Worker.Crunch"},
	{"dispatch", "dispatch/Dispatch.csproj", []string{"--rounds", "20", "--length", "50"}, "calls.Vbench.Dispatch.Kernels.IsKept"},
	{"nbody", "nbody/NBody.csproj", []string{"--steps", "2000", "--batch", "10"}, "calls.Vbench.NBody.NBodySystem.Advance"},
	{"jitstorm", "jitstorm/JitStorm.csproj", []string{"--methods", "100", "--generics", "20"}, "calls.Vbench.JitStorm.Generic.Visit<T>"},
	{"split", "split/Split.csproj", []string{"--calls", "20000", "--threads", "3"}, "calls.Vbench.Split.B.Step"},
	{"emptycall", "emptycall/EmptyCall.csproj", []string{"--calls", "20000"}, "calls.Vbench.EmptyCall.Program.Empty"},
	{"allocs", "allocs/Allocs.csproj", []string{"--orders", "2000", "--reissues", "500", "--notes", "3000"}, "alloc.Vbench.Allocs.OrderLine"},
}

// --scale 1.05 does about 5% more work (and so changes the checksum), the
// same arguments give the same checksum twice, and anything unknown or
// malformed is refused with exit code 2 and a message on stderr.
func TestWorkloadArguments(t *testing.T) {
	for _, w := range small {
		t.Run(w.name, func(t *testing.T) {
			dll := testbin.Workload(t, filepath.Join("benchmarks", w.project))
			base := vbench(t, dll, w.args...)
			again := vbench(t, dll, w.args...)
			if base["checksum"] != again["checksum"] {
				t.Errorf("checksum %s then %s for the same arguments", base["checksum"], again["checksum"])
			}
			scaled := vbench(t, dll, append(w.args, "--scale", "1.05")...)
			b, s := intToken(t, base, w.work), intToken(t, scaled, w.work)
			if ratio := float64(s) / float64(b); ratio < 1.03 || ratio > 1.07 {
				t.Errorf("--scale 1.05: %s went from %d to %d (x%.3f), want about x1.05", w.work, b, s, ratio)
			}
			if scaled["checksum"] == base["checksum"] {
				t.Errorf("--scale 1.05 left the checksum at %s: the work did not change", base["checksum"])
			}

			for _, bad := range [][]string{
				{"--no-such-option", "1"},
				{"stray"},
				{"--scale", "0"},
				{"--scale", "x"},
				{w.args[0]}, // a known option without its value
			} {
				r := run(t, dll, append(append([]string{}, w.args...), bad...)...)
				if r.code != 2 || strings.TrimSpace(r.stderr) == "" || strings.Contains(r.stdout, "VBENCH") {
					t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2, a message, no VBENCH line", bad, r.code, r.stderr, r.stdout)
				}
			}
		})
	}
}

// mandelbrot's checksum must not depend on how rows were spread over threads.
func TestMandelbrotIndependentOfThreads(t *testing.T) {
	dll := testbin.Workload(t, "benchmarks/mandelbrot/Mandelbrot.csproj")
	args := []string{"--width", "64", "--height", "48"}
	want := vbench(t, dll, append(args, "--threads", "1")...)["checksum"]
	for _, n := range []string{"2", "5"} {
		if got := vbench(t, dll, append(args, "--threads", n)...)["checksum"]; got != want {
			t.Errorf("--threads %s: checksum %s, with one thread %s", n, got, want)
		}
	}
}

// --pgm writes a binary PGM of the image, outside the measured kernel.
func TestMandelbrotPGM(t *testing.T) {
	dll := testbin.Workload(t, "benchmarks/mandelbrot/Mandelbrot.csproj")
	file := filepath.Join(t.TempDir(), "m.pgm")
	vbench(t, dll, "--width", "30", "--height", "20", "--pgm", file)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	header := "P5\n30 20\n255\n"
	if !strings.HasPrefix(string(data), header) || len(data) != len(header)+30*20 {
		t.Fatalf("not a 30x20 PGM: %d bytes, starting %q", len(data), data[:min(len(data), 16)])
	}
	black := bytes.Count(data[len(header):], []byte{0}) // pixels in the set
	if black == 0 || black == 30*20 {
		t.Errorf("%d of %d pixels in the set: want some in and some out", black, 30*20)
	}
}

// peers.yaml is read by the real suite reader (its modes are mappings the
// loose struct above cannot hold), runs its workloads exactly as suite.yaml
// does (same arguments, same checksums: it measures the same kernels), and
// defines the modes its comment promises.
func TestPeersSuite(t *testing.T) {
	peers, err := suite.Load("peers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	full, err := suite.Load("suite.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range peers.Workloads {
		var same *suite.Workload
		for i := range full.Workloads {
			if full.Workloads[i].Name == w.Name {
				same = &full.Workloads[i]
			}
		}
		if same == nil {
			// Only in peers.yaml (the 4-thread workload): its checksum is run here.
			here, _ := filepath.Abs(".")
			rel, err := filepath.Rel(here, w.Project) // the suite reader made it absolute
			if err != nil {
				t.Fatal(err)
			}
			dll := testbin.Workload(t, filepath.Join("benchmarks", rel))
			if got := vbench(t, dll, w.Args...); got["checksum"] != w.Checksum || got["threads"] != "4" {
				t.Errorf("peers.yaml's %s: checksum %s threads %s, want %s on 4 threads", w.Name, got["checksum"], got["threads"], w.Checksum)
			}
			continue
		}
		if same.Project != w.Project || strings.Join(same.Args, " ") != strings.Join(w.Args, " ") || same.Checksum != w.Checksum {
			t.Errorf("peers.yaml's %s differs from suite.yaml's", w.Name)
		}
	}
	if got := modes.List(peers.Modes); got != "none, sampling-10ms, sampling-1ms, suspend-10ms, suspend-1ms, eventpipe, eventpipe-10ms, perf-1ms, tracing" {
		t.Errorf("peers.yaml modes: %s", got)
	}
	for name, want := range map[modes.Mode]string{
		"sampling-10ms":  "vbench sampling, interval 10ms",
		"sampling-1ms":   "vbench sampling, interval 1ms",
		"suspend-1ms":    "vbench suspend-sampling, interval 1ms",
		"eventpipe-10ms": "DOTNET_EventPipeThreadSamplingRate=10",
		"perf-1ms":       "scripts/perf-record.sh {rundir} 1000",
	} {
		sp, _ := peers.Spec(name)
		if d := sp.Description(); !strings.Contains(d, want) {
			t.Errorf("%s: %s, want %q", name, d, want)
		}
	}
	if sp, _ := peers.Spec("eventpipe"); !strings.Contains(sp.Env["DOTNET_EventPipeOutputPath"], modes.RunDir) {
		t.Errorf("eventpipe writes its trace outside the run's directory: %v", sp.Env)
	}
}

// jitstorm's line names every generated method with its exact count (the
// harness then checks each one under tracing), up to its largest scale, and
// the harness's parser takes the whole line.
func TestJitStormCountsEveryMethod(t *testing.T) {
	dll := testbin.Workload(t, "benchmarks/jitstorm/JitStorm.csproj")
	for _, args := range [][]string{{"--methods", "2000", "--generics", "500"}, {"--methods", "2000", "--generics", "500", "--scale", "2"}, {"--methods", "101", "--generics", "1"}} {
		r := run(t, dll, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		line, _, _ := strings.Cut(r.stdout, "\n")
		rep, err := runner.ParseLine(line)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		methods, _ := strconv.Atoi(rep.Other["methods"])
		generics, _ := strconv.Atoi(rep.Other["generics"])
		want := map[string]int64{
			"Vbench.JitStorm.Generic.Visit<T>": int64(generics),
			"Vbench.JitStorm.Gen.CallMethods":  1,
			"Vbench.JitStorm.Gen.CallGenerics": 1,
		}
		for i := 0; i < methods; i++ {
			want[fmt.Sprintf("Vbench.JitStorm.Gen.M%04d", i)] = 1
		}
		for b := 0; b*100 < methods; b++ {
			want[fmt.Sprintf("Vbench.JitStorm.Gen.MethodBatch%03d", b)] = 1
		}
		for b := 0; b*100 < generics; b++ {
			want[fmt.Sprintf("Vbench.JitStorm.Gen.GenericBatch%03d", b)] = 1
		}
		if diff := cmp.Diff(want, rep.Calls); diff != "" || methods < 1 {
			t.Errorf("%v (methods=%d generics=%d): calls entries differ from every generated method once (-want +got):\n%s", args, methods, generics, diff)
		}
	}
}

// The workloads that declare shares of their work (share.<Function>=F, which
// the harness checks under sampling) declare what their calls say: split's
// are its call ratio, mandelbrot's halves are equal and declared only when
// the image is mirrored (an even height). The harness's parser takes them.
func TestSharesDeclared(t *testing.T) {
	line := func(dll string, args ...string) runner.Report {
		t.Helper()
		r := run(t, dll, args...)
		first, _, _ := strings.Cut(r.stdout, "\n")
		rep, err := runner.ParseLine(first)
		if r.code != 0 || err != nil {
			t.Fatalf("%v: exit %d, %v\n%s", args, r.code, err, r.stderr)
		}
		return rep
	}
	split := testbin.Workload(t, "benchmarks/split/Split.csproj")
	rep := line(split, "--calls", "1001", "--ratio", "0.3", "--threads", "3")
	a, b := rep.Calls["Vbench.Split.A.Step"], rep.Calls["Vbench.Split.B.Step"]
	want := map[string]float64{"Vbench.Split.A.Step": float64(a) / 1001, "Vbench.Split.B.Step": float64(b) / 1001}
	if a+b != 1001 || a != 300 || !cmp.Equal(rep.Shares, want) {
		t.Errorf("split: calls A %d B %d, shares %v; want 300 + 701 calls and shares %v", a, b, rep.Shares, want)
	}

	mandel := testbin.Workload(t, "benchmarks/mandelbrot/Mandelbrot.csproj")
	rep = line(mandel, "--width", "64", "--height", "48", "--repeat", "2")
	if want := map[string]float64{"Vbench.Mandelbrot.Mandel.UpperRow": 0.5, "Vbench.Mandelbrot.Mandel.LowerRow": 0.5}; !cmp.Equal(rep.Shares, want) ||
		rep.Calls["Vbench.Mandelbrot.Mandel.UpperRow"] != 48 || rep.Calls["Vbench.Mandelbrot.Mandel.LowerRow"] != 48 {
		t.Errorf("mandelbrot, even height: shares %v, calls %v", rep.Shares, rep.Calls)
	}
	rep = line(mandel, "--width", "64", "--height", "47", "--repeat", "1")
	if len(rep.Shares) != 0 || rep.Calls["Vbench.Mandelbrot.Mandel.UpperRow"] != 24 || rep.Calls["Vbench.Mandelbrot.Mandel.LowerRow"] != 23 {
		t.Errorf("mandelbrot, odd height: shares %v (want none: the middle row has no mirror), calls %v", rep.Shares, rep.Calls)
	}
}

// allocs declares its objects by type (alloc.<Type>=N, which the harness
// checks under the allocation engines) as its calls say: an Order per
// NewOrder and per Reissue, an OrderLine per AddLine, a Note per Record,
// at any --scale. The harness's parser takes them.
func TestAllocsDeclared(t *testing.T) {
	dll := testbin.Workload(t, "benchmarks/allocs/Allocs.csproj")
	for _, args := range [][]string{{}, {"--orders", "1000", "--lines", "0", "--reissues", "7", "--notes", "1", "--scale", "1.5"}} {
		r := run(t, dll, args...)
		first, _, _ := strings.Cut(r.stdout, "\n")
		rep, err := runner.ParseLine(first)
		if r.code != 0 || err != nil {
			t.Fatalf("%v: exit %d, %v\n%s", args, r.code, err, r.stderr)
		}
		c := rep.Calls
		want := map[string]int64{
			"Vbench.Allocs.Order":     c["Vbench.Allocs.Shop.NewOrder"] + c["Vbench.Allocs.Returns.Reissue"],
			"Vbench.Allocs.OrderLine": c["Vbench.Allocs.Shop.AddLine"],
			"Vbench.Allocs.Note":      c["Vbench.Allocs.Audit.Record"],
		}
		if !cmp.Equal(rep.Allocs, want) || want["Vbench.Allocs.Order"] == 0 || want["Vbench.Allocs.Note"] == 0 {
			t.Errorf("%v: allocs %v, calls %v; want %v", args, rep.Allocs, c, want)
		}
	}
}
