package reports

import (
	"fmt"
	"math"
	"strconv"

	"vbench/internal/modes"
	"vbench/internal/numfmt"
	"vbench/internal/results"
	"vbench/stats"
)

// CellRow is one results cell in the words of every table that lists cells:
// the results table of run, compare, merge and baseline update (ResultsRows)
// and the report's table of all cells (Cell.AbsoluteRow: text, Markdown,
// HTML). Each field is one column's text, computed here once; "" is a column
// that does not apply to the cell, which each table writes its own way ("-"
// in the results table, blank in the report). A number the run did not
// measure (no run succeeded, no rusage) is numfmt.Missing.
type CellRow struct {
	Key      string // "workload/mode"
	Workload string
	Mode     string
	Metric   string // the cell's metric: elapsed, wall, cpu
	Runs     string // successful measured runs
	Outliers string // how many of them are outliers, "" for none

	Median       string // "412.3ms"
	MedianSpread string // "412.3ms ± 3%", "" when no run succeeded
	CI           string // the median's 95% interval, "[409.1ms, 414.9ms]"
	MAD          string
	Wall         string // medians of the rusage of the runs
	User         string
	Sys          string
	MaxRSS       string

	Overhead string // "×5.35 [5.06, 5.95]", "" for the none mode or when not measured
	// Cost is the profiler's cost per event over none, "3.21 ns/call
	// [3.05, 3.40]" or "1.24 ms/sample […]", "" when the cell has none.
	// CostChange is an A/B pair's change per event, "+0.52 ns/call
	// [+0.40, +0.66]" (docs/verdicts.md, "Cost per event").
	Cost       string
	CostChange string

	// Versus is the change against what the cell was judged against: a
	// baseline, "+9.3% (p<0.001)", or another mode of its run (AB, an A/B
	// pair), "+5.1% [+3.2%, +7.0%] (p<0.001) vs tracing@old".
	Versus string
	AB     bool
	// FromZero is the results table's Versus when the baseline's median was
	// 0, so there is no ratio: "from 0 (p=0.002)". The report prints Versus.
	FromZero string
	// OverheadVersus is the change of the overhead against a baseline.
	OverheadVersus string
	// Baseline is what a baseline change is computed against, the
	// baseline's median and (a profiled mode) overhead: "115.7ms ×1.11".
	// "" for an A/B pair, whose reference is a row of the same table.
	Baseline string

	// Load is a service cell's figures besides its metric, medians over its
	// measured runs: "37412 req/s · p50 400.0µs · p99 2.800ms" ("" for a
	// batch cell). A table shows one metric; these are the others the load
	// generator measured every run.
	Load string

	Accuracy string          // "20/20 exact", "2/2 shares, 7/7 found"
	Verdict  results.Verdict // "" when nothing was compared
	// VerdictText is the verdict as a table prints it: an inconclusive
	// one with the change it could still hide, "inconclusive ±8.1%".
	VerdictText string
}

// Value is a value of metric m (a median, a bound) as a person reads it:
// requests/s for rps, else a duration; "" for 0 is "-".
func Value(m results.Metric, ns float64) string {
	return numfmt.OrMissing(ns, func(x float64) string { return m.Format(x, numfmt.Duration) })
}

// NewCellRow is c's row with verdict and change ch: a report can judge a
// cell again (against another baseline), so they need not be c's own.
func NewCellRow(c *results.Cell, verdict results.Verdict, ch *results.Change) CellRow {
	ns := func(x float64) string { return numfmt.OrMissing(x, numfmt.Duration) }
	r := CellRow{
		Key: c.Key(), Workload: c.Workload, Mode: string(c.Mode), Metric: string(c.Metric.OrDefault()),
		Runs:   strconv.Itoa(c.Runs),
		Median: Value(c.Metric, c.MedianNs), MAD: ns(c.MADNs),
		Wall: ns(c.WallMedianNs), User: ns(c.UserMedianNs), Sys: ns(c.SysMedianNs),
		MaxRSS:   numfmt.OrMissing(c.MaxRSSMedian, numfmt.Bytes),
		Accuracy: c.AccuracyText(),
		Verdict:  verdict, VerdictText: string(verdict),
	}
	r.VerdictText = (&Cell{Cell: c, Verdict: verdict, Compare: ch}).VerdictWhat()
	if verdict == results.VerdictInconclusive && ch != nil {
		r.VerdictText = string(verdict) + " ±∞" // no interval at all: too few runs (the legend)
		if ch.Hides > 0 {
			r.VerdictText = fmt.Sprintf("%s ±%.1f%%", verdict, 100*ch.Hides)
		}
	}
	r.Load = loadText(c)
	if c.Metric.Count() {
		// Under valgrind: neither time nor memory is the program's.
		r.MAD = Value(c.Metric, c.MADNs)
		r.Wall, r.User, r.Sys, r.MaxRSS = numfmt.Missing, numfmt.Missing, numfmt.Missing, numfmt.Missing
	}
	if c.Metric.HigherIsBetter() && c.MedianNs > 0 && c.MADNs > 0 {
		// The runs are kept as time per request; a MAD of those is no
		// rate: as a share of the median it reads the same either way.
		r.MAD = fmt.Sprintf("%.1f%%", 100*c.MADNs/c.MedianNs)
	}
	if c.Outliers > 0 {
		r.Outliers = fmt.Sprint(c.Outliers)
	}
	if c.Runs > 0 {
		r.MedianSpread = Value(c.Metric, c.MedianNs) + " " + numfmt.Spread(c.MedianNs, c.CILoNs, c.CIHiNs)
	}
	if c.CILoNs != 0 {
		lo, hi := c.Metric.Interval(c.CILoNs, c.CIHiNs)
		r.CI = numfmt.Range(Value(c.Metric, lo), Value(c.Metric, hi))
	}
	if c.Mode != modes.None && c.Overhead != 0 {
		r.Overhead = numfmt.MultipleCI(c.Overhead, c.OverheadLo, c.OverheadHi)
		if noOverheadInterval(c) {
			r.Overhead += " ± ∞" // as the median's: the legend says why
		}
	}
	r.Cost, r.CostChange = costTexts(c, ch)
	switch {
	case ch == nil:
	case ch.AB():
		r.AB = true
		old, _ := c.Sides()
		r.Versus = numfmt.ChangeCIPAdj(ch.Ratio, ch.RatioLo, ch.RatioHi, ch.P, adjusted(ch)) + " vs " + old
	default:
		r.Baseline = numfmt.Duration(ch.BaselineMedianNs)
		if c.Metric.Count() {
			r.Baseline = Value(c.Metric, ch.BaselineMedianNs)
		}
		if c.Mode != modes.None && ch.BaselineOverhead != 0 {
			r.Baseline += " " + numfmt.Multiple(ch.BaselineOverhead)
		}
		r.Versus = numfmt.ChangeCIPAdj(ch.Ratio, 0, 0, ch.P, adjusted(ch))
		if ch.BaselineMedianNs == 0 {
			r.FromZero = "from 0 (" + numfmt.P(ch.P) + ")"
		}
		if ch.OverheadRatio != 0 {
			r.OverheadVersus = numfmt.ChangeP(ch.OverheadRatio, ch.OverheadP)
		}
	}
	return r
}

// noOverheadInterval reports whether c has an overhead multiple but no
// interval for it (fewer than stats.MinRunsForInterval runs in c or in its
// none cell).
func noOverheadInterval(c *results.Cell) bool {
	return c.Mode != modes.None && c.Overhead != 0 && c.OverheadLo == 0 && c.OverheadHi == 0
}

// adjusted is the p a change was decided by when it differs from its own
// (several tests in the run, or several looks), else NaN: nothing to add.
func adjusted(ch *results.Change) float64 {
	if ch.Family > 1 || len(ch.Looks) > 1 {
		return ch.PAdjusted
	}
	return math.NaN()
}

// Row is the cell's row with the report's verdict and change.
func (c *Cell) Row() CellRow { return NewCellRow(c.Cell, c.Verdict, c.Compare) }

// costTexts are a cell's cost per event and its A/B pair's change per
// event as tables print them, "" where the cell has none, WithinNoise
// where a figure per sample means nothing (PerSampleMeans).
func costTexts(c *results.Cell, ch *results.Change) (cost, change string) {
	perEvent := numfmt.PerEvent
	if c.Metric.Count() {
		perEvent = numfmt.PerEventCount
	}
	switch {
	case c.CostPerCallNs != 0:
		cost = perEvent(c.CostPerCallNs, c.CostPerCallLoNs, c.CostPerCallHiNs, "call", false)
	case c.CostPerSampleNs != 0 && !PerSampleMeans(c.CostPerSampleNs, c.CostPerSampleLoNs, c.CostPerSampleHiNs, false):
		cost = WithinNoise
	case c.CostPerSampleNs != 0:
		cost = perEvent(c.CostPerSampleNs, c.CostPerSampleLoNs, c.CostPerSampleHiNs, "sample", false)
	}
	switch {
	case ch == nil:
	case ch.ChangePerCallNs != 0 || ch.ChangePerCallLoNs != 0:
		change = perEvent(ch.ChangePerCallNs, ch.ChangePerCallLoNs, ch.ChangePerCallHiNs, "call", true)
	case (ch.ChangePerSampleNs != 0 || ch.ChangePerSampleLoNs != 0) && !PerSampleMeans(ch.ChangePerSampleNs, ch.ChangePerSampleLoNs, ch.ChangePerSampleHiNs, true):
		change = WithinNoise
	case ch.ChangePerSampleNs != 0 || ch.ChangePerSampleLoNs != 0:
		change = perEvent(ch.ChangePerSampleNs, ch.ChangePerSampleLoNs, ch.ChangePerSampleHiNs, "sample", true)
	}
	return cost, change
}

// WithinNoise stands in a headline table for a figure per sample that
// means nothing (PerSampleMeans); the JSON keeps the figure.
const WithinNoise = "within noise"

// WithinNoiseNote says what WithinNoise means, under a table that shows it.
const WithinNoiseNote = "within noise: a cost (or A/B change) per sample whose 95% interval is wider than itself, or a negative cost: a few samples over start-up noise, no figure (the JSON keeps it)"

// PerSampleMeans reports whether a cost per sample (or, change, an A/B
// pair's change per sample) means anything: its 95% interval no wider
// than itself and, for a cost, above zero. A handful of samples over
// start-up noise printed "1.36 ms/sample [-0.74, 2.83]", "-3.06
// ms/sample", "-116 µs/sample [-2359, 3323]" in headline tables.
func PerSampleMeans(x, lo, hi float64, change bool) bool {
	if !change && x <= 0 {
		return false
	}
	return hi-lo <= math.Abs(x)
}

// loadText is a service cell's rps and latency percentiles, each the median
// over its measured runs; "" for a cell without them.
func loadText(c *results.Cell) string {
	var rps, p50, p99 []float64
	for _, r := range c.Measured() {
		if sv := r.Service; sv != nil && sv.RPS > 0 {
			rps = append(rps, sv.RPS)
			p50 = append(p50, float64(sv.LatencyP50Ns))
			p99 = append(p99, float64(sv.LatencyP99Ns))
		}
	}
	if len(rps) == 0 {
		return ""
	}
	return fmt.Sprintf("%.0f req/s · p50 %s · p99 %s", stats.Median(rps), numfmt.Duration(stats.Median(p50)), numfmt.Duration(stats.Median(p99)))
}
