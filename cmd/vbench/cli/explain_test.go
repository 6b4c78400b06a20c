package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/internal/testbin"
	"vbench/reports"
	"vbench/reports/profileview"
	"vbench/runner"
)

// --against the slow profiler build (its enter hook adds a few cycles to
// every call) under tracing, fibonacci: the pair carries an explain in ns, its
// functions ordered by the size of their change, and it is exactly what
// vbench diff says of the two sides' kept profiles (every measured run of
// each, kept; the diff gives intervals over them): one computation, two
// ways to reach it. Which function changed most is the machine's to say
// (times are wall-clock, and a loaded machine moved Args.Parse more than
// the spin moved Fib): not asserted here; the measured rate of explain
// naming the changed method is in docs/notebook/measurements.md (10/10).
func TestAgainstSlowBuildExplainsWithHotMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the slow profiler and runs a workload under two builds")
	}
	t.Parallel() // asserts no time: the explain is compared with the diff of the same runs
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
    args: [--n, "25", --iterations, "30"]
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
	if ch.ExplainUnit != "ns" || len(ch.Explain) == 0 || len(ch.Explain) > 5 {
		t.Fatalf("explain %q %+v, want 1 to 5 functions, in ns", ch.ExplainUnit, ch.Explain)
	}
	// The runtime's own entries (JIT compilation, GC pauses: from the
	// startup hook's figures, not from the profiles) may lead when they
	// moved; they are no function of the diff. Under load JIT compilation
	// did, by 28 ms.
	var fns []results.Contribution
	for _, e := range ch.Explain {
		if !runner.IsRuntime(e.Function) {
			fns = append(fns, e)
		}
	}
	if len(fns) == 0 {
		t.Fatalf("explain %+v: no function", ch.Explain)
	}
	if e := fns[0]; e.Lo == nil || e.Hi == nil || !(*e.Lo <= e.Change && e.Change <= *e.Hi) {
		t.Errorf("explain %+v: no interval around the change (4 runs a side: Welch)", e)
	}
	// A path whose part of the runs moved most may lead; the rest follow
	// by the size of their change, those not shown to differ from zero
	// after every one that is (the runtime's entries, which go by the size
	// of theirs, aside).
	for k := 2; k < len(fns); k++ {
		a, b := fns[k-1], fns[k]
		if a.NotShown && !b.NotShown {
			t.Errorf("a change not shown to differ from zero before one that is: %+v", ch.Explain)
		}
		if a.NotShown == b.NotShown && b.Function != a.Function && math.Abs(b.Change) > math.Abs(a.Change) {
			t.Errorf("explain not ordered by the size of the change: %+v", ch.Explain)
		}
	}
	if c.Verdict == results.VerdictRegressed && !strings.Contains(stdout, "why fib/tracing: "+strings.SplitN(reports.ExplainText(ch, 1), " ", 2)[0]) {
		t.Errorf("the table has no why line under the regressed row:\n%s", stdout)
	}
	for _, m := range []string{"tracing", "tracing@old"} {
		runs, _ := os.ReadDir(filepath.Join(dir, "out", "r.profiles", "fib", m, "runs"))
		if len(runs) != f.Find("fib", modes.Mode(m)).Runs {
			t.Errorf("%s: %d runs kept, want one per measured run (%d)\n%s", m, len(runs), f.Find("fib", modes.Mode(m)).Runs, stderr)
		}
	}
	diff := func(by string) profileview.DiffJSON {
		js, stderr, code := runVbench(t, "diff", filepath.Join(dir, "out", "r.profiles", "fib", "tracing@old"), filepath.Join(dir, "out", "r.profiles", "fib", "tracing"), "--format", "json", "--top", "500", "--by", by)
		if code != 0 {
			t.Fatalf("diff: exit %d\n%s", code, stderr)
		}
		var d profileview.DiffJSON
		if err := json.Unmarshal([]byte(js), &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	d, byPath := diff("function"), diff("path")
	if d.OldRuns != f.Find("fib", "tracing@old").Runs || len(d.Functions) < len(ch.Explain) || d.Functions[0].Lo == nil {
		t.Fatalf("diff of the kept runs: %d runs, functions %+v", d.OldRuns, d.Functions)
	}
	if !slices.ContainsFunc(d.Functions, func(fn profileview.DiffFunction) bool { return fn.Function == "Vbench.Fibonacci.Program.Fib" }) {
		t.Errorf("the diff of fibonacci's profiles has no Fib: %+v", d.Functions)
	}
	// Each function's entry is the diff's row of its function, or of its
	// path by path: the same runs give the same answer.
	for _, e := range fns {
		rows := d.Functions
		if e.Path != nil {
			rows = byPath.Functions
		}
		i := slices.IndexFunc(rows, func(fn profileview.DiffFunction) bool {
			return fn.Function == e.Function && slices.Equal(fn.Path, e.Path)
		})
		if i < 0 || math.Abs(rows[i].Change-e.Change) > 1e-6*math.Abs(e.Change)+1e-9 {
			t.Errorf("explain's %s %v %v is not the diff's row (%d): the same runs must give the same answer", e.Function, e.Path, e.Change, i)
		}
	}
}
