package valgrindtest

import (
	"path/filepath"
	"testing"

	"vbench/cmd/vbench/cli"
	"vbench/internal/results"
	"vbench/internal/testbin"
)

// Issue 53's program (testdata's growth, whose head build turns
// Work.Probe's calls from 2n into 2n²/250) counted in instructions
// (valgrind, deterministic), under none: head's whole process at the
// largest size is within the 1 % minimum change of base's, and the work
// Probe adds there is under 5 % of what the sizes add: less than time's
// ±20 % could show, where cli's TestComplexityVerdictOfAProgram names it
// from the tracer's counts. Three sizes, the fewest a scale takes (the
// timed test has four; these assertions read the smallest and the
// largest); 12 launches under valgrind.
func TestComplexityHiddenInInstructions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a .NET program 12 times under valgrind")
	}
	t.Parallel()
	base := testbin.Workload(t, "cmd/vbench/cli/testdata/csharp/growth/base/Growth.csproj")
	head := testbin.Workload(t, "cmd/vbench/cli/testdata/csharp/growth/head/Growth.csproj")
	dir := t.TempDir()
	scale := `    scale: {arg: --n, sizes: [250, 1000, 2000]}
`
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: growth
runs: 2
warmup: 0
modes: [none]
thresholds: {min_change_instructions: 1%}
workloads:
  - name: app
    command: [dotnet, `+head+`, --n, "250"]
`+scale+`    against: app-base
  - name: app-base
    command: [dotnet, `+base+`, --n, "250"]
`+scale)
	stdout, stderr, code := vbRun(t, dir, nil, "run", "suite.yaml", "--quiet", "--no-baseline", "--json", "i.json",
		"--metric", "instructions")
	if code != cli.ExitOK && code != cli.ExitRegression {
		t.Fatalf("instructions: exit %d\n%s\n%s", code, stdout, stderr)
	}
	f, err := results.ReadFile(filepath.Join(dir, "i.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c := f.Find("app@n=2000", "none"); c == nil || c.Verdict != results.VerdictSame {
		t.Errorf("app@n=2000/none: %+v, want same\n%s", c, stdout)
	}
	at := func(w string, n string) float64 {
		c := f.Find(w+"@n="+n, "none")
		if c == nil {
			t.Fatalf("no cell %s@n=%s/none", w, n)
		}
		return c.MedianNs
	}
	if extra := (at("app", "2000") - at("app-base", "2000")) / (at("app-base", "2000") - at("app-base", "250")); extra <= 0 || extra > 0.05 {
		t.Errorf("head's extra work at 2000 is %.1f%% of the work the sizes add, want (0, 5%%]", 100*extra)
	}
}
