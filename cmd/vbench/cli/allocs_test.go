package cli_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/internal/testbin"
)

// allocsArgs size benchmarks/allocs small: 62,500 Orders (two paths),
// 150,000 OrderLines, 100,000 Notes a run.
var allocsArgs = `--orders, "50000", --reissues, "12500", --notes, "100000"`

// allocsSuite runs the real allocs workload as declared, and through sh
// with its VBENCH line rewritten by sed (edit): a wrong or malformed
// alloc.* declaration on a real profiled process.
func allocsSuite(t *testing.T, runs int, edits map[string]string) string {
	dll := testbin.Workload(t, "benchmarks/allocs/Allocs.csproj")
	dotnet := testbin.Dotnet(t)
	s := fmt.Sprintf(`name: allocs
runs: %d
warmup: 0
metric: kernel-cpu
modes:
  - none
  - {name: allocations, engine: allocations}
  - {name: allocation-sampling, engine: allocation-sampling}
workloads:
  - name: allocs
    command: [%s, %s, %s]
`, runs, dotnet, dll, allocsArgs)
	for name, sed := range edits {
		args := strings.NewReplacer(`"`, "", ",", "").Replace(allocsArgs)
		s += fmt.Sprintf("  - name: %s\n    command: [sh, -c, '%s %s %s | sed \"%s\"']\n", name, dotnet, dll, args, sed)
	}
	return s
}

// The allocations engine counts every declared type exactly in every run;
// allocation-sampling's samples of each lie in their binomial range; a
// declaration the profiles contradict (twice the Orders) fails both cells
// naming the type; a malformed one fails the run naming the field.
func TestAllocChecksOnRealWorkload(t *testing.T) {
	t.Parallel() // exact allocation counts
	testbin.ProfilerLib(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), allocsSuite(t, 3, map[string]string{
		"doubled":   "s/alloc.Vbench.Allocs.Order=62500/alloc.Vbench.Allocs.Order=125000/",
		"malformed": "s/alloc.Vbench.Allocs.Note=100000/alloc.Vbench.Allocs.Note=many/",
	}))
	stdout, stderr, code := vbRun(t, dir, ciEnv(), "run", "suite.yaml", "--quiet", "--json", "out/r.json")
	if code == 0 {
		t.Errorf("exit 0 with failing cells\n%s\n%s", stdout, stderr)
	}
	f, err := results.ReadFile(filepath.Join(dir, "out", "r.json"))
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, stdout, stderr)
	}
	want := map[string]int64{"Vbench.Allocs.Order": 62500, "Vbench.Allocs.OrderLine": 150000, "Vbench.Allocs.Note": 100000}
	for _, m := range []modes.Mode{"allocations", "allocation-sampling"} {
		c := f.Find("allocs", m)
		if c == nil || c.Failure != "" || len(c.Allocs) != 3 || c.AccuracyText() != "3/3 allocs" {
			t.Fatalf("allocs/%s: %+v", m, c)
		}
		for _, a := range c.Allocs {
			if a.Expected != want[a.Type] || a.Runs != 3 || !a.Pass {
				t.Errorf("allocs/%s: %+v, want %d expected a run, passing", m, a, want[a.Type])
			}
			sampled := m == "allocation-sampling"
			if a.Sampled != sampled || (sampled && (a.Samples == 0 || a.Lo >= float64(a.Expected) || a.Hi <= float64(a.Expected))) ||
				(!sampled && a.Measured != float64(a.Expected)) {
				t.Errorf("allocs/%s: %+v", m, a)
			}
		}
		d := f.Find("doubled", m)
		msg := map[modes.Mode]string{
			"allocations":         "profiler allocation counts wrong in 1 of 3 checks: workload doubled, type Vbench.Allocs.Order: expected 125000 objects a run, profile says 62500 (3 of 3 runs wrong)",
			"allocation-sampling": "sampled allocations wrong in 1 of 3 checks: workload doubled, type Vbench.Allocs.Order: expected 125000 objects a run, estimated ",
		}[m]
		if d == nil || !strings.HasPrefix(d.Failure, msg) {
			t.Errorf("doubled/%s fails with %q, want %q", m, d.Failure, msg)
		}
	}
	for _, m := range []modes.Mode{modes.None, "allocations", "allocation-sampling"} {
		c := f.Find("malformed", m)
		if want := `alloc.Vbench.Allocs.Note="many" is not a type's name and a non-negative integer count`; c == nil || !strings.Contains(c.Failure, want) {
			t.Errorf("malformed/%s fails with %q, want it to name %s", m, c.Failure, want)
		}
	}
	if none := f.Find("allocs", modes.None); none == nil || none.Failure != "" || len(none.Allocs) != 0 {
		t.Errorf("allocs/none: %+v: no allocation checks outside the allocation engines", none)
	}
}
