package summary

import (
	"fmt"
	"sort"

	"vbench/stats"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// Fill recomputes every summary of f from its raw samples: medians and
// intervals, MADs, outlier flags and overhead multiples, each from the
// cell's metric (results.Cell.Values); a workload's cells share one, so an
// overhead divides like by like. It is a function of
// the samples alone, so merged shards get overheads even when a workload's
// none cell was measured by another shard. Fill is idempotent.
func Fill(f *results.File) {
	for i := range f.Results {
		fillCell(&f.Results[i])
	}
	for i := range f.Results {
		c := &f.Results[i]
		c.Overhead, c.OverheadLo, c.OverheadHi = 0, 0, 0
		if c.Runs == 0 {
			continue
		}
		if c.Mode == modes.None {
			c.Overhead, c.OverheadLo, c.OverheadHi = 1, 1, 1
			continue
		}
		none := f.Find(c.Workload, modes.None)
		if none == nil || none.Runs == 0 {
			continue
		}
		r, lo, hi := stats.RatioCI(c.Values(), none.Values())
		if c.Metric.Deterministic() {
			// A count's few runs: the ratio of geometric means, with the
			// verdict rule's interval for it.
			j := stats.JudgeExact(none.Values(), c.Values(), 0.05)
			r, lo, hi = j.Ratio, j.Lo, j.Hi
		}
		c.Overhead, c.OverheadLo, c.OverheadHi = stats.Finite(r), stats.Finite(lo), stats.Finite(hi)
		if c.OverheadLo == 0 {
			c.Warnings = append(c.Warnings, "too few runs for an overhead interval")
		}
	}
	fillCost(f)
	fillMeasures(f)
}

func fillCell(c *results.Cell) {
	c.Warnings = nil
	c.Outliers = 0
	for i := range c.Samples {
		c.Samples[i].Outlier = false
	}
	var idx []int
	var el, wall, user, sys, rss []float64
	for i, r := range c.Samples {
		if !r.Measured() {
			continue
		}
		idx = append(idx, i)
		el = append(el, float64(c.Metric.Of(&r)))
		wall = append(wall, float64(r.WallNs))
		user = append(user, float64(r.UserNs))
		sys = append(sys, float64(r.SysNs))
		// The process's own peak (the hook's) where it reported one, else
		// rusage's when that is the child's own; unknown runs left out.
		if v, ok := results.MeasureRSS.Of(&r); ok {
			rss = append(rss, v)
		}
	}
	c.Runs = len(el)
	if c.Runs == 0 {
		c.MedianNs, c.CILoNs, c.CIHiNs, c.MADNs = 0, 0, 0, 0
		c.WallMedianNs, c.UserMedianNs, c.SysMedianNs, c.MaxRSSMedian = 0, 0, 0, 0
		return
	}
	s := stats.Summarize(el)
	c.MedianNs, c.MADNs = s.Median, s.MAD
	c.CILoNs, c.CIHiNs = stats.Finite(s.Lo), stats.Finite(s.Hi)
	if c.Metric.Deterministic() {
		// A count's interval needs no 6 runs: its runs' spread is the
		// program's own jitter, and the verdict rule's t interval says it.
		c.CILoNs, c.CIHiNs = stats.ExactInterval(el)
	}
	if c.CILoNs == 0 || c.CIHiNs == 0 { // half an interval would mislead
		c.CILoNs, c.CIHiNs = 0, 0
	}
	c.Warnings = append(c.Warnings, s.Warnings...)
	c.WallMedianNs, c.UserMedianNs, c.SysMedianNs, c.MaxRSSMedian = stats.Median(wall), stats.Median(user), stats.Median(sys), 0
	if len(rss) > 0 {
		c.MaxRSSMedian = stats.Median(rss)
	}
	for j, out := range stats.Outliers(el) {
		if out {
			c.Samples[idx[j]].Outlier = true
			c.Outliers++
		}
	}
	if c.Outliers > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d runs are outliers (beyond %.1f scaled MADs, and %g%%, of the median)", c.Outliers, c.Runs, stats.OutlierZ, 100*stats.OutlierZ*stats.OutlierFloor))
	}
}

// OverheadSamples expresses each measured run of cell c as a multiple of the
// verdict rule's estimate (Estimate) of its workload's none cell in the same
// file, both in the workload's metric: the per-run overhead multiples that
// baseline comparison tests. Nil when there is no none cell.
func OverheadSamples(f *results.File, c *results.Cell) []float64 {
	if c.Mode == modes.None {
		return nil
	}
	none := f.Find(c.Workload, modes.None)
	if none == nil {
		return nil
	}
	ref := none.Values()
	if len(ref) == 0 {
		return nil
	}
	sort.Float64s(ref)
	base := stats.Estimate(ref)
	if !(base > 0) {
		return nil
	}
	var out []float64
	for _, x := range c.Values() {
		out = append(out, x/base)
	}
	return out
}
