package stats

import (
	"math"
	"testing"
)

var growthSizes = []float64{250, 500, 1000, 2000}

// Exact points of each class, with a constant beside the term, are fitted
// back to that class and its coefficients; a decisive margin separates it
// from the next best.
func TestFitGrowthFindsEachClass(t *testing.T) {
	for _, c := range Classes {
		y := make([]float64, len(growthSizes))
		for i, n := range growthSizes {
			y[i] = 100 + 3*c.Term(n)
		}
		best, margin := FitGrowth(growthSizes, y, nil)
		if best.Class != c {
			t.Errorf("class %s: fitted %s (%+v)", c, best.Class, best)
			continue
		}
		if c != Constant && math.Abs(best.Coef-3)/3 > 1e-6 {
			t.Errorf("class %s: coefficient %g, want 3", c, best.Coef)
		}
		if margin < 10 || best.R2 < 0.999999 {
			t.Errorf("class %s: margin %g, R² %g", c, margin, best.R2)
		}
	}
}

// Counts of one function, quadratic with a smaller linear part (n(n-1)/2
// comparisons), are n², not n log n or n³.
func TestFitGrowthMixedTerms(t *testing.T) {
	y := make([]float64, len(growthSizes))
	for i, n := range growthSizes {
		y[i] = n * (n - 1) / 2
	}
	if best, _ := FitGrowth(growthSizes, y, nil); best.Class != Quadratic {
		t.Errorf("n(n-1)/2 fitted as %s", best.Class)
	}
}

// Points ±2% around a line with their intervals: a
// coefficient 1.5 times as large grew beyond 5% while the same one did not.
func TestFitGrowthWeightedAndCoefGrew(t *testing.T) {
	wobble := []float64{1.02, 0.98, 1.01, 0.99}
	line := func(b float64) (y, s []float64) {
		for i, n := range growthSizes {
			v := (1e6 + b*n) * wobble[i]
			y, s = append(y, v), append(s, 0.02*v)
		}
		return y, s
	}
	y, s := line(1000)
	same := FitClass(Linear, growthSizes, y, s)
	y2, s2 := line(1500)
	grown := FitClass(Linear, growthSizes, y2, s2)
	if !CoefGrew(same, grown, 0.05, 0.01) {
		t.Errorf("×1.5 not seen: %+v vs %+v", same, grown)
	}
	if CoefGrew(same, same, 0.05, 0.01) {
		t.Errorf("a fit grew against itself")
	}
}
