package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vbench/internal/modes"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadFull(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "fib/Fib.csproj", "<Project/>")
	write(t, dir, "tool/run.sh", "#!/bin/sh\n")
	os.Chmod(filepath.Join(dir, "tool/run.sh"), 0o755)
	p := write(t, dir, "benchmarks/suite.yaml", `
name: default
runs: 12
warmup: 2
modes: [none, null, tracing]
timeout: 90s
profiler:
  interval: 5ms
  include: [Fib]
  exclude: []
thresholds:
  min_change: 3%
  alpha: 0.05
workloads:
  - name: fibonacci
    project: ../fib/Fib.csproj
    args: [--n, "30"]
    checksum: "832040"
    runs: 4
    timeout: 1m
    modes: [tracing]
    env: {DOTNET_TieredPGO: "0", A: b}
    cwd: ..
  - name: echo
    command: [env, echo, hi]
  - name: script
    command: [../tool/run.sh]
  - name: dirproject
    project: ../fib
`)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "default" || s.Runs != 12 || s.Warmup != 2 || s.Timeout != 90*time.Second ||
		s.MinChange != 0.03 || s.Alpha != 0.05 || s.Profiler.Interval != modes.Duration(5*time.Millisecond) ||
		len(s.Profiler.Include) != 1 || modes.List(s.Modes) != "none, null, tracing" {
		t.Errorf("suite fields: %+v", s)
	}
	// In the suite's own folder, not its parent's (it used to be dir/baselines).
	if want := filepath.Join(dir, "benchmarks", "baselines", "default.json"); s.Baseline != want {
		t.Errorf("default baseline %s, want %s", s.Baseline, want)
	}
	// The history sits beside the baseline.
	if want := filepath.Join(dir, "benchmarks", "baselines", "default.history.jsonl"); s.History != want {
		t.Errorf("default history %s, want %s", s.History, want)
	}
	w := s.Workloads[0]
	if w.Project != filepath.Join(dir, "fib/Fib.csproj") || w.Runs != 4 || w.Timeout != time.Minute ||
		strings.Join(w.Env, " ") != "A=b DOTNET_TieredPGO=0" || w.Cwd != dir || w.Checksum != "832040" ||
		modes.List(w.EffectiveModes(s)) != "tracing" {
		t.Errorf("workload 0: %+v", w)
	}
	if !filepath.IsAbs(s.Workloads[1].Command[0]) || s.Workloads[1].Cwd != filepath.Join(dir, "benchmarks") {
		t.Errorf("workload 1: %+v", s.Workloads[1])
	}
	if s.Workloads[2].Command[0] != filepath.Join(dir, "tool/run.sh") {
		t.Errorf("relative command: %q", s.Workloads[2].Command[0])
	}
	if s.Workloads[3].Project != filepath.Join(dir, "fib/Fib.csproj") {
		t.Errorf("project directory: %q", s.Workloads[3].Project)
	}
}

func TestDefaults(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "s.yaml", "name: q\nbaseline: b/q.json\nworkloads:\n  - {name: a, command: [true]}\n")
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Runs != DefaultRuns || s.Warmup != DefaultWarmup || s.Timeout != DefaultTimeout ||
		s.MinChange != DefaultMinChange || s.Alpha != DefaultAlpha || len(s.Modes) != len(modes.Builtins) ||
		s.Baseline != filepath.Join(dir, "b/q.json") {
		t.Errorf("defaults: %+v", s)
	}
	if len(s.SHA256) != 64 {
		t.Errorf("sha256 %q", s.SHA256)
	}
	if s.History != filepath.Join(dir, "b/q.history.jsonl") {
		t.Errorf("history beside a moved baseline: %s", s.History)
	}
	p = write(t, dir, "h.yaml", "name: q\nhistory: ci/q.jsonl\nworkloads:\n  - {name: a, command: [true]}\n")
	if s, err = Load(p); err != nil || s.History != filepath.Join(dir, "ci/q.jsonl") {
		t.Errorf("history field: %v %+v", err, s)
	}
	p = write(t, dir, "e.yaml", "name: q\nhistory: \"\"\nworkloads:\n  - {name: a, command: [true]}\n")
	if _, err = Load(p); err == nil || !strings.Contains(err.Error(), "e.yaml:2: history: must not be empty") {
		t.Errorf("empty history: %v", err)
	}
}

// Every bad input names the file, the line and the field.
func TestBadInput(t *testing.T) {
	const head = "name: s\nworkloads:\n"
	cases := []struct{ name, yaml, want string }{
		{"malformed", "name: s\nworkloads: [\n", "s.yaml:2: malformed YAML"},
		{"tab", "name: s\n\tworkloads: []\n", "s.yaml:2: malformed YAML"},
		{"unknown top key", "name: s\nrunz: 3\n", "s.yaml:2: runz: unknown field"},
		{"unknown workload key", head + "  - name: a\n    command: [true]\n    argz: [x]\n", "s.yaml:5: workloads[0](a).argz: unknown field"},
		{"runs zero", "name: s\nruns: 0\n", "s.yaml:2: runs: must be >= 1, got 0"},
		{"runs negative", head + "  - name: a\n    command: [true]\n    runs: -2\n", "s.yaml:5: workloads[0].runs: must be >= 1"},
		{"runs string", "name: s\nruns: ten\n", `s.yaml:2: runs: must be an integer, got "ten"`},
		{"runs float", "name: s\nruns: 1.5\n", `s.yaml:2: runs: must be an integer`},
		{"warmup negative", "name: s\nwarmup: -1\n", "s.yaml:2: warmup: must be >= 0"},
		{"unknown mode", "name: s\nmodes: [none, tracer]\n", `s.yaml:2: modes[1]: unknown mode "tracer"`},
		{"tilde mode", "name: s\nmodes: [none, ~]\n", `s.yaml:2: modes[1]: must be a string, got nothing`},
		{"dup mode", "name: s\nmodes: [none, none]\n", `s.yaml:2: modes[1]: mode "none" listed twice`},
		{"modes not list", "name: s\nmodes: none\n", `s.yaml:2: modes: must be a list`},
		{"bad timeout", "name: s\ntimeout: 2 minutes\n", `s.yaml:2: timeout: must be a duration`},
		{"bad min_change", "name: s\nthresholds:\n  min_change: lots\n", `s.yaml:3: thresholds.min_change: must be a number`},
		{"min_change too big", "name: s\nthresholds:\n  min_change: 150%\n", `s.yaml:3: thresholds.min_change: must be between`},
		// A bare 5 could be 5% or 500%: refused, not read either way.
		{"min_change bare 5", "name: s\nthresholds:\n  min_change: 5\n", `s.yaml:3: thresholds.min_change: a bare number is a fraction of 1 (0.05 means 5%), so 5 would mean 500%: write 5% for 5 percent`},
		{"alpha", "name: s\nthresholds: {alpha: 0.9}\n", `s.yaml:2: thresholds.alpha: must be a significance level`},
		{"bad profiler key", "name: s\nprofiler:\n  intervall: 1ms\n", `s.yaml:3: profiler.intervall: unknown field`},
		{"missing name", "workloads: []\n", `s.yaml:1: name: missing`},
		{"bad suite name", "name: ../x\n", `s.yaml:1: name: invalid name "../x"`},
		{"no workloads", "name: s\n", `s.yaml:1: workloads: missing`},
		{"empty workloads", "name: s\nworkloads: []\n", `s.yaml:2: workloads: must list at least one`},
		{"workload name escapes", head + "  - name: ../../etc\n    command: [true]\n", `s.yaml:3: workloads[0].name: invalid name "../../etc"`},
		{"workload no name", head + "  - command: [true]\n", `s.yaml:3: workloads[0].name: missing`},
		{"dup workload", head + "  - {name: a, command: [true]}\n  - {name: a, command: [true]}\n", `s.yaml:4: workloads[1].name: duplicate workload name "a" (first defined at line 3)`},
		{"neither", head + "  - name: a\n", `s.yaml:3: workloads[0](a): needs either project`},
		{"both", head + "  - name: a\n    project: x.csproj\n    command: [true]\n", `s.yaml:5: workloads[0](a).command: give either project or command`},
		{"missing project", head + "  - name: a\n    project: nope/Nope.csproj\n", `s.yaml:4: workloads[0](a).project: `},
		{"command not found", head + "  - name: a\n    command: [vbench-no-such-command-xyz]\n", `s.yaml:4: workloads[0](a).command[0]: command "vbench-no-such-command-xyz" not found in PATH`},
		{"relative command missing", head + "  - name: a\n    command: [./nope]\n", `s.yaml:4: workloads[0](a).command[0]: command `},
		{"command empty", head + "  - name: a\n    command: []\n", `s.yaml:4: workloads[0].command: must not be empty`},
		{"command string", head + "  - name: a\n    command: echo hi\n", `s.yaml:4: workloads[0].command: must be a list`},
		{"args with command", head + "  - name: a\n    command: [true]\n    args: [x]\n", `s.yaml:5: workloads[0](a).args: args go with project`},
		{"workload mode not in suite", "name: s\nmodes: [none]\nworkloads:\n  - name: a\n    command: [true]\n    modes: [tracing]\n", `s.yaml:6: workloads[0](a).modes[0]: mode "tracing" is not among the suite's modes`},
		{"env not map", head + "  - name: a\n    command: [true]\n    env: [A=b]\n", `s.yaml:5: workloads[0].env: must be a mapping`},
		{"env value list", head + "  - name: a\n    command: [true]\n    env: {A: [b]}\n", `s.yaml:5: workloads[0].env.A: must be a string`},
		{"cwd missing", head + "  - name: a\n    command: [true]\n    cwd: nowhere\n", `s.yaml:5: workloads[0](a).cwd: `},
		{"dup key", "name: s\nname: t\n", `s.yaml:2: name: defined twice (first at line 1)`},
		{"workload not mapping", head + "  - just-a-string\n", `s.yaml:3: workloads[0]: must be a mapping`},
		{"empty file", "", `s.yaml:1: empty suite file`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, t.TempDir(), "s.yaml", c.yaml)
			err := loadOrLack(p)
			if err == nil {
				t.Fatalf("no error for\n%s", c.yaml)
			}
			got := strings.TrimPrefix(err.Error(), filepath.Dir(p)+"/")
			if !strings.HasPrefix(got, c.want) {
				t.Errorf("error\n  %s\nwant prefix\n  %s", got, c.want)
			}
		})
	}
}

func TestUnreadable(t *testing.T) {
	_, err := Load("/nonexistent/suite.yaml")
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/suite.yaml: cannot read suite") {
		t.Errorf("got %v", err)
	}
}

// loadOrLack is Load's error, else the first thing the suite's workloads
// or modes need that the machine lacks: what a run selecting them is
// refused for (runner.NewPlan).
func loadOrLack(p string) error {
	s, err := Load(p)
	if err != nil {
		return err
	}
	for _, w := range s.Workloads {
		if w.Lacks != nil {
			return w.Lacks
		}
	}
	for _, m := range s.Modes {
		if e := s.ModeLacks[m]; e != nil {
			return e
		}
	}
	return nil
}
