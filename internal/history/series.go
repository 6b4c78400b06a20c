package history

import (
	"cmp"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/floats"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/stats"
)

// The kinds of series every cell has; besides them, each judged measure a
// cell's runs recorded (results.Measure.Judged) is a series whose kind is
// the measure's name ("rss", "startup"): shown with its change points, not
// gated by CI, whose false-alarm rate was measured on time series only.
const (
	// KindTime is the cell's median in its metric, in nanoseconds: what a
	// user waits, and what a machine that changed speed moves too.
	KindTime = "time"
	// KindOverhead is the cell's median over its workload's none cell's in
	// the same run: the machine's drift divides out. Modes other than none.
	KindOverhead = "overhead"
	// KindCalibrated is the cell's value over the suite's calibration
	// workload's cell of the same mode in the same run (results.Settings'
	// Calibration): a program that never changes, run in the same rounds,
	// whose time moves with the machine's speed, so the invocation's drift
	// divides out of the absolute time as none's does out of an overhead.
	// Batch cells of suites that name a calibration, other than its own.
	KindCalibrated = "calibrated"
)

// Series is one cell's values over the history, one point per entry that
// measured the cell. A run's value is the fastest of its measured runs (the
// overhead: the mode's fastest over none's): on a shared machine a disturbed
// run only ever adds time, often to most runs of an invocation, and of the
// minimum, the fast-half mean and the median of each invocation the minimum
// left the fewest 5% steps unfound here, at as few false change points
// (docs/notebook/measurements.md, "History"; BenchmarkTools.jl judges by the minimum
// for the same reason, Chen and Revels, arXiv 1608.04295).
type Series struct {
	Workload string
	Mode     modes.Mode
	Kind     string
	Metric   results.Metric
	Points   []Point
}

// Point is one run's value, and the range Lo..Hi its whisker spans: from the
// fastest run to the median one (for an overhead, the ratio of the mode's
// and none's fastest and of their medians, lower first).
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
func (s *Series) Key() string { return seriesKey(s.Workload, s.Mode, s.Kind) }

func seriesKey(workload string, mode modes.Mode, kind string) string {
	return workload + "/" + string(mode) + " " + kind
}

// SeriesOf lists every cell's series, time, calibrated, overhead, in the order
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
			t.Value = floats.Min(xs)
			t.Lo, t.Hi = spread(t.Value, stats.Median(xs))
			if !(t.Value > 0) {
				continue
			}
			add(key{c.Workload, c.Mode, KindTime}, m, t)
			if cal := calibration(e, run, &c); cal != nil {
				if k, ok := ratio(p, xs, cal.Values()); ok {
					add(key{c.Workload, c.Mode, KindCalibrated}, m, k)
				}
			}
			for _, ms := range results.Measures {
				// Each judged figure of the whole program is a series of
				// its own, valued as time is: the lowest of its runs (none that reads 0: a relative change from 0 is no number).
				if v := c.TrustedValues(ms); ms.Judged() && len(v) > 0 && floats.Min(v) > 0 {
					q := p
					q.Value, q.Runs = floats.Min(v), len(v)
					q.Lo, q.Hi = spread(q.Value, stats.Median(v))
					add(key{c.Workload, c.Mode, string(ms)}, m, q)
				}
			}
			none := run.Find(c.Workload, modes.None)
			if c.Mode == modes.None || none == nil || len(none.Values()) == 0 {
				continue
			}
			if o, ok := ratio(p, xs, none.Values()); ok {
				add(key{c.Workload, c.Mode, KindOverhead}, m, o)
			}
		}
	}
	// Time, calibrated and overhead series first, as before figures were
	// series: the whole-program figures follow them.
	slices.SortStableFunc(out, func(a, b *Series) int { return cmp.Compare(a.isMeasure(), b.isMeasure()) })
	return out
}

// isMeasure is 1 for a series of a whole-program figure, 0 for time.
func (s *Series) isMeasure() int {
	if results.Measure(s.Kind).Valid() {
		return 1
	}
	return 0
}

// ratio is point p valued at the fastest of xs over the fastest of ys, its
// whisker from that to the ratio of their medians; ok is false when the
// ratio is no finite positive number.
func ratio(p Point, xs, ys []float64) (Point, bool) {
	p.Value = floats.Min(xs) / floats.Min(ys)
	p.Lo, p.Hi = spread(p.Value, stats.Median(xs)/stats.Median(ys))
	return p, p.Value > 0 && !math.IsInf(p.Value, 0)
}

// calibration is the cell c is calibrated by in entry e: the calibration
// workload's cell of c's mode, measured by the same metric; nil for the
// calibration's own cells, a service's, or when the run lacks it.
func calibration(e Entry, run *results.File, c *results.Cell) *results.Cell {
	name := e.Settings.Calibration
	if name == "" || c.Workload == name || c.Metric.OrDefault().Service() {
		return nil
	}
	cal := run.Find(name, c.Mode)
	if cal == nil || cal.Metric.OrDefault() != c.Metric.OrDefault() || len(cal.Values()) == 0 {
		return nil
	}
	return cal
}

// spread orders a point's two statistics as its whisker's ends.
func spread(a, b float64) (lo, hi float64) {
	return stats.Finite(min(a, b)), stats.Finite(max(a, b))
}
