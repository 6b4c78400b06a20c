package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteQ is the energy statistic straight from its definition, for every τ.
func bruteQ(xs []float64, tau int) float64 {
	x, y := xs[:tau], xs[tau:]
	mean := func(a, b []float64, same bool) float64 {
		var s float64
		var n int
		for i := range a {
			for j := range b {
				if same && j <= i {
					continue
				}
				s += math.Abs(a[i] - b[j])
				n++
			}
		}
		if n == 0 {
			return 0
		}
		return s / float64(n)
	}
	a, b := float64(len(x)), float64(len(y))
	return a * b / (a + b) * (2*mean(x, y, false) - mean(x, x, true) - mean(y, y, true))
}

func TestBestSplitMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 6; n < 30; n += 5 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = rng.NormFloat64()
			if i > n/3 {
				xs[i] += 1.5
			}
		}
		for _, m := range []int{1, 2, 3} {
			tau, q := bestSplit(xs, m)
			wantTau, wantQ := -1, math.Inf(-1)
			for k := m; k <= n-m; k++ {
				for end := k + m; end <= n; end++ {
					if bq := bruteQ(xs[:end], k); bq > wantQ {
						wantTau, wantQ = k, bq
					}
				}
			}
			if tau != wantTau || math.Abs(q-wantQ) > 1e-9*math.Abs(wantQ) {
				t.Errorf("n=%d m=%d: best split %d (Q %g), by definition %d (Q %g)", n, m, tau, q, wantTau, wantQ)
			}
		}
	}
	if tau, _ := bestSplit([]float64{1, 2, 3, 4, 5}, 3); tau != -1 {
		t.Errorf("5 values cannot be split into two segments of 3; got τ=%d", tau)
	}
}

// noisy is n values around level with 1% normal noise.
func noisy(rng *rand.Rand, n int, level float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = level * (1 + 0.01*rng.NormFloat64())
	}
	return xs
}

func TestChangePointsFindsSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// 8 runs, then 5% slower for 4: one change point, at 8.
	xs := append(noisy(rng, 8, 100), noisy(rng, 4, 105)...)
	cps := ChangePoints(xs, ChangeOptions{})
	if len(cps) != 1 || cps[0].Index != 8 || cps[0].P >= ChangeAlpha {
		t.Fatalf("8 runs at 100 then 4 at 105: change points %+v, want one at 8", cps)
	}
	// None in the first 8 alone.
	if cps := ChangePoints(xs[:8], ChangeOptions{}); len(cps) != 0 {
		t.Errorf("8 runs at one level: change points %+v, want none", cps)
	}
	// Two steps, up then back down: both found.
	ys := append(append(noisy(rng, 15, 100), noisy(rng, 10, 110)...), noisy(rng, 15, 100)...)
	cps = ChangePoints(ys, ChangeOptions{})
	if len(cps) != 2 || cps[0].Index != 15 || cps[1].Index != 25 {
		t.Errorf("steps at 15 and 25: change points %+v", cps)
	}
	segs := Segments(len(ys), cps)
	if len(segs) != 3 || segs[0] != [2]int{0, 15} || segs[2] != [2]int{25, 40} {
		t.Errorf("segments %v", segs)
	}
}

// Under no change the whole series is tested at most twice at alpha (a
// lasting shift, then a bump): over many seeded stable series, the share
// with any change point stays within 2·alpha (binomial bounds at 99.9%).
func TestChangePointsFalseAlarms(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const series = 400
	alarms := 0
	for i := 0; i < series; i++ {
		if len(ChangePoints(noisy(rng, 50, 100), ChangeOptions{})) > 0 {
			alarms++
		}
	}
	if _, hi := BinomialRange(series, 2*ChangeAlpha, 0.999); int64(alarms) > hi {
		t.Errorf("%d of %d stable series of 50 show a change point; at 2·alpha %g at most %d expected", alarms, series, 2*ChangeAlpha, hi)
	}
	t.Logf("%d of %d stable series of 50 show a change point", alarms, series)
}

// GroupedEndP over groups of one value is the lasting-shift search over
// the values: the same split, and a clear step significant.
func TestGroupedEndPOfSingletonsIsTheSearch(t *testing.T) {
	xs := []float64{10, 11, 10, 12, 11, 10, 11, 15, 16, 15, 16, 15}
	gs := make([][]float64, len(xs))
	for i, x := range xs {
		gs[i] = []float64{x}
	}
	end, _ := newSplitter(len(xs)).best(xs, ChangeMinSize)
	tau, p := GroupedEndP(gs, ChangeOptions{})
	if tau != end.tau || tau != 7 || !(p < ChangeAlpha) {
		t.Errorf("GroupedEndP: split %d p %v; the search's split %d, want 7 with p below %v", tau, p, end.tau, ChangeAlpha)
	}
}
