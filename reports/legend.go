package reports

import (
	"fmt"
	"math"
	"slices"

	"vbench/internal/results"
	"vbench/stats"
)

// Legend says, under a results table, what the symbols it shows mean: only
// those this file's table prints, each in one line a reader can act on.
func Legend(f *results.File) []string {
	has := func(pred func(c *results.Cell) bool) bool {
		return slices.ContainsFunc(f.Results, func(c results.Cell) bool { return pred(&c) })
	}
	var out []string
	if has(func(c *results.Cell) bool { return c.Runs > 0 && (c.CILoNs == 0 && c.CIHiNs == 0 || noOverheadInterval(c)) }) {
		out = append(out, fmt.Sprintf("± ∞: fewer than %d runs (for an overhead: in its cell or the none cell), too few for a 95%% interval (--runs %d or more)", stats.MinRunsForInterval, stats.MinRunsForInterval))
	}
	if has(func(c *results.Cell) bool { return c.Compare != nil && !math.IsNaN(adjusted(c.Compare)) }) {
		family := 0
		for _, c := range f.Results {
			if c.Compare != nil {
				family = max(family, c.Compare.Family)
			}
		}
		out = append(out, fmt.Sprintf("adj. p: the p a verdict is decided by, adjusted for this run's %d tests (Holm) and an A/B pair's extra looks, so that a run in which nothing changed reports a change at most %g of the time", family, f.Settings.Alpha))
	}
	if has(func(c *results.Cell) bool { return c.Verdict == results.VerdictInconclusive }) {
		out = append(out, fmt.Sprintf("inconclusive ±X%%: the runs cannot tell no change from a change of %g%%; ±X%% is the largest change the %g%% interval still allows. More runs decide it (--runs, --max-runs); exit 0 unless --fail-on inconclusive",
			100*f.Settings.Threshold, 100*(1-f.Settings.Alpha)))
	}
	if has(func(c *results.Cell) bool { return c.Verdict == results.VerdictNotRun }) {
		out = append(out, "not run: the cell has no measured run (the run was interrupted before it); never a pass")
	}
	return out
}
