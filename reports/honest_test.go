package reports

import (
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/stats"
)

// measured is a cell of workload w in mode m whose measured runs took ms
// milliseconds each (elapsed), its summaries left to stats.Fill.
func measured(w string, m modes.Mode, ms ...float64) results.Cell {
	c := results.Cell{Workload: w, Mode: m}
	for i, x := range ms {
		c.Samples = append(c.Samples, results.Run{Seq: i, Round: i + 1, ElapsedNs: int64(x * 1e6), WallNs: int64(x * 1e6)})
	}
	return c
}

// Below 6 runs an overhead has no interval, as a median has none: the
// table prints "± ∞" for both and the legend says why. 3 vs 3 runs used to
// get a bootstrap "95%" interval, ×1.11 [0.80, 1.33], beside a median
// printed "± ∞".
func TestFewRunsOverheadHasNoInterval(t *testing.T) {
	f := &results.File{Results: []results.Cell{
		measured("cpu", modes.None, 102.2, 98.1, 110.4),
		measured("cpu", modes.Tracing, 113.0, 120.5, 109.9),
	}}
	stats.Fill(f)
	_, rows := ResultsRows(f)
	if got := rows[1][4]; !strings.HasSuffix(got, " ± ∞") || strings.Contains(got, "[") {
		t.Errorf("tracing's overhead at 3 runs = %q, want a multiple with ± ∞ and no interval", got)
	}
	var b strings.Builder
	if err := ResultsTable(&b, f); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "± ∞: fewer than 6 runs (for an overhead: in its cell or the none cell), too few for a 95% interval (--runs 6 or more)") {
		t.Errorf("the legend does not explain ± ∞:\n%s", b.String())
	}
	// At 6 runs a side the interval is back.
	f = &results.File{Results: []results.Cell{
		measured("cpu", modes.None, 102, 98, 110, 101, 99, 100),
		measured("cpu", modes.Tracing, 113, 120, 110, 112, 111, 115),
	}}
	stats.Fill(f)
	if _, rows = ResultsRows(f); !strings.Contains(rows[1][4], "[") || strings.Contains(rows[1][4], "∞") {
		t.Errorf("tracing's overhead at 6 runs = %q, want an interval", rows[1][4])
	}
}
