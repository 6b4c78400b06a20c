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
// call) under tracing: the pair's explain names split's hot methods (the
// ones called millions of times), every measured run's profiles are kept
// on both sides, and vbench diff on the kept directories gives intervals
// over the runs.
func TestAgainstSlowBuildExplainsWithHotMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the slow profiler and runs a workload under two builds")
	}
	slow := testbin.SlowProfilerLib(t)
	testbin.Workload(t, "benchmarks/split/Split.csproj") // built once, as the run would
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.yaml")
	os.WriteFile(suite, []byte(`name: explain
runs: 4
warmup: 0
modes: [tracing]
metric: kernel-cpu
workloads:
  - name: split
    project: `+filepath.Join(testbin.RepoRoot(), "benchmarks/split/Split.csproj")+`
    args: [--calls, "40000000", --ratio, "0.25"]
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
	c := f.Find("split", "tracing")
	if c == nil || c.Compare == nil {
		t.Fatalf("no judged tracing cell:\n%s", stdout)
	}
	ch := c.Compare
	hot := map[string]bool{"Vbench.Split.A.Step": true, "Vbench.Split.B.Step": true, "Vbench.Split.Kernels.Loop": true}
	if ch.ExplainUnit != "ns" || len(ch.Explain) == 0 || !hot[ch.Explain[0].Function] {
		t.Errorf("explain %q %+v, want split's hot methods first, in ns", ch.ExplainUnit, ch.Explain)
	}
	if c.Verdict == results.VerdictRegressed && !strings.Contains(stdout, "why split/tracing: "+ch.Explain[0].Function) {
		t.Errorf("the table has no why line under the regressed row:\n%s", stdout)
	}
	for _, m := range []string{"tracing", "tracing@old"} {
		runs, _ := os.ReadDir(filepath.Join(dir, "out", "r.profiles", "split", m, "runs"))
		if len(runs) != f.Find("split", modes.Mode(m)).Runs {
			t.Errorf("%s: %d runs kept, want one per measured run (%d)\n%s", m, len(runs), f.Find("split", modes.Mode(m)).Runs, stderr)
		}
	}
	js, stderr, code := runVbench(t, "diff", filepath.Join(dir, "out", "r.profiles", "split", "tracing@old"), filepath.Join(dir, "out", "r.profiles", "split", "tracing"), "--format", "json")
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
