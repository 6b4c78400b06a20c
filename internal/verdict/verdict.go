// Package verdict gives every cell of a results file its verdict, by one
// rule, for every command that judges: `run` (against a stored baseline,
// and A/B pairs in the same run), `merge` (A/B pairs again over the merged
// shards), `compare` and `report --baseline`. Apply is the whole sequence;
// no caller writes any of it out.
//
// A cell is
//
//   - failed       when it failed;
//   - not run      when it has no measured run (interrupted before it ran);
//   - new          when there is nothing to judge it against;
//   - reference    when, judged against nothing, it is what an A/B pair's
//     other cell was judged against (tracing@old);
//   - regressed or improved when the change is significant for the run as
//     a whole and not shown to be smaller than the minimum change;
//   - same         when the change is shown to be within ±min_change (or
//     significant but shown smaller);
//   - inconclusive when neither can be said: not significant, and the
//     interval still reaches the minimum change (Change.Hides says how far).
//
// What is tested: a cell judged against another cell of the same run (an
// A/B pair: --against's OLD twin or a suite's `against:`) by the paired
// rule over its rounds (stats.JudgePaired), its adaptive looks folded into
// one p-value (stats.SequentialP); any other cell against the same cell of
// a stored baseline, unpaired (stats.Judge), on its time and on its
// overhead multiple. Every test of the file is one family: Holm's
// adjustment over all of them (stats.Holm) keeps the chance that a run in
// which nothing changed reports any change at alpha.
package verdict

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"vbench/internal/modes"
	"vbench/internal/summary"

	"vbench/internal/machine"
	"vbench/internal/numfmt"
	"vbench/internal/results"
	"vbench/stats"
)

// Options are the decision thresholds.
type Options struct {
	Alpha     float64 // family-wise significance level, e.g. 0.01
	MinChange float64 // smallest relative change that counts, e.g. 0.05
	// Exact judges by the rule for a deterministic metric's runs
	// (stats.JudgeExact: instructions) instead of the rank tests; Apply
	// sets it per cell from the cell's metric.
	Exact bool
	// CountMinChange is MinChange for a cell measured in instructions
	// (thresholds.min_change_instructions); 0: MinChange. For applies it.
	CountMinChange float64
	// Whys are the run's explains of its A/B pairs, handed over by the
	// runner (runner.Run); each goes into its pair's judgement. A file
	// judged again keeps those its judgements carry (results.WhysOf).
	Whys results.Whys
}

// judgeUnpaired is the unpaired test opts call for.
func judgeUnpaired(old, new []float64, opts Options) stats.Judgement {
	if opts.Exact {
		return stats.JudgeExact(old, new, opts.Alpha)
	}
	return stats.Judge(old, new, opts.Alpha)
}

// OptionsOf reads the thresholds recorded in a results file's settings.
func OptionsOf(f *results.File) Options {
	return Options{Alpha: f.Settings.Alpha, MinChange: f.Settings.Threshold, CountMinChange: f.Settings.CountThreshold}
}

// Apply gives every cell of cur its verdict and records each comparison in
// cell.Compare, an A/B pair's with its why (opts.Whys). base is a stored baseline (or OLD.json of `compare`), nil
// when there is none: then only A/B pairs are judged. A machine
// fingerprint or suite mismatch with base adds a warning to cur; it does
// not stop the comparison. Callers refuse files whose metrics differ first
// (CheckMetrics).
func Apply(cur, base *results.File, opts Options) {
	warn(cur, base)
	whys := results.WhysOf(cur)
	maps.Copy(whys, opts.Whys)
	var tests []*test
	for i := range cur.Results {
		c := &cur.Results[i]
		c.Compare, c.Verdict = nil, ""
		switch {
		case c.Failed():
			c.Verdict = results.VerdictFailed
		case len(c.Values()) == 0:
			c.Verdict = results.VerdictNotRun
		case cur.IsAB(c.Workload, c.Mode):
			tests = append(tests, abTests(cur, c, opts.For(c))...)
			if w, ok := whys[c.Key()]; ok && c.Compare != nil {
				w.Put(c.Compare)
			}
		case base != nil:
			tests = append(tests, baselineTests(base, cur, c, opts.For(c))...)
		}
		if c.Verdict == "" && c.Compare == nil {
			c.Verdict = results.VerdictNew
		}
	}
	decide(tests, opts)
	perEvent(cur)
	markReferences(cur)
	cur.Undecided = cur.UndecidedSentence()
	applyComplexity(cur, base, opts)
}

// Judged is a copy of cur with verdicts against base (named name in every
// output), as vbench compare gives them, alpha and threshold from cur's
// settings; cur is left as it was. `vbench report --baseline` judges
// through it and hands the copy to the renderer.
func Judged(base, cur *results.File, name string) *results.File {
	c := *cur
	c.Results = slices.Clone(cur.Results)
	c.Warnings = slices.Clone(cur.Warnings)
	c.Baseline = name
	opts := OptionsOf(&c)
	if opts.Alpha <= 0 { // a file without settings: benchstat's default
		opts.Alpha = 0.05
	}
	Apply(&c, base, opts)
	if base.Suite.Name != cur.Suite.Name {
		c.Warnings = append(c.Warnings, fmt.Sprintf("the baseline is from suite %q, this run from %q", base.Suite.Name, cur.Suite.Name))
	}
	return &c
}

// For is opts for judging cell c (ForMetric of its metric).
func (o Options) For(c *results.Cell) Options { return o.ForMetric(c.Metric) }

// ForMetric is opts for judging a cell measured by m: Exact, and held to
// CountMinChange when set, when m is deterministic (instructions).
func (o Options) ForMetric(m results.Metric) Options {
	o.Exact = m.Deterministic()
	if o.Exact && o.CountMinChange > 0 {
		o.MinChange = o.CountMinChange
	}
	return o
}

// markReferences calls reference, not new, a cell judged against nothing
// that an A/B pair of the file was judged against (a mode's twin or a
// workload's): "new" said of tracing@old (the OLD build) read as if it
// were the new side.
func markReferences(f *results.File) {
	for i := range f.Results {
		c := &f.Results[i]
		if c.Compare == nil {
			continue
		}
		if old := f.Reference(c); old != nil && old.Verdict == results.VerdictNew {
			old.Verdict = results.VerdictReference
		}
	}
}

// test is one hypothesis of the family: a cell's time (or overhead)
// against its reference.
type test struct {
	cell     *results.Cell
	what     string // "kernel-cpu", "overhead", "kernel-cpu vs tracing@old"
	overhead bool   // the overhead multiple's test: it may regress a cell, never leave it inconclusive
	j        stats.Judgement
	p        float64 // the p-value adjusted: the looks folded (SequentialP), then Holm
	minP     float64 // the smallest p the test could give, its looks folded (before Holm)
	n        [2]int  // runs of the reference and of the cell
	// measure is the figure a measure's test judges ("" for the cell's
	// time and its overhead), minChange its relative threshold
	// (results.MinChange.Of the reference's median) and diff the change
	// of medians in the measure's unit, for the reason.
	measure   results.Measure
	minChange float64
	ref, diff float64
}

// abTests judges cell c against its Reference in the same file: paired by
// round, over the looks its adaptive rounds took.
func abTests(f *results.File, c *results.Cell, opts Options) []*test {
	old := f.Reference(c)
	if old == nil || old.Failed() || len(old.Values()) == 0 {
		return nil // new: nothing to judge against (failed, or a shard of another split)
	}
	oldX, newX := Rounds(old, c)
	ch := &results.Change{Against: f.ModeSpec(c.Mode).Against}
	against := string(ch.Against)
	if ch.Against == "" {
		ch.AgainstWorkload = old.Workload
		against = old.Workload
	}
	t := &test{cell: c, what: fmt.Sprintf("%s vs %s", c.Metric.OrDefault(), against), n: [2]int{len(oldX), len(newX)}}
	// Files written before cells recorded their plan: the run's settings
	// (every pair was planned at the suite's runs, capped at its max_runs).
	planned, maxRuns := c.PlannedRuns, c.MaxRuns
	if planned == 0 && f.Settings.MaxRuns > f.Settings.Runs && len(newX) > f.Settings.Runs {
		planned, maxRuns = f.Settings.Runs, f.Settings.MaxRuns
	}
	var looks []int
	t.j, t.p, looks = pair(oldX, newX, planned, maxRuns, opts)
	// At best the smallest p comes at the last look, divided by its share.
	t.minP = t.j.MinP / stats.Share(looks, len(looks)-1, max(maxRuns, len(newX)))
	ch.BaselineMedianNs, ch.Paired = stats.Median(oldX), t.j.Paired
	c.Compare = ch
	if len(looks) > 1 {
		c.Compare.Looks = looks
	}
	return append([]*test{t}, measureTests(f, old, c, true, opts)...)
}

// measureTests judges each judged measure (results.Measure.Judged) that
// both cells recorded: paired by round in an A/B pair, else unpaired (a
// stored baseline), each against its own minimum change. They join the
// run's family: a memory or start-up regression is a regression, and its
// tests cost the time's tests their share of alpha as any other would.
func measureTests(f *results.File, old, c *results.Cell, paired bool, opts Options) []*test {
	var out []*test
	for _, m := range results.Measures {
		if !m.Judged() || c.Metrics[m] == nil {
			continue
		}
		var oldX, newX []float64
		if paired {
			oldX, newX = RoundsOf(old, c, m.TrustedOf)
		} else {
			oldX, newX = old.TrustedValues(m), c.TrustedValues(m)
		}
		if len(oldX) == 0 || len(newX) == 0 {
			continue
		}
		ref, diff := stats.Median(oldX), stats.Median(newX)-stats.Median(oldX)
		if m.HigherIsBetter() {
			// Judged as time per request, as metric rps is: a drop is a
			// ratio above 1, a regression.
			oldX, newX = perUnit(oldX), perUnit(newX)
		}
		t := &test{cell: c, what: string(m), measure: m, n: [2]int{len(oldX), len(newX)}}
		switch {
		case opts.Exact:
			// A counted cell's few runs: the rank tests could not decide
			// on 3 runs a side (every figure showed "inconclusive"). GC
			// counts and allocated bytes repeat as instructions do;
			// profile bytes move ~0.5 % (the profile holds times), which
			// at 2 runs a side can leave them inconclusive: said so.
			t.j = stats.JudgeExact(oldX, newX, opts.Alpha)
		case paired:
			t.j = stats.JudgePaired(oldX, newX, opts.Alpha)
		default:
			t.j = stats.Judge(oldX, newX, opts.Alpha)
		}
		t.p, t.minP = t.j.P, t.j.MinP
		t.ref, t.diff = ref, diff
		t.minChange = f.MeasureMinChange(m).Of(t.ref)
		out = append(out, t)
	}
	return out
}

// perUnit is 1e9/x of each x: a rate's time per event, in ns.
func perUnit(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = 1e9 / x
	}
	return out
}

// Rounds are the measured runs of an A/B pair in its metric, paired: the
// runs of old and new that ran in the same round (results.Run.Round), in
// round order. Runs of one side in a round the other did not run (an
// interruption, a cell judged by two modes that stopped at different
// looks) are left out. Files without rounds pair the k-th runs.
func Rounds(old, new *results.Cell) (oldX, newX []float64) {
	return RoundsOf(old, new, func(r *results.Run) (float64, bool) { return float64(old.Metric.Of(r)), true })
}

// RoundsOf is Rounds of any reading of a run (a measure's: Measure.Of); a
// round whose either run lacks the reading is left out.
func RoundsOf(old, new *results.Cell, of func(*results.Run) (float64, bool)) (oldX, newX []float64) {
	o, n := old.Measured(), new.Measured()
	if !hasRounds(o) || !hasRounds(n) {
		k := min(len(o), len(n))
		o, n = o[:k], n[:k]
	} else {
		byRound := map[int]results.Run{}
		for _, r := range o {
			byRound[r.Round] = r
		}
		var oo, nn []results.Run
		for _, r := range n {
			if or, ok := byRound[r.Round]; ok {
				oo, nn = append(oo, or), append(nn, r)
			}
		}
		o, n = oo, nn
	}
	for i := range o {
		a, okA := of(&o[i])
		b, okB := of(&n[i])
		if okA && okB {
			oldX, newX = append(oldX, a), append(newX, b)
		}
	}
	return oldX, newX
}

// hasRounds reports whether every run records its round.
func hasRounds(runs []results.Run) bool {
	return !slices.ContainsFunc(runs, func(r results.Run) bool { return r.Round == 0 })
}

// pair judges an A/B pair's runs (paired by round) and folds the p-values
// of the looks it took into one (stats.SequentialP). planned and maxRuns
// are the pair's plan (0: one look, at the runs it has).
func pair(oldX, newX []float64, planned, maxRuns int, opts Options) (j stats.Judgement, p float64, looks []int) {
	n := min(len(oldX), len(newX))
	if opts.Exact {
		// A count's rounds share no machine state to pair away, and its
		// looks need no alpha spent on them: a pair only gets more rounds
		// when an outlier widened its interval (adaptive.go), and the
		// t rule's error does not grow with a look it did not take early.
		j = stats.JudgeExact(oldX, newX, opts.Alpha)
		return j, j.P, []int{n}
	}
	alpha := opts.Alpha
	j = stats.JudgePaired(oldX, newX, alpha)
	looks = []int{n}
	if planned > 0 && maxRuns > planned && len(oldX) == len(newX) {
		looks = stats.LooksTaken(planned, maxRuns, n)
	}
	ps := make([]float64, len(looks))
	for k, m := range looks {
		if m == n {
			ps[k] = j.P
		} else {
			ps[k] = stats.PairedP(oldX[:m], newX[:m], alpha)
		}
	}
	return j, stats.SequentialP(looks, ps, max(maxRuns, n)), looks
}

// Undecided reports whether an A/B pair (old[i] and new[i] measured in
// round i) planned at planned runs and capped at maxRuns should get more
// rounds: it is below its cap, not significant even with its p multiplied
// by family (the run's time tests, its A/B pairs and a stored baseline's:
// Bonferroni's bound, which Holm's adjustment never exceeds), and not
// Settled. The runner's adaptive rounds
// ask it at each of stats.Looks; which look a pair stops at does not
// matter to the error control (SequentialP holds at any stopping point).
func Undecided(old, new []float64, planned, maxRuns, family int, opts Options) bool {
	if len(new) >= maxRuns || len(old) >= maxRuns {
		return false
	}
	j, p, _ := pair(old, new, planned, maxRuns, opts)
	return !(p*float64(max(family, 1)) < opts.Alpha) && !Settled(j, opts)
}

// JudgePair is the verdict Apply gives an A/B pair (old[i] and new[i]
// measured in round i, planned and maxRuns as in Undecided) judged in a
// family of family tests where its p is the smallest (Holm's first step:
// p times family). Simulations and the recorded-noise test use it to judge
// one pair the way a run does.
func JudgePair(old, new []float64, planned, maxRuns, family int, opts Options) results.Verdict {
	j, p, _ := pair(old, new, planned, maxRuns, opts)
	c := &results.Cell{Compare: &results.Change{}}
	return verdictOf(&test{cell: c, j: j, p: math.Min(1, p*float64(max(family, 1)))}, opts)
}

// BaselineCell is the cell of base a cell (workload, mode, measured by
// metric) is judged against, nil when base has none it can be: absent,
// failed, with no measured run, or measured by another metric.
func BaselineCell(base *results.File, workload string, mode modes.Mode, metric results.Metric) *results.Cell {
	old := base.Find(workload, mode)
	if old == nil || old.Failed() || len(old.Values()) == 0 || old.Metric.OrDefault() != metric.OrDefault() {
		return nil
	}
	return old
}

// baselineTests judges cell c against the same cell of base: its time,
// and, for a profiled mode, its overhead multiple over none (the machine
// may have changed speed between the two; the multiple divides that out).
func baselineTests(base, cur *results.File, c *results.Cell, opts Options) []*test {
	old := BaselineCell(base, c.Workload, c.Mode, c.Metric)
	if old == nil {
		return nil
	}
	oldX, newX := old.Values(), c.Values()
	t := &test{cell: c, what: string(c.Metric.OrDefault()), j: judgeUnpaired(oldX, newX, opts), n: [2]int{len(oldX), len(newX)}}
	t.p, t.minP = t.j.P, t.j.MinP
	c.Compare = &results.Change{BaselineMedianNs: stats.Median(oldX)}
	out := []*test{t}
	if c.Mode != modes.None {
		oa, na := summary.OverheadSamples(base, old), summary.OverheadSamples(cur, c)
		if len(oa) > 0 && len(na) > 0 {
			o := &test{cell: c, what: "overhead", overhead: true, j: judgeUnpaired(oa, na, opts), n: [2]int{len(oa), len(na)}}
			o.p, o.minP = o.j.P, o.j.MinP
			c.Compare.BaselineOverhead = old.Overhead
			if c.Compare.BaselineOverhead == 0 {
				c.Compare.BaselineOverhead = stats.Finite(stats.Median(oa))
			}
			c.Compare.OverheadRatio = stats.Finite(o.j.Ratio)
			c.Compare.OverheadP = o.j.P
			out = append(out, o)
		}
	}
	return append(out, measureTests(base, old, c, false, opts)...)
}

// decide adjusts every test's p over the family and gives each tested
// cell its verdict: regressed if any of its tests regressed, else
// inconclusive if its time test is, else improved if any improved, else
// same.
func decide(tests []*test, opts Options) {
	var times, measures []*test
	for _, t := range tests {
		if t.measure == "" {
			times = append(times, t)
		} else {
			measures = append(measures, t)
		}
	}
	holm(times)
	holm(measures)
	byCell := map[*results.Cell][]*test{}
	var cells []*results.Cell
	for _, t := range times {
		if byCell[t.cell] == nil {
			cells = append(cells, t.cell)
		}
		byCell[t.cell] = append(byCell[t.cell], t)
	}
	for _, c := range cells {
		ts := byCell[c]
		time := ts[0]
		ch := c.Compare
		ch.Ratio, ch.RatioLo, ch.RatioHi = stats.Finite(time.j.Ratio), stats.Finite(time.j.Lo), stats.Finite(time.j.Hi)
		ch.P, ch.PAdjusted, ch.Family = time.j.P, time.p, len(times)
		// Comparable: the sizes could reach significance after the
		// adjustment (Holm's first step multiplies by the family).
		ch.Comparable = time.minP*float64(len(times)) < opts.Alpha
		verdicts := make([]results.Verdict, len(ts))
		var reasons []string
		o := opts.For(c) // a count's own min_change
		for i, t := range ts {
			verdicts[i] = verdictOf(t, o)
			reasons = append(reasons, describe(t, verdicts[i], len(times), o))
		}
		// What each test said, so that a verdict names what moved: a
		// regressed rss alone reads otherwise as the time's regression.
		ch.TimeVerdict, ch.OverheadVerdict = verdicts[0], ""
		for i, t := range ts {
			if t.overhead {
				ch.OverheadVerdict = verdicts[i]
			}
		}
		switch {
		case slices.Contains(verdicts, results.VerdictRegressed):
			c.Verdict = results.VerdictRegressed
		case verdicts[0] == results.VerdictInconclusive:
			// The time's test decides whether the cell is settled; an
			// overhead improvement does not settle it.
			c.Verdict = results.VerdictInconclusive
			ch.Hides = hides(time.j)
		case slices.Contains(verdicts, results.VerdictImproved):
			c.Verdict = results.VerdictImproved
		default:
			c.Verdict = results.VerdictSame
		}
		if !ch.Comparable {
			reasons = append(reasons, fmt.Sprintf("%s (%d vs %d) to reach p < %g over %d %s", results.TooFewRunsPrefix, time.n[0], time.n[1], opts.Alpha, len(times), numfmt.Plural(len(times), "test", "tests")))
		}
		ch.Reason = strings.Join(reasons, "; ")
	}
	decideMeasures(measures, opts)
}

// holm replaces each test's p by Holm's adjustment over the tests.
func holm(tests []*test) {
	ps := make([]float64, len(tests))
	for i, t := range tests {
		ps[i] = t.p
	}
	for i, adj := range stats.Holm(ps) {
		tests[i].p = adj
	}
}

// decideMeasures gives each judged measure its verdict, from its test's p
// adjusted over the run's measure tests (their own family, so that the
// time's verdicts keep the power they had: the chance that a run in which
// nothing changed reports a change is alpha in time and alpha in the
// measures), against the measure's own minimum change. A regressed
// measure regresses its cell, and the cell's reason names it first:
// "regressed: rss +96.00MiB".
func decideMeasures(tests []*test, opts Options) {
	for _, t := range tests {
		o := opts
		o.MinChange = t.minChange
		v := verdictOf(t, o)
		ms := t.cell.Metrics[t.measure]
		ms.Verdict = v
		ms.Compare = &results.Change{
			BaselineMedianNs: t.ref, // in the measure's unit
			Ratio:            stats.Finite(t.j.Ratio), RatioLo: stats.Finite(t.j.Lo), RatioHi: stats.Finite(t.j.Hi),
			P: t.j.P, PAdjusted: t.p, Family: len(tests), Paired: t.j.Paired,
			Comparable: t.minP*float64(len(tests)) < opts.Alpha,
		}
		ms.Compare.Reason = describe(t, v, len(tests), o)
		if v == results.VerdictInconclusive {
			ms.Compare.Hides = hides(t.j)
		}
		c := t.cell
		if v == results.VerdictRegressed && c.Verdict != results.VerdictFailed {
			c.Verdict = results.VerdictRegressed
			lead := "regressed: " + string(t.measure) + " " + numfmt.Signed(t.diff, t.measure.Unit())
			if c.Compare != nil {
				c.Compare.Reason = lead + "; " + c.Compare.Reason
			}
		}
	}
}

// verdictOf is one test's verdict from its adjusted p and its interval at
// 1 - alpha. Significant: regressed (or improved) unless the interval
// shows the change smaller than the minimum change (then same). Not
// significant: same when the interval lies within ±min_change, else
// inconclusive — an overhead test then says same: it can regress a cell,
// the time test alone decides whether the cell is settled.
func verdictOf(t *test, opts Options) results.Verdict {
	j := t.j
	if t.p < opts.Alpha {
		return Significant(j.Ratio, j.DecideLo, j.DecideHi, opts.MinChange)
	}
	if Settled(j, opts) || t.overhead {
		return results.VerdictSame
	}
	return results.VerdictInconclusive
}

// Significant is the verdict on a change already shown significant, of
// ratio new/old with its interval [lo, hi] at the level it was decided at
// ([0, 0]: no interval, too few runs): regressed (or improved) unless the
// change is shown smaller than minChange, then same. It is the one
// minimum-change rule: a run's verdicts and history's CI gate both use it.
func Significant(ratio, lo, hi, minChange float64) results.Verdict {
	if lo == 0 && hi == 0 { // no interval: the change itself
		lo, hi = ratio, ratio
	}
	switch {
	case ratio > 1 && !(hi < 1+minChange):
		return results.VerdictRegressed
	case ratio < 1 && !(lo > 1-minChange):
		return results.VerdictImproved
	}
	return results.VerdictSame
}

// Settled reports whether a judgement shows that whatever changed is
// smaller than the minimum change: its interval at 1 - alpha lies within
// ±min_change.
func Settled(j stats.Judgement, opts Options) bool {
	return j.DecideLo > 1-opts.MinChange && j.DecideHi < 1+opts.MinChange
}

// hides is the largest relative change the interval at 1 - alpha still
// allows either way: what an inconclusive verdict could be hiding (0 when
// there is no interval: too few runs).
func hides(j stats.Judgement) float64 {
	h := math.Max(j.DecideHi-1, 1-j.DecideLo)
	if math.IsNaN(h) || math.IsInf(h, 0) {
		return 0
	}
	return h
}

// describe says one test's outcome in words: "kernel-cpu vs tracing@old
// +8.1% (p<0.001; adjusted p=0.004 over 15 tests) regressed".
func describe(t *test, verdict results.Verdict, family int, opts Options) string {
	d := t.what + " " + numfmt.Change(t.j.Ratio) + " (" + numfmt.P(t.j.P)
	if family > 1 || len(t.cell.Compare.Looks) > 1 {
		d += fmt.Sprintf("; adjusted %s over %d %s", numfmt.P(t.p), family, numfmt.Plural(family, "test", "tests"))
		if k := len(t.cell.Compare.Looks); k > 1 && !t.overhead {
			d += fmt.Sprintf(" and %d looks", k)
		}
	}
	d += ")"
	switch {
	case verdict == results.VerdictInconclusive:
		if h := hides(t.j); h > 0 {
			return d + fmt.Sprintf(" inconclusive: could hide a change of ±%.1f%% (min_change ±%g%%)", 100*h, 100*opts.MinChange)
		}
		return d + " inconclusive"
	case verdict != results.VerdictSame:
		return d + " " + string(verdict)
	case !(t.p < opts.Alpha) && !Settled(t.j, opts):
		return d + " not significant"
	default:
		return d + fmt.Sprintf(" within ±%g%%", 100*opts.MinChange)
	}
}

// warn replaces the warnings an earlier comparison left with this one's.
func warn(cur, base *results.File) {
	kept := cur.Warnings[:0]
	for _, w := range cur.Warnings {
		if !strings.HasPrefix(w, mismatchWarning) && !strings.HasPrefix(w, suiteWarning) && !strings.HasPrefix(w, countingWarning) {
			kept = append(kept, w)
		}
	}
	cur.Warnings = kept
	if base == nil {
		return
	}
	if m := machine.Mismatch(base.Machine, cur.Machine); len(m) > 0 {
		cur.Warnings = append(cur.Warnings, mismatchWarning+" ("+strings.Join(m, "; ")+"): verdicts may reflect the machine, not the code")
	}
	if base.Suite.SHA256 != cur.Suite.SHA256 {
		cur.Warnings = append(cur.Warnings, suiteWarning+": workload arguments may differ")
	}
	if base.Counted() && cur.Counted() && !results.SameCounting(&base.Settings, &cur.Settings) {
		cur.Warnings = append(cur.Warnings, fmt.Sprintf("%s (the baseline's: %s; this run's: %s): counts may differ by it, not by the code", countingWarning, base.Settings.CountingSetup(), cur.Settings.CountingSetup()))
	}
}

const (
	mismatchWarning = "baseline was measured on a different machine"
	suiteWarning    = "baseline was recorded from another version of the suite file"
	countingWarning = "baseline's counted runs had another environment from vbench"
)

// CheckMetrics refuses to judge cur against base when a workload both
// measured was measured by different metrics: a wall time against an
// elapsed time is no change of the code. cur maps each workload to the
// metric of its cells (MetricsOf, or a plan's before it runs); the names
// are the files' as the user gave them.
func CheckMetrics(baseName string, base *results.File, curName string, cur map[string]results.Metric) error {
	old := MetricsOf(base)
	for _, w := range slices.Sorted(maps.Keys(cur)) {
		if om, ok := old[w]; ok && om != cur[w] {
			return fmt.Errorf("workload %s is measured by %s in %s and by %s in %s: refusing to compare different metrics (record a new baseline with 'vbench baseline update')", w, om, baseName, cur[w], curName)
		}
	}
	return nil
}

// MetricsOf maps each workload of f to the metric its cells measured.
func MetricsOf(f *results.File) map[string]results.Metric {
	m := map[string]results.Metric{}
	for _, c := range f.Results {
		m[c.Workload] = c.Metric.OrDefault()
	}
	return m
}
