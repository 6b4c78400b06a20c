package stats

import (
	"math"
	"testing"
)

// The counts below are fibonacci's, measured under valgrind here (issue 46):
// three runs of one build repeat to 0.001 %.
var fibCounts = []float64{253399967, 253400923, 253398432}

func scaled(xs []float64, f float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * f
	}
	return out
}

// A 1 % change is decided at 3 runs a side, where a rank test's smallest
// p (0.1) never could, and its interval holds the change.
func TestJudgeExactDecidesSmallChange(t *testing.T) {
	j := JudgeExact(fibCounts, scaled(fibCounts, 1.01), 0.01)
	if !(j.P < 1e-6) {
		t.Errorf("p = %g, want < 1e-6 for +1%% at a 0.001%% spread", j.P)
	}
	if !(j.DecideLo > 1.009 && j.DecideHi < 1.011) || math.Abs(j.Ratio-1.01) > 1e-9 {
		t.Errorf("ratio %g [%g, %g], want 1.01 within ±0.1%%", j.Ratio, j.DecideLo, j.DecideHi)
	}
	if min := Judge(fibCounts, scaled(fibCounts, 1.01), 0.01).MinP; min < 0.09 {
		t.Errorf("the rank rule's smallest p at 3+3 runs is %g: the reason for JudgeExact is gone", min)
	}
}

// An A/A pair: no significance, and an interval far inside ±1 %.
func TestJudgeExactSame(t *testing.T) {
	other := []float64{253400100, 253399000, 253401500}
	j := JudgeExact(fibCounts, other, 0.01)
	if j.P < 0.01 {
		t.Errorf("A/A p = %g", j.P)
	}
	if !(j.DecideLo > 0.9999 && j.DecideHi < 1.0001) {
		t.Errorf("A/A interval [%g, %g], want within ±0.01%%", j.DecideLo, j.DecideHi)
	}
}

// A spread as wide as the change leaves it undecided: the interval reaches
// past both no change and the change.
func TestJudgeExactNoisy(t *testing.T) {
	old := []float64{100, 103, 97}
	j := JudgeExact(old, []float64{101, 104, 98}, 0.01)
	if j.P < 0.01 || !(j.DecideLo < 1 && j.DecideHi > 1.01) {
		t.Errorf("noisy +1%%: p %g [%g, %g], want undecided", j.P, j.DecideLo, j.DecideHi)
	}
}

// Identical runs: the ratio is exact; p is 0 only if it differs from 1.
func TestJudgeExactNoSpread(t *testing.T) {
	a, b := []float64{5, 5, 5}, []float64{6, 6}
	if j := JudgeExact(a, b, 0.01); j.P != 0 || j.Ratio != 1.2 || j.DecideLo != 1.2 || j.DecideHi != 1.2 {
		t.Errorf("5,5,5 vs 6,6: %+v", j)
	}
	if j := JudgeExact(a, a, 0.01); j.P != 1 || j.Ratio != 1 {
		t.Errorf("5,5,5 vs itself: %+v", j)
	}
	if j := JudgeExact([]float64{5}, b, 0.01); j.P != 1 || !math.IsNaN(j.Lo) {
		t.Errorf("one run a side decides nothing: %+v", j)
	}
}

func TestExactInterval(t *testing.T) {
	lo, hi := ExactInterval(fibCounts)
	if !(lo < 253398432 && hi > 253400923) || (hi-lo)/lo > 1e-4 {
		t.Errorf("interval [%g, %g]", lo, hi)
	}
	if lo, hi := ExactInterval([]float64{7}); lo != 0 || hi != 0 {
		t.Errorf("one run: [%g, %g], want none", lo, hi)
	}
}
