package history

import (
	"math"
	"time"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/stats"
)

// The two kinds of series every cell has.
const (
	// KindTime is the cell's median in its metric, in nanoseconds: what a
	// user waits, and what a machine that changed speed moves too.
	KindTime = "time"
	// KindOverhead is the cell's median over its workload's none cell's in
	// the same run: the machine's drift divides out. Modes other than none.
	KindOverhead = "overhead"
)

// Series is one cell's values over the history, one point per entry that
// measured the cell. A run's value is the verdict rule's estimate of its
// runs (stats.Estimate, the mean of the faster half): on a shared machine
// a disturbed run only adds time, and the fast half moved least between
// invocations of an unchanged build here (docs/measurements.md, "History").
type Series struct {
	Workload string
	Mode     modes.Mode
	Kind     string
	Metric   results.Metric
	Points   []Point
}

// Point is one run's value with its 95% interval (0s when there is none).
type Point struct {
	Entry  int // index of the entry in the history
	Commit string
	Date   time.Time
	Value  float64
	Lo, Hi float64
	Runs   int
}

// Values are the series' values, in order.
func (s *Series) Values() []float64 {
	out := make([]float64, len(s.Points))
	for i, p := range s.Points {
		out[i] = p.Value
	}
	return out
}

// Key names the series: "fibonacci/tracing overhead".
func (s *Series) Key() string { return s.Workload + "/" + string(s.Mode) + " " + s.Kind }

// SeriesOf lists every cell's series, time before overhead, in the order
// cells first appear in the history. A cell whose metric changed starts a
// new series from the change (the old values measured something else).
func SeriesOf(entries []Entry) []*Series {
	type key struct {
		workload string
		mode     modes.Mode
		kind     string
	}
	byKey := map[key]*Series{}
	var out []*Series
	add := func(k key, metric results.Metric, p Point) {
		s := byKey[k]
		if s == nil || s.Metric != metric {
			if s != nil {
				s.Points = nil // measured by another metric: not comparable
			} else {
				s = &Series{Workload: k.workload, Mode: k.mode, Kind: k.kind}
				byKey[k] = s
				out = append(out, s)
			}
			s.Metric = metric
		}
		s.Points = append(s.Points, p)
	}
	for i, e := range entries {
		run := &results.File{Results: e.Cells}
		for _, c := range e.Cells {
			xs := c.Values()
			if len(xs) == 0 {
				continue
			}
			p := Point{Entry: i, Commit: e.Commit, Date: e.Date, Runs: len(xs)}
			m := c.Metric.OrDefault()
			t := p
			t.Value, t.Lo, t.Hi = interval(stats.EstimateCI(xs, nil))
			if !(t.Value > 0) {
				continue
			}
			add(key{c.Workload, c.Mode, KindTime}, m, t)
			none := run.Find(c.Workload, modes.None)
			if c.Mode == modes.None || none == nil || len(none.Values()) == 0 {
				continue
			}
			o := p
			o.Value, o.Lo, o.Hi = interval(stats.EstimateCI(xs, none.Values()))
			if o.Value > 0 && !math.IsInf(o.Value, 0) {
				add(key{c.Workload, c.Mode, KindOverhead}, m, o)
			}
		}
	}
	return out
}

// interval keeps finite bounds, 0 for none.
func interval(v, lo, hi float64) (float64, float64, float64) {
	return v, stats.Finite(lo), stats.Finite(hi)
}
