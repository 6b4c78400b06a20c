package stats

import (
	"testing"
)

// DiffCI's interval covers a known difference of medians about 95% of the
// time (the overhead's RatioCI is checked the same way).
func TestDiffCICoverage(t *testing.T) {
	rng := newBootstrapRand()
	hits, n := 0, 200
	for i := 0; i < n; i++ {
		a, b := make([]float64, 15), make([]float64, 15)
		for k := range a {
			a[k] = 105 + 10*rng.NormFloat64()
			b[k] = 100 + 10*rng.NormFloat64()
		}
		if _, lo, hi := DiffCI(a, b); lo <= 5 && 5 <= hi {
			hits++
		}
	}
	if c := float64(hits) / float64(n); c < 0.88 || c > 0.995 {
		t.Errorf("coverage %.3f over %d experiments, want about 0.95", c, n)
	}
}
