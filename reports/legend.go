package reports

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"vbench/internal/results"
	"vbench/stats"
)

// BaselineNote says what a change against a stored baseline is computed
// from, wherever one is shown beside medians (the results table's legend,
// the report's table of all cells).
const BaselineNote = "vs baseline (and overhead vs base): the change of the " + BaselineBasis + ", the mean of each side's faster half of runs, which the verdict tests; not the ratio of the medians shown"

// Legend says, under a results table, what the symbols it shows mean: only
// those this file's table prints, each in one line a reader can act on.
func Legend(f *results.File) []string {
	has := func(pred func(c *results.Cell) bool) bool {
		return slices.ContainsFunc(f.Results, func(c results.Cell) bool { return pred(&c) })
	}
	var out []string
	if has(func(c *results.Cell) bool {
		return c.Runs > 0 && (c.CILoNs == 0 && c.CIHiNs == 0 || noOverheadInterval(c))
	}) {
		out = append(out, fmt.Sprintf("± ∞: fewer than %d runs (for an overhead: in its cell or the none cell), too few for a 95%% interval (vbench run --runs %d or more)", stats.MinRunsForInterval, stats.MinRunsForInterval))
	}
	if has(func(c *results.Cell) bool { return c.Runs > 0 && c.CILoNs != 0 && !c.Metric.Deterministic() }) {
		out = append(out, "± X%: the median's 95% interval (distribution-free, as benchstat's), its farther end as a share of the median")
	}
	if has(func(c *results.Cell) bool { return c.Runs > 0 && c.CILoNs != 0 && c.Metric.Deterministic() }) {
		out = append(out, "± X% of a count (instructions): the 95% Student's t interval of its runs' geometric mean, its farther end as a share of the median")
	}
	if f.Counted() && slices.Contains(f.Settings.CountingEnv, results.TieringOff) {
		// A multiple in instructions is not time's: say whose code it is.
		out = append(out, "counted with tiered compilation off (DOTNET_TieredCompilation=0, where a workload's env left it unset): each method runs its optimized code from its first call, so an overhead in instructions is that of optimized code, not of a short run's tier-0 code")
	}
	if has(func(c *results.Cell) bool { return c.Outliers > 0 }) {
		out = append(out, "(N out): N runs more than 3.5 scaled MADs and 3.5% from the median; counted, never dropped")
	}
	if has(func(c *results.Cell) bool { return c.CostPerCallNs != 0 || c.CostPerSampleNs != 0 }) {
		out = append(out, "cost/event: (the cell's median − none's) / calls (or samples taken) per run, with its 95% interval, in the same unit")
	}
	if has(func(c *results.Cell) bool {
		cost, change := costTexts(c, c.Compare)
		return cost == WithinNoise || change == WithinNoise
	}) {
		out = append(out, WithinNoiseNote)
	}
	if has(func(c *results.Cell) bool {
		return c.Compare != nil && (c.Compare.ChangePerCallNs != 0 || c.Compare.ChangePerSampleNs != 0)
	}) {
		out = append(out, "A/B per event: an A/B pair's change per call (or per sample taken), this side − its reference, with its 95% interval")
	}
	if has(func(c *results.Cell) bool { return c.Accuracy != nil }) {
		out = append(out, "N/M exact: of the call counts checked (functions × runs: a VBENCH line's calls.*, a service handler's requests), those the profile matched exactly")
	}
	if has(func(c *results.Cell) bool { return c.Coverage != nil }) {
		out = append(out, "N/M found: of the methods with at least 1% of the exclusive time in a run of the workload's tracing cell, those the sampler sampled in some run")
	}
	if has(func(c *results.Cell) bool { return len(c.Shares) > 0 }) {
		out = append(out, "N/M shares: sampled functions whose share of samples lies within the 99% binomial interval (widened for the samples' weights) of the share the workload declares")
	}
	if has(func(c *results.Cell) bool { return len(c.Metrics) > 0 }) {
		out = append(out, "whole program: exec to exit (cpu, wall), peak RSS of the largest process, start-up (exec to Main), the GC's collections, pause and allocated bytes, the profile's size; a figure a run could not measure is absent, not 0")
	}
	if has(func(c *results.Cell) bool {
		return slices.ContainsFunc(results.Measures, func(m results.Measure) bool { return c.Metrics[m] != nil && c.Metrics[m].Compare != nil })
	}) {
		out = append(out, "▲/▼ in the whole-program table: a judged figure (rss, startup, gc_count, gc_pause, alloc_bytes, profile_bytes) changed against the cell's reference; its tests are a family of their own (Holm), each against its min_change (default 5%, and at least 1 MB for rss, 5 ms for startup; a suite's thresholds.metrics); a regressed figure regresses its cell")
	}
	if has(func(c *results.Cell) bool { return c.Verdict == results.VerdictNew }) {
		out = append(out, "new: nothing to judge the cell against (no baseline for it, --no-baseline, the none mode, which --against has no twin of, or a pair whose other side failed)")
	}
	if has(func(c *results.Cell) bool { return c.Compare != nil && !c.Compare.AB() }) {
		out = append(out, "baseline: the baseline's median (and overhead multiple) the change is measured from; "+BaselineNote)
	}
	if has(func(c *results.Cell) bool { return c.Compare != nil && !math.IsNaN(adjusted(c.Compare)) }) {
		family, looks := 0, false
		for _, c := range f.Results {
			if c.Compare != nil {
				family = max(family, c.Compare.Family)
				looks = looks || len(c.Compare.Looks) > 1
			}
		}
		var over []string
		if family > 1 {
			what := ""
			if has(func(c *results.Cell) bool { return c.Compare != nil && c.Compare.OverheadP != 0 }) {
				what = ": each cell's time and, against a baseline, each profiled cell's overhead"
			}
			over = append(over, fmt.Sprintf("the %d tests judged here (Holm%s)", family, what))
		}
		if looks {
			over = append(over, "an A/B pair's extra looks (adaptive rounds)")
		}
		out = append(out, fmt.Sprintf("adj. p: the p a verdict is decided by, adjusted for %s, so that when nothing changed a change is reported at most %g of the time", strings.Join(over, " and "), f.Settings.Alpha))
	}
	if has(func(c *results.Cell) bool { return c.Verdict == results.VerdictInconclusive }) {
		// What decides it is said in commands, not bare flags: the table may
		// be printed by compare or merge, which take neither.
		more := "more runs decide it (vbench run --runs N, on both sides of a baseline)"
		if has(func(c *results.Cell) bool {
			return c.Verdict == results.VerdictInconclusive && c.Compare.AB()
		}) {
			more = "more runs decide it (vbench run --runs N; an A/B pair also gets rounds up to vbench run --max-runs N)"
		}
		exit := "exit 0 unless --fail-on inconclusive"
		if f.UndecidedSentence() != "" {
			exit = "more than a quarter of the A/B pairs inconclusive: vbench run and merge exit 1 unless --fail-on regressed"
		}
		out = append(out, fmt.Sprintf("inconclusive ±X%%: the runs cannot tell no change from a change of %s; ±X%% is the largest change the %g%% interval still allows (±∞: too few runs for any interval); %s; %s",
			minChanges(f), 100*(1-f.Settings.Alpha), more, exit))
	}
	// The reason a verdict could not be reached whatever the runs measured,
	// which the JSON's compare.reason says: here once per reason.
	var reasons []string
	cellsOf := map[string][]string{}
	for _, c := range f.Results {
		if c.Verdict != results.VerdictInconclusive || c.Compare == nil {
			continue
		}
		if r := results.TooFewRuns(c.Compare.Reason); r != "" {
			if cellsOf[r] == nil {
				reasons = append(reasons, r)
			}
			cellsOf[r] = append(cellsOf[r], c.Key())
		}
	}
	for _, r := range reasons {
		// Not "whatever they measure": a cell with as few runs whose
		// interval lies within ±min_change is same (a change ruled out).
		out = append(out, fmt.Sprintf("%s: %s: no change can be shown, only ruled out (same) by an interval within ±%s, which theirs was not", strings.Join(cellsOf[r], ", "), r, minChanges(f)))
	}
	if has(func(c *results.Cell) bool { return c.Verdict == results.VerdictReference }) {
		out = append(out, "reference: what an A/B pair is judged against (the mode named after \"vs\" in its row, e.g. --against's OLD build); it gets no verdict of its own")
	}
	if has(func(c *results.Cell) bool { return c.Verdict == results.VerdictNotRun }) {
		out = append(out, "not run: the cell has no measured run (the run was interrupted before it); never a pass")
	}
	return out
}

// HasBaselineChanges reports whether a cell of the matrix shows a change
// against a stored baseline (BaselineNote says what it is computed from).
func (m *Matrix) HasBaselineChanges() bool {
	return slices.ContainsFunc(m.Cells(), func(c *Cell) bool { return c.Compare != nil && !c.Compare.AB() })
}

// minChanges is the minimum change the file's cells are held to, "5%", or
// "5% (1% in instructions)" when its counted cells have their own.
func minChanges(f *results.File) string {
	s := fmt.Sprintf("%g%%", 100*f.Settings.Threshold)
	if f.Counted() {
		if m := f.Settings.CountThreshold; m > 0 && m != f.Settings.Threshold {
			s += fmt.Sprintf(" (%g%% in instructions)", 100*m)
		}
	}
	return s
}
