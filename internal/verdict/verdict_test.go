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
