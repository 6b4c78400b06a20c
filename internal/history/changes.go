package history

import (
	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/stats"
)

// Change is a change point of one series, as `vbench history show` reports
// it. Index counts the appended runs from 0: the first run at the new
// level; Commit is its commit, CommitBefore the last run's at the old one.
// Before and After are the medians of the series over the stable segments
// either side (nanoseconds for a time, a multiple for an overhead);
// Change is After/Before - 1 with its 95% interval (a bootstrap of the
// segments' medians, stats.RatioCI).
type Change struct {
	Workload     string         `json:"workload"`
	Mode         modes.Mode     `json:"mode"`
	Series       string         `json:"series"` // KindTime, KindCalibrated or KindOverhead
	Metric       results.Metric `json:"metric"`
	Index        int            `json:"index"`
	Commit       string         `json:"commit"`
	CommitBefore string         `json:"commit_before"`
	Before       float64        `json:"before"`
	After        float64        `json:"after"`
	Change       float64        `json:"change"`
	ChangeLo     float64        `json:"change_lo"`
	ChangeHi     float64        `json:"change_hi"`
	P            float64        `json:"p"`
	// New is set on a change point the history's last run brought: the
	// history without it has none there (within one run).
	New bool `json:"new,omitempty"`
	// Raw is set on a time series' change point where the cell also has a
	// calibrated series: CI judges that one (NewSlower), not the raw time,
	// which moves with the machine.
	Raw bool `json:"raw,omitempty"`
}

// Slower reports whether the change point says the cell got slower: its
// time, or its overhead multiple, went up.
func (c *Change) Slower() bool { return c.Change > 0 }

// Changes finds the change points of s.
func Changes(s *Series, opts stats.ChangeOptions) []Change {
	xs := s.Values()
	cps := stats.ChangePoints(xs, opts)
	segs := stats.Segments(len(xs), cps)
	var out []Change
	for i, cp := range cps {
		before, after := xs[segs[i][0]:segs[i][1]], xs[segs[i+1][0]:segs[i+1][1]]
		ratio, lo, hi := stats.RatioCI(after, before)
		p, prev := s.Points[cp.Index], s.Points[cp.Index-1]
		out = append(out, Change{
			Workload: s.Workload, Mode: s.Mode, Series: s.Kind, Metric: s.Metric,
			Index: p.Entry, Commit: p.Commit, CommitBefore: prev.Commit,
			Before: stats.Median(before), After: stats.Median(after),
			Change: stats.Finite(ratio - 1), ChangeLo: stats.Finite(lo - 1), ChangeHi: stats.Finite(hi - 1),
			P: cp.P,
		})
	}
	return out
}

// Analysis is every series of a history with its change points.
type Analysis struct {
	Entries []Entry
	Series  []*Series
	Changes [][]Change // per series, in Series' order
}

// Analyze finds every series' change points, and marks New those the
// history's last entry brought: a change point of a series in the whole
// history with none within one run of it in the history without its last
// entry.
func Analyze(entries []Entry, opts stats.ChangeOptions) *Analysis {
	a := &Analysis{Entries: entries, Series: SeriesOf(entries)}
	var prev map[string][]Change
	if len(entries) > 1 {
		prev = map[string][]Change{}
		for _, s := range SeriesOf(entries[:len(entries)-1]) {
			prev[s.Key()] = Changes(s, opts)
		}
	}
	calibrated := map[string]bool{}
	for _, s := range a.Series {
		if s.Kind == KindCalibrated {
			calibrated[s.Workload+"/"+string(s.Mode)] = true
		}
	}
	for _, s := range a.Series {
		cs := Changes(s, opts)
		for i := range cs {
			cs[i].New = prev != nil && !near(prev[s.Key()], cs[i].Index)
			cs[i].Raw = s.Kind == KindTime && calibrated[s.Workload+"/"+string(s.Mode)]
		}
		a.Changes = append(a.Changes, cs)
	}
	return a
}

func near(cs []Change, index int) bool {
	for _, c := range cs {
		if c.Index >= index-1 && c.Index <= index+1 {
			return true
		}
	}
	return false
}

// All lists every change point, series by series.
func (a *Analysis) All() []Change {
	var out []Change
	for _, cs := range a.Changes {
		out = append(out, cs...)
	}
	return out
}

// NewSlower lists the change points the last run brought that say slower.
// A cell's time series is left out where the cell has a calibrated one:
// the calibrated series is the same time with the machine's drift divided
// out, and a shift of the raw time alone is the machine's.
func (a *Analysis) NewSlower() []Change {
	var out []Change
	for _, c := range a.All() {
		if c.New && c.Slower() && !c.Raw {
			out = append(out, c)
		}
	}
	return out
}
