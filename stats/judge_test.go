package stats

import (
	"math"
	"testing"
)

func TestFastHalf(t *testing.T) {
	if got := FastHalf([]float64{1, 2, 3, 10}); got != 1.5 {
		t.Errorf("FastHalf of 4 = %v, want the mean of 1 and 2", got)
	}
	if got := FastHalf([]float64{1, 2, 3, 10, 50}); got != 2 {
		t.Errorf("FastHalf of 5 = %v, want the mean of 1, 2, 3", got)
	}
	if got := FastHalf([]float64{7}); got != 7 {
		t.Errorf("FastHalf of 1 = %v", got)
	}
}

func TestJudgeKnown(t *testing.T) {
	same := []float64{5, 1, 4, 2, 3, 6, 8, 7}
	j := Judge(same, same, 0.05)
	if j.Ratio != 1 || j.P != 1 || !(j.Lo <= 1 && 1 <= j.Hi) {
		t.Errorf("identical samples: %+v", j)
	}
	// Completely separated: only the observed split and its mirror are as
	// extreme, so p is about 2/C(10,5) = 2/252 (a Monte Carlo estimate).
	// Fast halves: mean(1,2,3) = 2 and mean(6,7,8) = 7.
	j = Judge([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0.05)
	if j.Ratio != 3.5 || j.P < 0.004 || j.P > 0.013 || math.Abs(j.MinP-2.0/252) > 1e-12 || !(j.Lo > 1) {
		t.Errorf("separated samples: %+v", j)
	}
	// Judge is a function of its inputs: the same samples, the same answer.
	if k := Judge([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0.05); k != j {
		t.Errorf("not reproducible: %+v then %+v", j, k)
	}
	// Ties, as a workload reporting a constant time gives: eight runs of 1.0
	// against eight of 1.2. Only the observed split and its mirror keep
	// every 1.2 out of the other side's fast half: p = 2/C(16,8).
	a, b := make([]float64, 8), make([]float64, 8)
	for i := range a {
		a[i], b[i] = 1, 1.2
	}
	if j := Judge(a, b, 0.01); j.Ratio != 1.2 || j.P > 0.001 || j.Lo != 1.2 || j.Hi != 1.2 {
		t.Errorf("constant samples 20%% apart: %+v", j)
	}
	if j := Judge(nil, []float64{1}, 0.05); j.P != 1 || !math.IsNaN(j.Ratio) {
		t.Errorf("empty side: %+v", j)
	}
	// One run a side: a ratio, no interval, no test that could fire.
	if j := Judge([]float64{1}, []float64{2}, 0.05); j.Ratio != 2 || !math.IsNaN(j.Lo) || j.MinP != 1 {
		t.Errorf("one run a side: %+v", j)
	}
}

func TestMinP(t *testing.T) {
	if p := minPUnpaired(5, 5); math.Abs(p-2.0/252) > 1e-12 {
		t.Errorf("minPUnpaired(5,5) = %v", p)
	}
	if p := minPUnpaired(10, 10); p > 1.1e-5 || p < 1.0e-5 {
		t.Errorf("minPUnpaired(10,10) = %v", p)
	}
	if minPUnpaired(1, 1) != 1 {
		t.Errorf("minPUnpaired(1,1) = %v", minPUnpaired(1, 1))
	}
	// The Monte Carlo test cannot show less than 1/(1+MorePermutations).
	if j := Judge(make([]float64, 20), make([]float64, 20), 0.05); j.MinP != 1.0/(1+MorePermutations) {
		t.Errorf("MinP of 20 vs 20 = %v", j.MinP)
	}
}
