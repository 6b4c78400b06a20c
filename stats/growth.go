package stats

// Growth models: how a cost grows with the size of the work. Each class is
// y = a + b·g(n) for one term g (Perun's regression models), fitted by
// weighted least squares (gonum's stat.LinearRegression), and the classes
// are ranked by the Bayesian information criterion.

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Class is a growth class: the term g(n) of y = a + b·g(n).
type Class int

// The classes, slowest growth first (a Class compares by growth).
const (
	Constant Class = iota
	Log
	Linear
	NLogN
	Quadratic
	Cubic
)

// Classes lists every class, slowest growth first.
var Classes = []Class{Constant, Log, Linear, NLogN, Quadratic, Cubic}

var classNames = []string{"1", "log n", "n", "n log n", "n²", "n³"}

func (c Class) String() string {
	if c < 0 || int(c) >= len(classNames) {
		return "?"
	}
	return classNames[c]
}

// ClassNamed is the class String spells s, ok false when none does.
func ClassNamed(s string) (Class, bool) {
	for i, n := range classNames {
		if n == s {
			return Class(i), true
		}
	}
	return 0, false
}

// Term is g(n).
func (c Class) Term(n float64) float64 {
	switch c {
	case Log:
		return math.Log(n)
	case Linear:
		return n
	case NLogN:
		return n * math.Log(n)
	case Quadratic:
		return n * n
	case Cubic:
		return n * n * n
	}
	return 0
}

// GrowthFit is one class fitted to the points.
type GrowthFit struct {
	Class     Class
	Intercept float64 // a
	Coef      float64 // b, the leading coefficient (0 for Constant)
	CoefSE    float64 // b's standard error (0 when the fit is exact)
	R2        float64 // weighted coefficient of determination
	BIC       float64 // n·ln(RSS/n) + k·ln(n): lower is better
	Valid     bool    // false when b <= 0: not a growth at all
}

// At is the fit's value at n.
func (f GrowthFit) At(n float64) float64 { return f.Intercept + f.Coef*f.Class.Term(n) }

// growthWeights are 1/σ² from each point's standard error, normalised;
// a zero σ (an exact count) takes the smallest positive one, or 1.
func growthWeights(sigma []float64) []float64 {
	floor := math.Inf(1)
	for _, s := range sigma {
		if s > 0 && s < floor {
			floor = s
		}
	}
	if math.IsInf(floor, 1) {
		floor = 1
	}
	w := make([]float64, len(sigma))
	for i, s := range sigma {
		s = math.Max(s, floor)
		w[i] = (floor * floor) / (s * s)
	}
	return w
}

// FitClass fits y = a + b·g(n) for class c by least squares weighted by
// 1/sigma² (sigma: each point's standard error; nil: equal weights).
func FitClass(c Class, n, y, sigma []float64) GrowthFit {
	if sigma == nil {
		sigma = make([]float64, len(n))
	}
	w := growthWeights(sigma)
	f := GrowthFit{Class: c, Valid: true}
	x := make([]float64, len(n))
	for i := range n {
		x[i] = c.Term(n[i])
	}
	k := 2.0
	if c == Constant {
		f.Intercept, k = stat.Mean(y, w), 1
	} else {
		f.Intercept, f.Coef = stat.LinearRegression(x, y, w, false)
		f.Valid = f.Coef > 0
	}
	var rss, tss, sxx float64
	my, mx := stat.Mean(y, w), stat.Mean(x, w)
	for i := range y {
		r := y[i] - f.At(n[i])
		rss += w[i] * r * r
		tss += w[i] * (y[i] - my) * (y[i] - my)
		sxx += w[i] * (x[i] - mx) * (x[i] - mx)
	}
	// A fit exact to rounding: every exact class ties at the floor, and
	// the penalty then picks the simplest.
	rss = math.Max(rss, 1e-18*math.Max(tss, stat.Mean(y, w)*stat.Mean(y, w)))
	m := float64(len(y))
	f.BIC = m*math.Log(rss/m) + k*math.Log(m)
	if tss > 0 {
		f.R2 = 1 - rss/tss
	} else {
		f.R2 = 1
	}
	if c != Constant && len(y) > 2 && sxx > 0 {
		f.CoefSE = math.Sqrt(rss / (m - 2) / sxx)
		// With every point's own error known, b's error from them: a fit
		// that happens to pass near four noisy points is no exact one.
		if known := knownCoefSE(x, sigma); known > f.CoefSE {
			f.CoefSE = known
		}
	}
	return f
}

// knownCoefSE is the slope's standard error from each point's own σ
// (1/σ² weights, not normalised); 0 unless every σ is positive.
func knownCoefSE(x, sigma []float64) float64 {
	w := make([]float64, len(x))
	for i, s := range sigma {
		if !(s > 0) {
			return 0
		}
		w[i] = 1 / (s * s)
	}
	mx := stat.Mean(x, w)
	var sxx float64
	for i := range x {
		sxx += w[i] * (x[i] - mx) * (x[i] - mx)
	}
	if sxx == 0 {
		return 0
	}
	return math.Sqrt(1 / sxx)
}

// FitGrowth fits every class and returns the best by BIC among the valid
// fits (ties go to the slower growth), and the margin: how much higher
// the runner-up's BIC is (a margin of 10 is "very strong" evidence, Kass
// and Raftery). It needs three points with distinct n > 0.
func FitGrowth(n, y, sigma []float64) (best GrowthFit, margin float64) {
	fits := make([]GrowthFit, len(Classes))
	for i, c := range Classes {
		fits[i] = FitClass(c, n, y, sigma)
		if i == 0 || fits[i].Valid && fits[i].BIC < best.BIC { // Constant is always valid
			best = fits[i]
		}
	}
	margin = math.Inf(1)
	for _, f := range fits {
		if f.Valid && f.Class != best.Class {
			margin = math.Min(margin, f.BIC-best.BIC)
		}
	}
	return best, margin
}

// CoefGrew reports whether fit new's leading coefficient is above old's
// by more than minChange (a fraction), at one-sided level alpha: z on the
// difference over both standard errors; with no error at all (exact
// counts) the coefficients themselves decide. Both fits are of one class.
func CoefGrew(old, new GrowthFit, minChange, alpha float64) bool {
	limit := old.Coef * (1 + minChange)
	se := math.Hypot(new.CoefSE, (1+minChange)*old.CoefSE)
	if se == 0 {
		return new.Coef > limit
	}
	return (new.Coef-limit)/se > distuv.UnitNormal.Quantile(1-alpha)
}
