package verdict

import (
	"strings"
	"testing"
	"vbench/internal/modes"
	"vbench/internal/summary"

	"vbench/internal/machine"
	"vbench/internal/results"
)

// cell makes a cell whose runs report base*(1+k/1000) for k=0..n-1: a little
// spread, so the test has something to shuffle.
func cell(w string, mode modes.Mode, base float64, n int) results.Cell {
	c := results.Cell{Workload: w, Mode: mode}
	for k := 0; k < n; k++ {
		c.Samples = append(c.Samples, results.Run{Seq: k, ElapsedNs: int64(base * (1 + float64(k)/1000))})
	}
	return c
}

func file(cells ...results.Cell) *results.File {
	f := &results.File{Schema: results.SchemaVersion, Suite: results.Suite{Name: "s"}, Results: cells,
		Machine: machine.Fingerprint{CPUModel: "cpu", Cores: 2, OS: "linux", DotnetRuntime: "10"}}
	summary.Fill(f)
	return f
}

var opts = Options{Alpha: 0.01, MinChange: 0.05}

func TestVerdicts(t *testing.T) {
	base := file(cell("w", "none", 1e6, 10), cell("w", "tracing", 3e6, 10), cell("v", "none", 1e6, 10))
	cases := []struct {
		name    string
		cur     *results.File
		verdict results.Verdict // of w/tracing
		reason  string
	}{
		{"same", file(cell("w", "none", 1e6, 10), cell("w", "tracing", 3e6, 10)), results.VerdictSame, "elapsed +0.0% (p=1.000; adjusted p=1.000 over 3 tests) within ±5%"},
		{"small significant change", file(cell("w", "none", 1e6, 10), cell("w", "tracing", 3.06e6, 10)), results.VerdictSame, "elapsed +2.0% (p<0.001; adjusted p<0.001 over 3 tests) within ±5%"},
		{"time regression", file(cell("w", "none", 1e6, 10), cell("w", "tracing", 3.3e6, 10)), results.VerdictRegressed, "elapsed +10.0% (p<0.001; adjusted p<0.001 over 3 tests) regressed"},
		{"improvement", file(cell("w", "none", 1e6, 10), cell("w", "tracing", 2.7e6, 10)), results.VerdictImproved, "elapsed -10.0% (p<0.001; adjusted p<0.001 over 3 tests) improved"},
		// The whole machine got 3% faster but tracing did not: absolute time
		// is within the threshold, the overhead multiple grew 6%: regressed.
		{"overhead regression", file(cell("w", "none", 0.97e6, 10), cell("w", "tracing", 3.085e6, 10)), results.VerdictRegressed, "overhead +6.0% (p<0.001; adjusted p<0.001 over 3 tests) regressed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			Apply(c.cur, base, opts)
			got := c.cur.Find("w", "tracing")
			if got.Verdict != c.verdict || !strings.Contains(got.Compare.Reason, c.reason) {
				t.Errorf("verdict %s (%s), want %s (%s)", got.Verdict, got.Compare.Reason, c.verdict, c.reason)
			}
			// Each test's own verdict is kept, so that a report names what
			// moved the cell: the overhead's regression is not the time's.
			tv, ov := got.Compare.TimeVerdict, got.Compare.OverheadVerdict
			if c.name == "overhead regression" && (tv != results.VerdictSame || ov != results.VerdictRegressed) ||
				c.name != "overhead regression" && tv != c.verdict {
				t.Errorf("time verdict %q, overhead verdict %q (cell %s)", tv, ov, got.Verdict)
			}
			if len(c.cur.Warnings) != 0 {
				t.Errorf("warnings %v", c.cur.Warnings)
			}
		})
	}
}

func TestVerdictNewFailedMismatch(t *testing.T) {
	base := file(cell("w", "none", 1e6, 10))
	failed := cell("w", "none", 1e6, 10)
	failed.Failure = "exited with status 1"
	cur := file(failed, cell("x", "none", 1e6, 10))
	cur.Machine.CPUModel = "other cpu"
	Apply(cur, base, opts)
	if v := cur.Find("w", "none").Verdict; v != results.VerdictFailed {
		t.Errorf("failed cell: %s", v)
	}
	if v := cur.Find("x", "none").Verdict; v != results.VerdictNew {
		t.Errorf("cell missing from the baseline: %s", v)
	}
	if len(cur.Warnings) != 1 || !strings.Contains(cur.Warnings[0], "CPU: cpu vs other cpu") {
		t.Errorf("warnings %v", cur.Warnings)
	}
	// Compared again, with a baseline from the same machine: the old warning goes.
	cur.Warnings = append(cur.Warnings, "the machine was busy")
	same := file(cell("w", "none", 1e6, 10))
	same.Machine = cur.Machine
	same.Suite.SHA256 = "other"
	Apply(cur, same, opts)
	if len(cur.Warnings) != 2 || !strings.HasPrefix(cur.Warnings[1], "baseline was recorded from another version of the suite file") {
		t.Errorf("warnings with an edited suite: %v", cur.Warnings)
	}
	same.Suite.SHA256 = cur.Suite.SHA256
	Apply(cur, same, opts)
	if len(cur.Warnings) != 1 || cur.Warnings[0] != "the machine was busy" {
		t.Errorf("warnings after a second comparison: %v", cur.Warnings)
	}
}

// A baseline counted under another counting environment (one from before
// tiering was turned off in counted runs records none) is compared with a
// warning that says both; the same environment warns of nothing, and a
// file that counted nothing is not warned of counts.
func TestVerdictWarnsOfAnotherCountingEnv(t *testing.T) {
	now := []string{"DOTNET_TieredCompilation=0", "DOTNET_TC_CallCountingDelayMs=0"}
	base, cur := file(counted("w", "none", 1e8)), file(counted("w", "none", 1e8))
	cur.Settings.CountingEnv = now
	Apply(cur, base, opts)
	want := "baseline's counted runs had another environment from vbench (the baseline's: none recorded (a file from before vbench turned tiered compilation off in counted runs); this run's: DOTNET_TieredCompilation=0 DOTNET_TC_CallCountingDelayMs=0): counts may differ by it, not by the code"
	if len(cur.Warnings) != 1 || cur.Warnings[0] != want {
		t.Errorf("warnings %q, want %q", cur.Warnings, want)
	}
	base.Settings.CountingEnv = now
	Apply(cur, base, opts)
	if len(cur.Warnings) != 0 {
		t.Errorf("the same environment: warnings %q", cur.Warnings)
	}
	// Another valgrind shows the program another CPU; a file that
	// recorded none (from before) is not said to differ.
	base.Settings.Valgrind, cur.Settings.Valgrind = "valgrind-3.19.0", "valgrind-3.22.0"
	Apply(cur, base, opts)
	want = "baseline's counted runs had another environment from vbench (the baseline's: DOTNET_TieredCompilation=0 DOTNET_TC_CallCountingDelayMs=0 under valgrind-3.19.0; this run's: DOTNET_TieredCompilation=0 DOTNET_TC_CallCountingDelayMs=0 under valgrind-3.22.0): counts may differ by it, not by the code"
	if len(cur.Warnings) != 1 || cur.Warnings[0] != want {
		t.Errorf("another valgrind: warnings %q, want %q", cur.Warnings, want)
	}
	base.Settings.Valgrind = ""
	if Apply(cur, base, opts); len(cur.Warnings) != 0 {
		t.Errorf("a baseline that recorded no valgrind: warnings %q", cur.Warnings)
	}
	tbase, tcur := file(cell("w", "none", 1e6, 10)), file(cell("w", "none", 1e6, 10))
	tcur.Settings.CountingEnv = now
	Apply(tcur, tbase, opts)
	if len(tcur.Warnings) != 0 {
		t.Errorf("time cells: warnings %q", tcur.Warnings)
	}
}

// counted is a cell measured in instructions: three runs within 0.01 %.
func counted(w string, mode modes.Mode, base float64) results.Cell {
	c := results.Cell{Workload: w, Mode: mode, Metric: results.MetricInstructions}
	for k := 0; k < 3; k++ {
		pb := int64(200000 + k)
		c.Samples = append(c.Samples, results.Run{Seq: k, Instructions: int64(base * (1 + float64(k)/1e5)), ProfileBytes: &pb, GCCollections: []int64{0}})
	}
	return c
}

// thresholds.min_change_instructions holds counted cells to their own
// minimum change: a +2 % count is same at time's 5 % and regressed at 1 %,
// while a time cell's +2 % in the same file stays same.
func TestCountMinChange(t *testing.T) {
	base := file(counted("w", "none", 1e9), counted("w", "tracing", 3e9), cell("v", "none", 1e6, 10))
	base.Settings.Threshold = 0.05
	for _, tc := range []struct {
		count float64
		want  results.Verdict
	}{{0, results.VerdictSame}, {0.01, results.VerdictRegressed}} {
		cur := file(counted("w", "none", 1e9), counted("w", "tracing", 3.06e9), cell("v", "none", 1.02e6, 10))
		cur.Settings.Threshold, cur.Settings.CountThreshold = 0.05, tc.count
		o := opts
		o.CountMinChange = tc.count
		Apply(cur, base, o)
		if got := cur.Find("w", "tracing"); got.Verdict != tc.want {
			t.Errorf("min_change_instructions %g: w/tracing %s (%s), want %s", tc.count, got.Verdict, got.Compare.Reason, tc.want)
		}
		// Its measures repeat as its count does: decided on 3 runs, not
		// "inconclusive" as the rank tests left every one.
		for _, m := range []results.Measure{results.MeasureProfileBytes, results.MeasureGCCount} {
			if ms := cur.Find("w", "tracing").Metrics[m]; ms == nil || ms.Verdict != results.VerdictSame {
				t.Errorf("w/tracing %s: %+v (%s), want same", m, ms, ms.Compare.Reason)
			}
		}
		if got := cur.Find("v", "none"); got.Verdict != results.VerdictSame {
			t.Errorf("min_change_instructions %g: the time cell v/none %s (%s), want same", tc.count, got.Verdict, got.Compare.Reason)
		}
	}
}
