package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// judgeSorting is JudgeWith as it was before resampler and permuter: every
// shuffle and every resample sorted. The reference the O(n) draws must
// agree with, bit for bit.
func judgeSorting(est Estimator, old, new []float64, alpha float64) Judgement {
	nan := math.NaN()
	j := Judgement{Ratio: nan, Lo: nan, Hi: nan, DecideLo: nan, DecideHi: nan, P: 1, MinP: 1}
	if len(old) == 0 || len(new) == 0 {
		return j
	}
	bo, bn := make([]float64, len(old)), make([]float64, len(new))
	estimates := func(o, n []float64) (eo, en float64) {
		copy(bo, o)
		copy(bn, n)
		sort.Float64s(bo)
		sort.Float64s(bn)
		return est(bo), est(bn)
	}
	ratio := func(o, n []float64) float64 { eo, en := estimates(o, n); return en / eo }
	diff := func(o, n []float64) float64 { eo, en := estimates(o, n); return en - eo }
	j.Ratio = ratio(old, new)
	j.MinP = math.Max(minPUnpaired(len(old), len(new)), 1/float64(1+MorePermutations))
	rng := rand.New(rand.NewPCG(judgeSeed, uint64(len(old))<<32|uint64(len(new))))
	observed := math.Abs(diff(old, new))
	if math.IsNaN(observed) {
		j.P = 1
	} else {
		pool := append(append([]float64(nil), old...), new...)
		hits, done := 0, 0
		shuffle := func(until int) {
			for ; done < until; done++ {
				rng.Shuffle(len(pool), func(a, b int) { pool[a], pool[b] = pool[b], pool[a] })
				if math.Abs(diff(pool[:len(old)], pool[len(old):])) >= observed*(1-1e-12) {
					hits++
				}
			}
		}
		shuffle(Permutations)
		if float64(1+hits)/float64(1+done) < alpha {
			shuffle(MorePermutations)
		}
		j.P = float64(1+hits) / float64(1+done)
	}
	if len(old) >= 2 && len(new) >= 2 {
		ro, rn := make([]float64, len(old)), make([]float64, len(new))
		rs := make([]float64, BootstrapResamples)
		for i := range rs {
			resampleSorting(rng, old, ro)
			resampleSorting(rng, new, rn)
			rs[i] = ratio(ro, rn)
		}
		sort.Float64s(rs)
		j.Lo, j.Hi = percentiles(rs, Confidence)
		j.DecideLo, j.DecideHi = percentiles(rs, 1-alpha)
	}
	return j
}

func resampleSorting(rng *rand.Rand, src, dst []float64) {
	for i := range dst {
		dst[i] = src[rng.IntN(len(src))]
	}
	sort.Float64s(dst)
}

func same(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// samples draws n run times from a few values (ties, as a coarse clock
// gives), or zeros (a kernel too short for the clock).
func samples(rng *rand.Rand, n int, scale float64, distinct int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = scale * float64(100+rng.IntN(distinct))
	}
	return xs
}

// The permutation test and the bootstraps give exactly what sorting every
// draw gave: the same p-values and intervals, bit for bit, with ties, one
// run a side, sides of zeros, a clear change (p below alpha: the finer
// permutations) and another estimator.
func TestResamplingSameAsSortingEveryDraw(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ests := map[string]Estimator{"fasthalf": FastHalf, "p25": Quantile(0.25)}
	for _, n := range [][2]int{{1, 1}, {1, 5}, {2, 2}, {3, 4}, {7, 7}, {12, 30}, {40, 40}} {
		for _, distinct := range []int{1, 3, 1000} {
			for _, shift := range []float64{1, 1.2} {
				old, new := samples(rng, n[0], 1, distinct), samples(rng, n[1], shift, distinct)
				if distinct == 1 && shift == 1 {
					old, new = make([]float64, n[0]), make([]float64, n[1]) // zeros
				}
				for name, est := range ests {
					got, want := JudgeWith(est, old, new, 0.05), judgeSorting(est, old, new, 0.05)
					if !same(got.Ratio, want.Ratio) || !same(got.P, want.P) || !same(got.MinP, want.MinP) ||
						!same(got.Lo, want.Lo) || !same(got.Hi, want.Hi) || !same(got.DecideLo, want.DecideLo) || !same(got.DecideHi, want.DecideHi) {
						t.Errorf("%s %d vs %d runs (%d values, ×%g): got %+v, sorting every draw gave %+v", name, n[0], n[1], distinct, shift, got, want)
					}
				}
				// The medians' bootstraps (RatioCI, DiffCI) likewise.
				if len(old) >= MinRunsForInterval && len(new) >= MinRunsForInterval {
					r, lo, hi := RatioCI(new, old)
					wr, wlo, whi := ratioCISorting(new, old)
					if !same(r, wr) || !same(lo, wlo) || !same(hi, whi) {
						t.Errorf("RatioCI %d vs %d runs: %v [%v, %v], sorting gave %v [%v, %v]", n[1], n[0], r, lo, hi, wr, wlo, whi)
					}
				}
			}
		}
	}
}

// ratioCISorting is RatioCI's bootstrap with every resample sorted.
func ratioCISorting(num, den []float64) (ratio, lo, hi float64) {
	ratio = Median(num) / Median(den)
	rng := newBootstrapRand()
	rs := make([]float64, BootstrapResamples)
	bn, bd := make([]float64, len(num)), make([]float64, len(den))
	for i := range rs {
		resampleSorting(rng, num, bn)
		resampleSorting(rng, den, bd)
		rs[i] = sortedMedian(bn) / sortedMedian(bd)
	}
	slices.Sort(rs)
	lo, hi = percentiles(rs, Confidence)
	if math.IsNaN(lo) || math.IsNaN(hi) || (lo == 0 && hi == 0) {
		return ratio, math.NaN(), math.NaN()
	}
	return ratio, lo, hi
}

// Judging two cells of n runs: 44,000 shuffles and 4,000 resamples of
// each side, O(n) each now (sorting each made 5,000 runs a cell 36 s).
func BenchmarkJudge(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{100, 5000} {
		old, new := samples(rng, n, 1, 100000), samples(rng, n, 1.05, 100000)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for range b.N {
				Judge(old, new, 0.05)
			}
		})
	}
}
