package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/suite"
	"vbench/internal/testbin"
)

const pairSuite = `name: pairs
runs: 4
modes: [none, sampling]
workloads:
  - name: app
    command: [true, head]
    against: app-base
  - name: other
    command: [true]
  - name: app-base
    command: [true, base]
    runs: 6
`

// Two workloads as an A/B pair: planned with equal runs (the larger), kept
// whole by every shard split, brought along by --workloads, recorded in the
// results file; --against (two builds of the profiler) is refused with them.
func TestWorkloadPairPlanned(t *testing.T) {
	dir := t.TempDir()
	plan := planFor(t, dir, pairSuite)
	runs := map[string]int{}
	for _, c := range plan.Cells {
		runs[c.Key()] = c.Runs
	}
	if runs["app/none"] != 6 || runs["app-base/none"] != 6 || runs["app/sampling"] != 6 || runs["other/none"] != 4 {
		t.Errorf("runs %v: a pair runs the larger of its runs", runs)
	}
	if f := newFile(plan, &Env{}); f.Settings.WorkloadAgainst["app"] != "app-base" || len(f.Settings.WorkloadAgainst) != 1 || f.Settings.MaxRuns == 0 {
		t.Errorf("results settings: workload_against %v, max_runs %d", f.Settings.WorkloadAgainst, f.Settings.MaxRuns)
	}
	for n := 1; n <= 6; n++ {
		for i := 1; i <= n; i++ {
			in := map[string]bool{}
			for _, c := range ShardCells(plan.Cells, i, n) {
				in[c.Key()] = true
			}
			for _, m := range []string{"none", "sampling"} {
				if in["app/"+m] != in["app-base/"+m] {
					t.Errorf("shard %d/%d splits app/%s from app-base/%s: %v", i, n, m, m, in)
				}
			}
		}
	}
	s, err := suite.Load(filepath.Join(dir, "suite.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(s, Options{Warmup: -1, Workloads: []string{"app"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(keys(p.Cells), " "); got != "app/none app/sampling app-base/none app-base/sampling" {
		t.Errorf("--workloads app plans %s", got)
	}
	lib := filepath.Join(dir, "old.so")
	b, _ := os.ReadFile(testbin.FakeProfiler(t))
	os.WriteFile(lib, b, 0o755)
	_, err = NewPlan(s, Options{Warmup: -1, Against: lib})
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Option != "Against" || !strings.Contains(oe.Explain("--against"), "--against: workload app of "+s.Path+" is judged against workload app-base (its against: at line 5)") {
		t.Errorf("--against with a pair of workloads: %v", err)
	}
}
