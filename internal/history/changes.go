package history

import (
	"fmt"
	"math"
	"vbench/internal/machine"
	"vbench/internal/verdict"

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
	// ChangeLo and ChangeHi bound Change (95%); absent (0) until each side
	// of the change point has stats.MinRunsForInterval runs.
	ChangeLo float64 `json:"change_lo,omitempty"`
	ChangeHi float64 `json:"change_hi,omitempty"`
	P        float64 `json:"p"`
	// New is set on a change point the history's last run brought: the
	// history without it has none there (within one run).
	New bool `json:"new,omitempty"`
	// Raw is set on a time series' change point where the cell also has a
	// calibrated series: CI judges that one (Gate), not the raw time,
	// which moves with the machine.
	Raw bool `json:"raw,omitempty"`
	// Calibration is set on the calibration workload's own time series: a
	// program that never changes, whose time moves only with the machine;
	// CI does not judge it either.
	Calibration bool `json:"calibration,omitempty"`
	// Gate is set on a recent change point that says slower, of a series CI
	// judges (Analysis.Gate): "fails" when it holds over the whole run for
	// the first time, "failed before" when it held at an earlier run too
	// (CI failed then), "held" when it does not hold, "small" when it holds
	// but is smaller than the suite's min_change. GateP is its p tested again with
	// shuffles enough to be compared with the gate's alpha over its family.
	Gate  string  `json:"gate,omitempty"`
	GateP float64 `json:"gate_p,omitempty"`
	// Environment is what changed beside the code within a run of the
	// change point (a change point's run is uncertain by about one): the
	// machine's hardware, OS or .NET runtime (machine.Mismatch), and for
	// a count how vbench counted (results.Settings.CountingSetup), each
	// "at run 12: .NET runtime: 10.0.11 vs 10.0.12". The step may be the
	// environment's, not the code's; the gate still judges it.
	Environment []string `json:"environment,omitempty"`

	cp stats.ChangePoint // as found, in the series' own indices
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
			P: cp.P, cp: cp,
		})
	}
	return out
}

// Analysis is every series of a history with its change points.
type Analysis struct {
	Entries []Entry
	Series  []*Series
	Changes [][]Change // per series, in Series' order
	// Set by Gate: its run-level alpha, the number of series it judged, and
	// the runs a series needs before it is judged (it can show no change
	// point before).
	GateAlpha   float64
	Family      int
	GateMinRuns int
	GateShort   int // series the last run measured that are still shorter than GateMinRuns
	// Blind is, per series (in Series' order), what the gate cannot judge
	// yet: set by Gate for the series it judges or will once long enough
	// (zero for the others).
	Blind []Blind
	opts  stats.ChangeOptions
	prev  *Analysis // the history without its last entry (nil: one entry)
}

// Analyze finds every series' change points, and marks New those the
// history's last entry brought: a change point of a series in the whole
// history with none within one run of it in the history without its last
// entry.
func Analyze(entries []Entry, opts stats.ChangeOptions) *Analysis {
	a := analyze(entries, opts)
	if len(entries) > 1 {
		a.prev = analyze(entries[:len(entries)-1], opts)
		prev := map[string][]Change{}
		for i, s := range a.prev.Series {
			prev[s.Key()] = a.prev.Changes[i]
		}
		for i, s := range a.Series {
			for j := range a.Changes[i] {
				a.Changes[i][j].New = !near(prev[s.Key()], a.Changes[i][j].Index)
			}
		}
	}
	return a
}

// analyze is Analyze without New.
func analyze(entries []Entry, opts stats.ChangeOptions) *Analysis {
	a := &Analysis{Entries: entries, Series: SeriesOf(entries), opts: opts}
	for _, s := range a.Series {
		cs := Changes(s, opts)
		machine := a.isMachine(s)
		for i := range cs {
			cs[i].Raw = machine && s.Workload != a.calibration()
			cs[i].Calibration = machine && s.Workload == a.calibration()
			cs[i].Environment = environmentChanges(entries, s, cs[i].cp.Index)
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

// environmentChanges is what changed beside the code between consecutive
// points of s within one point of its change point at point index at
// (Change.Environment).
func environmentChanges(entries []Entry, s *Series, at int) []string {
	var out []string
	for k := max(at-1, 1); k <= min(at+1, len(s.Points)-1); k++ {
		prev, cur := &entries[s.Points[k-1].Entry], &entries[s.Points[k].Entry]
		diffs := machine.Mismatch(prev.Machine, cur.Machine)
		if s.Metric.Deterministic() && !results.SameCounting(&prev.Settings, &cur.Settings) {
			diffs = append(diffs, "counted with "+prev.Settings.CountingSetup()+" vs "+cur.Settings.CountingSetup())
		}
		for _, d := range diffs {
			out = append(out, fmt.Sprintf("at run %d: %s", s.Points[k].Entry, d))
		}
	}
	return out
}

// All lists every change point, series by series.
func (a *Analysis) All() []Change {
	var out []Change
	for _, cs := range a.Changes {
		out = append(out, cs...)
	}
	return out
}

// GateAlpha is Gate's default run-level alpha: the chance that a run of a
// build that changes nothing fails, over all its series.
const GateAlpha = 0.05

// gateWindow: a change point further back than this many runs is settled
// (CI failed on it, or the series moved on) and not judged again.
const gateWindow = 10

// gateSpan: a change point is tested again on at most this many runs before
// it (and every run after): the shuffles cost the square of the runs, and a
// history of main grows for ever (200 runs: 10 s a test at 43,200 shuffles).
const gateSpan = 50

// Gate judges, as one family over the run, the recent change points that
// say slower: what `history show --fail-on slower` fails on. Every series
// is a chance of a false alarm at each appended run (about 0.4·alpha per
// series and run, measured: docs/notebook/measurements.md, "History"), so a suite of
// a hundred series would fail a build that changes nothing every few pushes
// if each were judged alone. The family is every series CI judges that the
// last run measured and that is long enough to show a change point — not a
// raw time whose cell has a calibrated series, not the calibration
// workload's own time: the machine's. Each slower change point of the last
// gateWindow runs is tested again with shuffles enough to resolve alpha
// over the family (stats.ChangeP), and Holm's adjustment over the family
// decides whether it holds. One that holds fails the run ("fails") unless
// it held already in the history without the last run ("failed before": CI
// failed then); one that does not is "held" (shown, not failed on) and
// judged again at the next run, with one more run of evidence.
func (a *Analysis) Gate(alpha float64) {
	holds := a.gate(alpha)
	if len(a.Entries) > 0 {
		a.blind(alpha, a.opts.WithDefaults())
	}
	var before map[string][]Change
	if a.prev != nil {
		before = map[string][]Change{}
		for _, c := range a.prev.gate(alpha) {
			if c.Gate == "fails" {
				before[c.seriesKey()] = append(before[c.seriesKey()], *c)
			}
		}
	}
	for _, c := range holds {
		if c.Gate == "fails" && near(before[c.seriesKey()], c.Index) {
			c.Gate = "failed before"
		}
	}
}

// gate marks the recent slower change points of the judged series "fails"
// (holds over the family at alpha) or "held", and returns them.
func (a *Analysis) gate(alpha float64) []*Change {
	opts := a.opts.WithDefaults()
	a.GateAlpha, a.Family, a.GateMinRuns, a.GateShort = alpha, 0, 2*opts.MinSize, 0
	if len(a.Entries) == 0 {
		return nil
	}
	last := len(a.Entries) - 1
	var cands []*Change
	var values [][]float64
	for si, s := range a.Series {
		n := len(s.Points)
		if s.Points[n-1].Entry != last || a.isMachine(s) || s.isMeasure() == 1 {
			continue
		}
		if n < 2*opts.MinSize {
			a.GateShort++
			continue
		}
		a.Family++
		for ci := range a.Changes[si] {
			if c := &a.Changes[si][ci]; c.Slower() && c.Index > last-gateWindow {
				cands = append(cands, c)
				values = append(values, s.Values())
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	// Shuffles to resolve Holm's first (smallest) threshold, alpha/family:
	// the sequential test stops once p is known either side of it.
	family := max(a.Family, len(cands))
	level := alpha / float64(family)
	refine := opts
	refine.Alpha = level
	refine.Permutations = max(opts.Permutations, min(int(math.Ceil(20/level)), 400000))
	ps := make([]float64, family)
	for i := range ps {
		ps[i] = 1
	}
	for i, c := range cands {
		cp := c.cp
		cp.Lo = max(cp.Lo, cp.Index-gateSpan)
		c.GateP = stats.ChangeP(values[i], cp, refine)
		ps[i] = c.GateP
	}
	adj := stats.Holm(ps)
	minChange := a.Entries[last].Settings.Threshold
	for i, c := range cands {
		switch {
		case adj[i] > alpha:
			c.Gate = "held"
		case !c.regresses(minChange):
			c.Gate = "small"
		default:
			c.Gate = "fails"
		}
	}
	return cands
}

// blind sets a.Blind: for each series the last run measured that CI
// judges (or will, once long enough), what a step at its end needs before
// the gate can see it, at the gate's level over its family.
func (a *Analysis) blind(alpha float64, opts stats.ChangeOptions) {
	a.Blind = make([]Blind, len(a.Series))
	level := min(opts.Alpha, alpha/float64(max(a.Family, 1)))
	last := len(a.Entries) - 1
	for si, s := range a.Series {
		n := len(s.Points)
		if n == 0 || s.Points[n-1].Entry != last || a.isMachine(s) || s.isMeasure() == 1 {
			continue
		}
		var cps []stats.ChangePoint
		for _, c := range a.Changes[si] {
			cps = append(cps, c.cp)
		}
		a.Blind[si] = blindOf(s.Values(), cps, opts, level)
	}
}

// seriesKey is the Key of c's series.
func (c *Change) seriesKey() string { return seriesKey(c.Workload, c.Mode, c.Series) }

// regresses reports whether c, a significant change point, counts as a
// regression by the rule a run's verdict uses (verdict.Significant): not
// shown smaller than min, by its interval or, without one (fewer than
// stats.MinRunsForInterval runs on a side), by the change itself. A change
// the suite's min_change calls too small to count does not fail CI.
func (c *Change) regresses(min float64) bool {
	lo, hi := 0.0, 0.0
	if c.ChangeHi != 0 {
		lo, hi = 1+c.ChangeLo, 1+c.ChangeHi
	}
	return verdict.Significant(1+c.Change, lo, hi, min) == results.VerdictRegressed
}

// calibration is the suite's calibration workload, as the last run says.
func (a *Analysis) calibration() string {
	if len(a.Entries) == 0 {
		return ""
	}
	return a.Entries[len(a.Entries)-1].Settings.Calibration
}

// isMachine reports whether s is a series the gate never judges: a raw time
// where the cell has a calibrated series, or the calibration's own time.
func (a *Analysis) isMachine(s *Series) bool {
	if s.Kind != KindTime {
		return false
	}
	if cal := a.calibration(); cal != "" && s.Workload == cal {
		return true
	}
	for _, o := range a.Series {
		if o.Kind == KindCalibrated && o.Workload == s.Workload && o.Mode == s.Mode {
			return true
		}
	}
	return false
}

// Failing lists the change points Gate says fail the run.
func (a *Analysis) Failing() []Change {
	var out []Change
	for _, c := range a.All() {
		if c.Gate == "fails" {
			out = append(out, c)
		}
	}
	return out
}
