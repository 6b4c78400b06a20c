package cli

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"vbench/internal/results"
	"vbench/internal/testbin"
)

// A sampling pair's explain is sampled time per run, not share points: two
// builds of a program in which Work.Hot does four times the work and
// Work.Cold the same (TwoWork 160 40 against 40 40). Hot comes first and
// grows; Cold stays about level, where in share points it read as falling
// by some 30 points (its share diluted by Hot's growth: a new user took it
// for a method that got faster).
func TestSamplingExplainIsSampledTime(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a program's two builds under the sampler")
	}
	dll := testbin.Workload(t, "cmd/vbench/cli/testdata/csharp/twowork/TwoWork.csproj")
	f, _, stdout := runPairSuite(t, `name: explain-sampling
runs: 3
warmup: 0
modes:
  - name: sampled
    engine: sampling
    interval: 1ms
workloads:
  - name: new
    command: [dotnet, `+dll+`, "160", "40"]
    against: old
  - name: old
    command: [dotnet, `+dll+`, "40", "40"]
`, "3")
	c := f.Find("new", "sampled")
	if c == nil || c.Compare == nil || len(c.Compare.Explain) == 0 {
		t.Fatalf("no explain for the sampled pair:\n%s", stdout)
	}
	ch := c.Compare
	if ch.ExplainUnit != results.ExplainSampledPerRun {
		t.Fatalf("explain unit %q, want %q: %+v", ch.ExplainUnit, results.ExplainSampledPerRun, ch.Explain)
	}
	t.Logf("explain (%s): %+v", ch.ExplainUnit, ch.Explain)
	hot := ch.Explain[0]
	if hot.Function != "Work.Hot" || !(hot.Change > 0) || !(hot.New > 2*hot.Old) {
		t.Fatalf("first %+v, want Work.Hot more than doubled", hot)
	}
	// With its interval, as vbench diff gives one: well above zero for
	// four times the work.
	if hot.Lo == nil || hot.Hi == nil || !(0 < *hot.Lo && *hot.Lo < hot.Change && hot.Change < *hot.Hi) {
		t.Errorf("Work.Hot's change %v has no interval around it above zero: %v %v", hot.Change, hot.Lo, hot.Hi)
	}
	for _, e := range ch.Explain[1:] {
		if e.Function == "Work.Cold" && math.Abs(e.Change) > hot.Change/4 {
			t.Errorf("Work.Cold %+v moved by more than a quarter of Hot's change %v: its work did not change", e, hot.Change)
		}
	}
}

// runPairSuite runs suite (YAML) with at most maxRuns runs a cell and no
// baseline: A/B pairs of a program's two builds, regressed or not (exit 0
// or 1). It returns the results, the results file and the table. The
// suites list no none mode: a pair is judged within its own mode, and
// none's runs were launches nothing asserted.
func runPairSuite(t *testing.T, suite, maxRuns string) (*results.File, string, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(path, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	stdout, stderr, code := runVbench(t, "run", path, "--no-baseline", "--max-runs", maxRuns, "--json", out)
	if code != 0 && code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return f, out, stdout
}
