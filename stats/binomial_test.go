package stats

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Quantiles computed independently and exactly (sums of binomial terms in
// rational arithmetic, in Python): Binomial(100, 0.5) puts
// 0.0033 on <= 36 and 0.0060 on <= 37, so 37 is the first count past the
// lower 0.5%, and 63 the first to reach 99.5%.
func TestBinomialRangeKnownQuantiles(t *testing.T) {
	for _, c := range []struct {
		n      int64
		p      float64
		lo, hi int64
	}{
		{100, 0.5, 37, 63},
		{1000, 0.25, 215, 286},
		{20, 0.1, 0, 6},
		{1, 0.5, 0, 1},
		{50, 0, 0, 0},
		{50, 1, 50, 50},
	} {
		lo, hi := BinomialRange(c.n, c.p, 0.99)
		if lo != c.lo || hi != c.hi {
			t.Errorf("BinomialRange(%d, %g, 0.99) = [%d, %d], want [%d, %d]", c.n, c.p, lo, hi, c.lo, c.hi)
		}
	}
}

// Drawn from the distribution itself, a count falls outside the range about
// 1% of the time, never much more: the range is not too tight.
func TestBinomialRangeCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, c := range []struct {
		n int64
		p float64
	}{{40, 0.5}, {300, 0.25}, {5000, 0.7}} {
		lo, hi := BinomialRange(c.n, c.p, 0.99)
		b := distuv.Binomial{N: float64(c.n), P: c.p, Src: rng}
		out := 0
		const draws = 20000
		for i := 0; i < draws; i++ {
			if k := int64(b.Rand()); k < lo || k > hi {
				out++
			}
		}
		// At most 1% by construction (less for small n: counts are discrete);
		// 1.5% leaves room for the draws' own noise (sd ~0.07%).
		if frac := float64(out) / draws; frac > 0.015 || frac < 0.002 {
			t.Errorf("n=%d p=%g: %.2f%% of draws outside [%d, %d], want about 1%%", c.n, c.p, 100*frac, lo, hi)
		}
	}
}
