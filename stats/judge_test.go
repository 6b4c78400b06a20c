package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"vbench/internal/results"
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
	// The Monte Carlo test cannot show less than 1/(1+Permutations).
	if j := Judge(make([]float64, 20), make([]float64, 20), 0.05); j.MinP != 1.0/(1+Permutations) {
		t.Errorf("MinP of 20 vs 20 = %v", j.MinP)
	}
}

// noisy draws n run times the way a shared machine gives them: a floor with
// 1% jitter, and in a third of the runs a delay of up to 60% (another
// process took the core).
func noisy(rng *rand.Rand, n int, scale float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		x := scale * (1 + 0.01*rng.NormFloat64())
		if rng.IntN(3) == 0 {
			x *= 1 + 0.6*rng.Float64()
		}
		xs[i] = x
	}
	return xs
}

// On heavy-tailed noise the permutation test keeps its level whatever the
// shape (A/A), and the fast half sees a 5% step that the tail hides from
// the median (A/B).
func TestJudgeOnHeavyTails(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 300 judgements")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const trials, alpha = 100, 0.05
	var falseAlarms, found, foundMedian int
	for i := 0; i < trials; i++ {
		if Judge(noisy(rng, 20, 1), noisy(rng, 20, 1), 0.05).P < alpha {
			falseAlarms++
		}
		a, b := noisy(rng, 20, 1), noisy(rng, 20, 1.05)
		if j := Judge(a, b, 0.05); j.P < alpha && j.Ratio > 1 {
			found++
		}
		if j := JudgeWith(Quantile(0.5), a, b, 0.05); j.P < alpha && j.Ratio > 1 {
			foundMedian++
		}
	}
	t.Logf("A/A false alarms %d/%d; 5%% found %d/%d (median: %d)", falseAlarms, trials, found, trials, foundMedian)
	// Binomial(100, 0.05) stays under 12 with probability > 0.99.
	if falseAlarms > 11 {
		t.Errorf("A/A: %d/%d at alpha %g", falseAlarms, trials, alpha)
	}
	if found < trials*9/10 || found <= foundMedian {
		t.Errorf("5%% step found %d/%d times by the fast half, %d by the median", found, trials, foundMedian)
	}
}

// The verdict: significant, and not shown (by the 1-alpha interval) to be
// smaller than the minimum change.
func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		j    Judgement
		want string
	}{
		{Judgement{P: 0.001, Ratio: 1.04, DecideLo: 1.03, DecideHi: 1.06}, results.VerdictRegressed}, // could be 6%: counts
		{Judgement{P: 0.001, Ratio: 1.04, DecideLo: 1.035, DecideHi: 1.049}, results.VerdictSame},    // shown under 5%
		{Judgement{P: 0.02, Ratio: 1.20, DecideLo: 0.99, DecideHi: 1.40}, results.VerdictSame},       // not significant
		{Judgement{P: 0.001, Ratio: 0.96, DecideLo: 0.94, DecideHi: 0.97}, results.VerdictImproved},
		{Judgement{P: 0.001, Ratio: 0.96, DecideLo: 0.955, DecideHi: 0.97}, results.VerdictSame},
		// Too few runs for an interval: significance and direction decide.
		{Judgement{P: 0.001, Ratio: 1.01, DecideLo: math.NaN(), DecideHi: math.NaN()}, results.VerdictRegressed},
	} {
		if got := c.j.Verdict(0.01, 0.05); got != c.want {
			t.Errorf("%+v: %s, want %s", c.j, got, c.want)
		}
	}
}

// Decided: a verdict that more runs could still change is undecided.
func TestDecided(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		j    Judgement
		want bool
	}{
		{Judgement{P: 0.001, Ratio: 1.04, DecideLo: 1.03, DecideHi: 1.06}, true},   // regressed
		{Judgement{P: 0.001, Ratio: 1.04, DecideLo: 1.035, DecideHi: 1.049}, true}, // significant, shown under 5%
		{Judgement{P: 0.3, Ratio: 1.00, DecideLo: 0.97, DecideHi: 1.03}, true},     // no change that counts
		{Judgement{P: 0.02, Ratio: 1.07, DecideLo: 0.99, DecideHi: 1.15}, false},   // could be a regression
		{Judgement{P: 0.5, Ratio: 1.00, DecideLo: 0.96, DecideHi: 1.05}, false},    // could be 5%
		{Judgement{P: 0.5, Ratio: 1.00, DecideLo: 0.95, DecideHi: 1.04}, false},    // could be -5%
		{Judgement{P: 1, Ratio: 1.00, DecideLo: nan, DecideHi: nan}, false},        // too few runs
	} {
		if got := c.j.Decided(0.01, 0.05); got != c.want {
			t.Errorf("%+v: decided %v, want %v", c.j, got, c.want)
		}
	}
}
