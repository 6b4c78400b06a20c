package summary

import (
	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/stats"
)

// fillMeasures summarises every measure each cell's runs recorded besides
// its time (results.Measure): the median and its 95% interval as of time,
// the multiple over the workload's none cell and the difference from it
// in the measure's unit ("+34 MB [+30, +38]" of RSS). A verdict is left
// as it was: verdict.Apply judges measures with the cell's time.
func fillMeasures(f *results.File) {
	for i := range f.Results {
		c := &f.Results[i]
		old := c.Metrics
		c.Metrics = nil
		if c.Runs == 0 {
			continue
		}
		none := f.Find(c.Workload, modes.None)
		for _, m := range results.Measures {
			xs := c.MeasureValues(m)
			if len(xs) == 0 {
				continue
			}
			s := stats.Summarize(xs)
			ms := &results.MeasureSummary{Runs: len(xs), Median: s.Median, Lo: stats.Finite(s.Lo), Hi: stats.Finite(s.Hi)}
			if ms.Lo == 0 || ms.Hi == 0 {
				ms.Lo, ms.Hi = 0, 0
			}
			if prev := old[m]; prev != nil {
				ms.Compare, ms.Verdict = prev.Compare, prev.Verdict
			}
			if none != nil && c.Mode != modes.None {
				if ref := none.MeasureValues(m); len(ref) > 0 {
					r, lo, hi := stats.RatioCI(xs, ref)
					ms.Overhead, ms.OverheadLo, ms.OverheadHi = stats.Finite(r), stats.Finite(lo), stats.Finite(hi)
					d, dlo, dhi := stats.DiffCI(xs, ref)
					ms.Diff, ms.DiffLo, ms.DiffHi = d, dlo, dhi
				}
			}
			if c.Metrics == nil {
				c.Metrics = map[results.Measure]*results.MeasureSummary{}
			}
			c.Metrics[m] = ms
		}
	}
}
