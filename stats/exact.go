package stats

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// JudgeExact judges a metric whose runs repeat almost exactly (an
// instruction count under valgrind: runs of one build differ by 0.001-0.2 %,
// from thread interleaving and the program's own randomness, never by the
// machine's load). The rank tests of Judge and JudgePaired cannot decide
// with the few runs such a metric needs — 3 runs a side give a permutation
// test no p below 0.1 — while the runs' spread is tiny and measured. So the
// rule is Welch's t on the logarithms of the runs: the ratio is the ratio
// of geometric means, its intervals Student's t with the Welch-Satterthwaite
// degrees of freedom, at 95 % to report and at 1 - alpha to decide (as
// Judge's). A few runs a side then tell a 1 % change from none when the
// runs spread 0.01 %, and a spread as wide as the change leaves the
// verdict inconclusive, as it should. When neither side varies at all the
// ratio is exact: p is 0 if it differs from 1, else 1. Fewer than 2 runs
// on a side estimate no spread: nothing is decided (p 1, no interval).
func JudgeExact(old, new []float64, alpha float64) Judgement {
	nan := math.NaN()
	j := Judgement{Ratio: nan, Lo: nan, Hi: nan, DecideLo: nan, DecideHi: nan, P: 1, MinP: 1}
	lo, okO := logs(old)
	ln, okN := logs(new)
	if !okO || !okN {
		if len(old) >= 2 && len(new) >= 2 && allEqual(old, new) {
			// 0 collections on both sides, every run: no change, exactly.
			return Judgement{Ratio: 1, Lo: 1, Hi: 1, DecideLo: 1, DecideHi: 1, P: 1, MinP: 0}
		}
		return Judge(old, new, alpha) // a zero reading: not a count that repeats
	}
	mo, vo := stat.MeanVariance(lo, nil)
	mn, vn := stat.MeanVariance(ln, nil)
	d := mn - mo
	j.Ratio = math.Exp(d)
	if len(lo) < 2 || len(ln) < 2 {
		return j
	}
	j.MinP = 0
	so, sn := vo/float64(len(lo)), vn/float64(len(ln))
	se := math.Sqrt(so + sn)
	if se == 0 {
		j.Lo, j.Hi, j.DecideLo, j.DecideHi = j.Ratio, j.Ratio, j.Ratio, j.Ratio
		if d != 0 {
			j.P = 0
		}
		return j
	}
	t := welchT(so, sn, len(lo), len(ln))
	j.P = math.Min(1, 2*t.Survival(math.Abs(d)/se))
	q := t.Quantile(1 - (1-Confidence)/2)
	j.Lo, j.Hi = math.Exp(d-q*se), math.Exp(d+q*se)
	q = t.Quantile(1 - alpha/2)
	j.DecideLo, j.DecideHi = math.Exp(d-q*se), math.Exp(d+q*se)
	return j
}

// logs are the natural logarithms of xs; false when one is not positive.
func logs(xs []float64) ([]float64, bool) {
	out := make([]float64, len(xs))
	for i, x := range xs {
		if !(x > 0) {
			return nil, false
		}
		out[i] = math.Log(x)
	}
	return out, len(xs) > 0
}

// ExactInterval is the 95 % interval of a deterministic metric's runs as
// JudgeExact sees them: Student's t around their geometric mean; [x, x]
// when every run read x; 0, 0 with fewer than 2 runs or a reading that is
// not positive.
func ExactInterval(xs []float64) (lo, hi float64) {
	l, ok := logs(xs)
	if !ok || len(l) < 2 {
		return 0, 0
	}
	m, v := stat.MeanVariance(l, nil)
	se := math.Sqrt(v / float64(len(l)))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(l) - 1)}.Quantile(1 - (1-Confidence)/2)
	return math.Exp(m - q*se), math.Exp(m + q*se)
}

// ExactDiff is the difference of two deterministic metrics' cells, a − b,
// as medians, with the 95 % Welch t interval of the difference of their
// means around it: what the profiler's cost per event takes from counted
// cells, whose 3 runs give a bootstrap (DiffCI) no interval. [d, d] when
// neither side varies; 0, 0, 0 with fewer than 2 runs on a side.
func ExactDiff(a, b []float64) (d, lo, hi float64) {
	if len(a) < 2 || len(b) < 2 {
		return 0, 0, 0
	}
	d = Median(a) - Median(b)
	_, va := stat.MeanVariance(a, nil)
	_, vb := stat.MeanVariance(b, nil)
	sa, sb := va/float64(len(a)), vb/float64(len(b))
	if sa+sb == 0 {
		return d, d, d
	}
	q := welchT(sa, sb, len(a), len(b)).Quantile(1 - (1-Confidence)/2)
	half := q * math.Sqrt(sa+sb)
	return d, d - half, d + half
}

// welchT is Student's t with the Welch-Satterthwaite degrees of freedom
// of two sides whose squared standard errors are sa and sb (variance over
// runs), of na and nb runs; a side with no spread contributes no term.
// One of sa, sb must be positive.
func welchT(sa, sb float64, na, nb int) distuv.StudentsT {
	den := 0.0
	if sa > 0 {
		den += sa * sa / float64(na-1)
	}
	if sb > 0 {
		den += sb * sb / float64(nb-1)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: (sa + sb) * (sa + sb) / den}
}

// allEqual reports whether every value of xs and ys is one number.
func allEqual(xs, ys []float64) bool {
	for _, v := range append(append([]float64{}, xs...), ys...) {
		if v != xs[0] {
			return false
		}
	}
	return true
}
