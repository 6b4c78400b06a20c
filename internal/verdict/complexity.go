package verdict

// The complexity verdict: a scaled workload's cost, each function's exact
// calls and, with exact line counts, each line's executions, against the
// sizes it ran at, fitted to growth classes
// (stats.FitGrowth); a series whose class grew against its reference's
// (the OLD build, the workload's against:, the baseline), or whose class
// stayed and whose leading coefficient grew beyond the minimum change,
// regressed.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"vbench/internal/results"
	"vbench/stats"
)

// DecisiveMargin is the BIC difference by which each build's points must
// reject the other's class before a change of class counts:
// above 10 is "very strong" evidence (Kass and Raftery 1995). A noisy
// series whose best class differs by less is inconclusive.
const DecisiveMargin = 10.0

// MinGrowthCalls is the fewest calls, at the largest size, a function's
// series needs to be judged: a function called a handful of times (a
// list's resizes, a lazy initialiser) steps rather than grows.
const MinGrowthCalls = 100

// series is one set of points against size.
type series struct {
	sizes, y, sigma []float64
}

// at is the point at size n, ok false when the series has none.
func (s *series) at(n float64) (float64, bool) {
	i := slices.Index(s.sizes, n)
	if i < 0 {
		return 0, false
	}
	return s.y[i], true
}

// costSeries are the cells' medians, each with its interval as σ.
func costSeries(cells []*results.Cell) (s series, lo, hi []float64) {
	for _, c := range cells {
		if c.Failed() || len(c.Values()) == 0 || c.Scale == nil {
			continue
		}
		sigma := 0.0
		switch {
		case c.CIHiNs > c.CILoNs:
			sigma = (c.CIHiNs - c.CILoNs) / (2 * 1.96)
		case c.Runs > 0:
			// Too few runs for an interval: the median's standard error
			// from the MAD (normal: 1.4826 MAD is σ, the median's is
			// 1.253 σ/√runs).
			sigma = 1.253 * 1.4826 * c.MADNs / math.Sqrt(float64(c.Runs))
		}
		s.sizes, s.y, s.sigma = append(s.sizes, c.Scale.Size), append(s.y, c.MedianNs), append(s.sigma, sigma)
		lo, hi = append(lo, c.CILoNs), append(hi, c.CIHiNs)
	}
	return s, lo, hi
}

// callSeries are each function's calls per run (their median) by size,
// σ² the count itself (Poisson) plus the runs' spread: a count that
// repeats exactly still weighs no more than its size allows.
func callSeries(cells []*results.Cell) map[string]*series {
	return countSeries(cells, func(c *results.Cell) map[string][]int64 { return c.Calls })
}

// lineSeries are each line's executions per run by size, as callSeries,
// keyed by lineKey.
func lineSeries(cells []*results.Cell) map[string]*series {
	return countSeries(cells, func(c *results.Cell) map[string][]int64 {
		if c.LineExecutions == nil {
			return nil
		}
		m := map[string][]int64{}
		for fn, lines := range c.LineExecutions {
			for at, runs := range lines {
				m[lineKey(fn, at)] = runs
			}
		}
		return m
	})
}

// lineKey joins a line's function and place ("Program.cs:41"); no method
// or file name holds the separator.
func lineKey(fn, at string) string { return fn + "\x00" + at }

// countSeries are the exact counts of (a cell's) get, per key, by size.
func countSeries(cells []*results.Cell, get func(*results.Cell) map[string][]int64) map[string]*series {
	out := map[string]*series{}
	for _, c := range cells {
		if c.Failed() || get(c) == nil || c.Scale == nil {
			continue
		}
		for name := range get(c) {
			if out[name] == nil {
				out[name] = &series{}
			}
		}
	}
	for name, s := range out {
		for _, c := range cells {
			m := get(c)
			if c.Failed() || m == nil || c.Scale == nil {
				continue
			}
			runs := m[name]
			if len(runs) == 0 {
				runs = []int64{0}
			}
			v := make([]float64, len(runs))
			for i, r := range runs {
				v[i] = float64(r)
			}
			sort.Float64s(v)
			med, spread := v[len(v)/2], (v[len(v)-1]-v[0])/2
			s.sizes, s.y, s.sigma = append(s.sizes, c.Scale.Size), append(s.y, med), append(s.sigma, math.Sqrt(math.Max(med, 1)+spread*spread))
		}
	}
	return out
}

func model(f stats.GrowthFit, margin float64) results.Model {
	if math.IsInf(margin, 1) {
		margin = math.MaxFloat64
	}
	return results.Model{Class: f.Class.String(), Intercept: f.Intercept, Coef: f.Coef, CoefSE: f.CoefSE, R2: f.R2, Margin: margin}
}

// growthRef finds the reference cells of a scaled group: its A/B pair's
// cells in cur, else the same cells of base; where says which, in the file
// holding them.
func growthRef(cur, base *results.File, g []*results.Cell) (ref []*results.Cell, where string, in *results.File) {
	for _, c := range g {
		if cur.IsAB(c.Workload, c.Mode) {
			if r := cur.Reference(c); r != nil {
				ref, in = append(ref, r), cur
				if r.Scale != nil {
					where = r.Scale.Of + "/" + string(r.Mode)
				}
			}
		} else if base != nil {
			if r := base.Find(c.Workload, c.Mode); r != nil {
				ref, where, in = append(ref, r), "baseline", base
			}
		}
	}
	return ref, where, in
}

// overheadSeries are the cells' medians minus their none cells' (the same
// workload and size, in f), σ both intervals'; ok false under none, or
// when a size has no none cell.
func overheadSeries(f *results.File, cells []*results.Cell) (s series, ok bool) {
	for _, c := range cells {
		if c.Mode == "none" || c.Scale == nil {
			return s, false
		}
		if c.Failed() || len(c.Values()) == 0 {
			continue
		}
		n := f.Find(c.Workload, "none")
		if n == nil || n.Failed() || len(n.Values()) == 0 {
			return s, false
		}
		sigma := math.Hypot(max(c.CIHiNs-c.CILoNs, 0), max(n.CIHiNs-n.CILoNs, 0)) / (2 * 1.96)
		s.sizes, s.y, s.sigma = append(s.sizes, c.Scale.Size), append(s.y, c.MedianNs-n.MedianNs), append(s.sigma, sigma)
	}
	return s, len(s.sizes) >= 3
}

// applyComplexity fits every scaled group of cur and judges it against
// its reference (see the file's comment).
func applyComplexity(cur, base *results.File, opts Options) {
	cur.Complexity = nil
	for _, g := range cur.ScaledCells() {
		ref, where, in := growthRef(cur, base, g)
		o := opts.For(g[0])
		s, lo, hi := costSeries(g)
		if len(s.sizes) >= 3 {
			gr := results.Growth{Workload: g[0].Scale.Of, Mode: g[0].Mode, Sizes: s.sizes, Values: s.y, Lo: lo, Hi: hi}
			var rs *series
			if len(ref) > 0 {
				r, _, _ := costSeries(ref)
				rs = &r
			}
			judgeGrowth(&gr, s, rs, where, true, g[len(g)-1].Verdict, o)
			cur.Complexity = append(cur.Complexity, gr)
		}
		if s, ok := overheadSeries(cur, g); ok {
			gr := results.Growth{Workload: g[0].Scale.Of, Mode: g[0].Mode, Overhead: true, Sizes: s.sizes, Values: s.y}
			var rs *series
			if r, ok := overheadSeries(in, ref); ok && len(ref) > 0 {
				rs = &r
			}
			judgeGrowth(&gr, s, rs, where, true, g[len(g)-1].Verdict, o)
			cur.Complexity = append(cur.Complexity, gr)
		}
		cur.Complexity = append(cur.Complexity, countGrowths(g, ref, where, o, callSeries, false)...)
		cur.Complexity = append(cur.Complexity, countGrowths(g, ref, where, o, lineSeries, true)...)
	}
}

// countGrowths fits and judges the exact count series of a scaled group
// (each function's calls, or each line's executions), against ref's.
func countGrowths(g, ref []*results.Cell, where string, o Options, of func([]*results.Cell) map[string]*series, lines bool) []results.Growth {
	cur := of(g)
	var refs map[string]*series
	if len(ref) > 0 {
		refs = of(ref)
	}
	names := make([]string, 0, len(cur))
	for n := range cur {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []results.Growth
	for _, name := range names {
		s := cur[name]
		rs := refs[name]
		if len(s.sizes) < 3 || slices.Max(s.y) < MinGrowthCalls && (rs == nil || slices.Max(rs.y) < MinGrowthCalls) {
			continue
		}
		gr := results.Growth{Workload: g[0].Scale.Of, Mode: g[0].Mode, Function: name, Sizes: s.sizes, Values: s.y}
		if lines {
			gr.Function, gr.Line, _ = strings.Cut(name, "\x00")
		}
		judgeGrowth(&gr, *s, rs, where, false, "", o)
		// A count that does not grow is no news; keep the rest.
		if gr.Model.Class != stats.Constant.String() || gr.RefModel != nil && gr.RefModel.Class != stats.Constant.String() || gr.Verdict == results.VerdictRegressed {
			out = append(out, gr)
		}
	}
	return out
}

// heldToLargest makes a time series' change (a cost's or an overhead's:
// coef) inconclusive unless the cell at its largest size changed the same
// way (largest). Ten A/A runs of the growth program's unchanged build in
// time, 3 runs a cell at load 15-35, gave two changes of class that each
// build's points "decided" (log n → n², n → log n) while every cell was
// inconclusive: a few medians whose load moved between them reject a
// class far more firmly than they know. Counts (opts.Exact) stand alone.
func heldToLargest(gr *results.Growth, coef bool, largest results.Verdict, s series, opts Options) {
	if !coef || opts.Exact || largest == gr.Verdict {
		return
	}
	gr.Verdict = results.VerdictInconclusive
	gr.Sentence += fmt.Sprintf(", not confirmed: the cell at size %g is %s", slices.Max(s.sizes), cmp.Or(string(largest), "unjudged"))
}

// judgeGrowth fits s (and ref, when there is one of at least three points)
// and gives gr its models and verdict. coef: the leading coefficient's
// growth counts too (a cost; a function's calls are judged by class).
//
// A time's change (its class, or its coefficient) is held to the cells'
// own verdict: four medians of a few runs each, a machine's load moving
// between them, fit a slope far tighter than they know (an A/A of the
// growth program under tracing: ×1.38, "significant"), so under time a
// change counts only where the largest size's cell changed the same way
// (largest: that cell's verdict), and is inconclusive elsewhere
// (heldToLargest). A count's fit is exact enough to stand alone.
func judgeGrowth(gr *results.Growth, s series, ref *series, where string, coef bool, largest results.Verdict, opts Options) {
	best, margin := stats.FitGrowth(s.sizes, s.y, s.sigma)
	gr.Model = model(best, margin)
	if ref == nil || len(ref.sizes) < 3 {
		return
	}
	rbest, rmargin := stats.FitGrowth(ref.sizes, ref.y, ref.sigma)
	rm := model(rbest, rmargin)
	gr.RefModel, gr.Against = &rm, where
	name := gr.Name()
	// The new points under the reference's class: how much worse they fit.
	asRef := stats.FitClass(rbest.Class, s.sizes, s.y, s.sigma)
	rejects := asRef.BIC-best.BIC >= DecisiveMargin
	// The reference's points under the new class, for an improvement.
	asNew := stats.FitClass(best.Class, ref.sizes, ref.y, ref.sigma)
	refRejects := asNew.BIC-rbest.BIC >= DecisiveMargin
	atLargest := func(x *series) string {
		n := slices.Max(s.sizes)
		if v, ok := x.at(n); ok {
			return fmt.Sprintf("%.4g", v)
		}
		return "?"
	}
	at := fmt.Sprintf("at size %g: %s → %s", slices.Max(s.sizes), atLargest(ref), atLargest(&s))
	// A change of class counts when each build's points reject the
	// other's class: noise that makes one series look curved leaves the
	// other's points fitting either.
	switch {
	case best.Class > rbest.Class && rejects && refRejects:
		gr.Verdict = results.VerdictRegressed
		gr.Sentence = fmt.Sprintf("%s: %s → %s (%s)", name, rbest.Class, best.Class, at)
		heldToLargest(gr, coef, largest, s, opts)
	case best.Class < rbest.Class && rejects && refRejects:
		gr.Verdict = results.VerdictImproved
		gr.Sentence = fmt.Sprintf("%s: %s → %s (%s)", name, rbest.Class, best.Class, at)
		heldToLargest(gr, coef, largest, s, opts)
	case best.Class != rbest.Class:
		gr.Verdict = results.VerdictInconclusive
		gr.Sentence = fmt.Sprintf("%s: %s → %s, not decided: the points fit either (BIC %.1f and %.1f apart, %g needed)", name, rbest.Class, best.Class, asRef.BIC-best.BIC, asNew.BIC-rbest.BIC, DecisiveMargin)
	case coef && rbest.Class != stats.Constant && stats.CoefGrew(rbest, asRef, opts.MinChange, opts.Alpha):
		gr.Verdict = results.VerdictRegressed
		gr.Sentence = fmt.Sprintf("%s: %s, its coefficient ×%.3g (%.4g → %.4g a unit of %s; threshold %g%%)", name, rbest.Class, asRef.Coef/rbest.Coef, rbest.Coef, asRef.Coef, rbest.Class, 100*opts.MinChange)
		heldToLargest(gr, coef, largest, s, opts)
	case coef && rbest.Class != stats.Constant && stats.CoefGrew(asRef, rbest, opts.MinChange, opts.Alpha):
		gr.Verdict = results.VerdictImproved
		gr.Sentence = fmt.Sprintf("%s: %s, its coefficient ×%.3g", name, rbest.Class, asRef.Coef/rbest.Coef)
		heldToLargest(gr, coef, largest, s, opts)
	default:
		gr.Verdict = results.VerdictSame
		gr.Sentence = fmt.Sprintf("%s: %s, as %s", name, best.Class, where)
	}
}
