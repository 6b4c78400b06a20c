package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/internal/testbin"
	"vbench/reports"
)

// --against the slow profiler build (its enter hook spins a fixed time per
// call) under tracing: the pair's explain names fibonacci's hot method (Fib,
// called 30 million times a run, which holds nearly all the time: whatever
// the machine's noise, the largest change is its own), every measured run's
// profiles are kept on both sides, and vbench diff on the kept directories
// gives intervals over the runs. (On split, whose two hot methods hold a
// third of the time, a loaded machine's noise in VbenchLine.Print once
// outweighed the spin's change.)
func TestAgainstSlowBuildExplainsWithHotMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the slow profiler and runs a workload under two builds")
	}
	slow := testbin.SlowProfilerLib(t)
	testbin.Workload(t, "benchmarks/fibonacci/Fibonacci.csproj") // built once, as the run would
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.yaml")
	os.WriteFile(suite, []byte(`name: explain
runs: 4
warmup: 0
modes: [tracing]
metric: kernel-cpu
workloads:
  - name: fib
    project: `+filepath.Join(testbin.RepoRoot(), "benchmarks/fibonacci/Fibonacci.csproj")+`
    args: [--n, "25", --iterations, "130"]
`), 0o644)
	out := filepath.Join(dir, "out", "r.json")
	stdout, stderr, code := runVbench(t, "run", suite, "--no-baseline", "--max-runs", "4", "--against", slow, "--json", out)
	if code != 0 && code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	c := f.Find("fib", "tracing")
	if c == nil || c.Compare == nil {
		t.Fatalf("no judged tracing cell:\n%s", stdout)
	}
	ch := c.Compare
	hot := map[string]bool{"Vbench.Fibonacci.Program.Fib": true}
	if ch.ExplainUnit != "ns" || len(ch.Explain) == 0 || !hot[ch.Explain[0].Function] {
		t.Errorf("explain %q %+v, want fibonacci's hot method first, in ns", ch.ExplainUnit, ch.Explain)
	}
	if c.Verdict == results.VerdictRegressed && !strings.Contains(stdout, "why fib/tracing: "+ch.Explain[0].Function) {
		t.Errorf("the table has no why line under the regressed row:\n%s", stdout)
	}
	for _, m := range []string{"tracing", "tracing@old"} {
		runs, _ := os.ReadDir(filepath.Join(dir, "out", "r.profiles", "fib", m, "runs"))
		if len(runs) != f.Find("fib", modes.Mode(m)).Runs {
			t.Errorf("%s: %d runs kept, want one per measured run (%d)\n%s", m, len(runs), f.Find("fib", modes.Mode(m)).Runs, stderr)
		}
	}
	js, stderr, code := runVbench(t, "diff", filepath.Join(dir, "out", "r.profiles", "fib", "tracing@old"), filepath.Join(dir, "out", "r.profiles", "fib", "tracing"), "--format", "json")
	if code != 0 {
		t.Fatalf("diff: exit %d\n%s", code, stderr)
	}
	var d reports.DiffJSON
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		t.Fatal(err)
	}
	if d.OldRuns < 2 || len(d.Functions) == 0 || d.Functions[0].Lo == nil || !hot[d.Functions[0].Function] {
		t.Errorf("diff of the kept runs: %d runs, functions %+v", d.OldRuns, d.Functions)
	}
}
