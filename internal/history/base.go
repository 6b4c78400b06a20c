package history

import (
	"vbench/internal/results"
	"vbench/internal/summary"
)

// BaseRuns caps how many of a segment's latest runs make a cell's
// reference: enough runs to judge with, recent enough to be the code as it
// now is.
const BaseRuns = 10

// Base is the reference `vbench run --history` judges a new run against,
// as it would a stored baseline (internal/verdict, one rule): per cell,
// the raw runs of the history's entries in the last stable segment of the
// cell's time series (since its last change point), at most BaseRuns
// entries of it, pooled into one cell. Pooling several invocations puts
// their drift into the reference's spread: a new run is judged against
// how the code has measured lately, not against one invocation. The
// suite, settings and machine are the last entry's. Nil for an empty
// history.
func Base(a *Analysis) *results.File {
	if len(a.Entries) == 0 {
		return nil
	}
	last := a.Entries[len(a.Entries)-1]
	f := &results.File{Schema: results.SchemaVersion, Suite: last.Suite, Machine: last.Machine, Started: last.Date, Settings: last.Settings}
	for i, s := range a.Series {
		if s.Kind != KindTime {
			continue
		}
		start := 0
		if cs := a.Changes[i]; len(cs) > 0 {
			start = cs[len(cs)-1].Index
		}
		var pts []Point
		for _, p := range s.Points {
			if p.Entry >= start {
				pts = append(pts, p)
			}
		}
		pts = pts[max(0, len(pts)-BaseRuns):]
		cell := results.Cell{Workload: s.Workload, Mode: s.Mode, Metric: s.Metric}
		for _, p := range pts {
			c := find(&a.Entries[p.Entry], s)
			cell.Samples = append(cell.Samples, c.Samples...)
		}
		f.Results = append(f.Results, cell)
	}
	summary.Fill(f)
	return f
}

func find(e *Entry, s *Series) *results.Cell {
	for i := range e.Cells {
		if c := &e.Cells[i]; c.Workload == s.Workload && c.Mode == s.Mode {
			return c
		}
	}
	return nil
}
