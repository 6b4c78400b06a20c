//go:build vbenchstudy

package main

import (
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat"

	"vbench/stats"
)

// The paired candidates: within one run sample k of each side ran in round
// k, so a test may swap the two runs of a round instead of shuffling all
// runs. vbench does not ship these (the study found no gain once the
// metric is CPU time), so they live here, next to the study that measured
// them. Same permutation count, seed scheme and interval as stats.Judge.

// pairedSwap judges the ratio of est(B)/est(A) with within-round swaps and
// a bootstrap of rounds.
func pairedSwap(e estimator) rule {
	return rule{name: e.name + ", permutation, paired", paired: true, judge: func(_ *rand.Rand, a, b []float64, alpha float64) (float64, float64, float64, float64) {
		rng := rand.New(rand.NewPCG(7, uint64(len(a))))
		ba, bb := make([]float64, len(a)), make([]float64, len(b))
		ratio := func(x, y []float64) float64 {
			copy(ba, x)
			copy(bb, y)
			sort.Float64s(ba)
			sort.Float64s(bb)
			return e.f(bb) / e.f(ba)
		}
		t := math.Abs(math.Log(ratio(a, b)))
		pa, pb := make([]float64, len(a)), make([]float64, len(b))
		hits := 0
		for i := 0; i < stats.Permutations; i++ {
			for k := range a {
				if rng.IntN(2) == 0 {
					pa[k], pb[k] = a[k], b[k]
				} else {
					pa[k], pb[k] = b[k], a[k]
				}
			}
			if math.Abs(math.Log(ratio(pa, pb))) >= t*(1-1e-12) {
				hits++
			}
		}
		rs := make([]float64, stats.BootstrapResamples)
		for i := range rs {
			for k := range pa {
				j := rng.IntN(len(a))
				pa[k], pb[k] = a[j], b[j]
			}
			rs[i] = ratio(pa, pb)
		}
		lo, hi := interval(rs, 1-alpha)
		return ratio(a, b), lo, hi, float64(1+hits) / float64(1+stats.Permutations)
	}}
}

// rounds judges the per-round ratios: the estimate is exp(est(log(B[k]/A[k]))),
// the test flips the sign of each round's log ratio at random, the interval
// resamples rounds. What a round shares cancels in its ratio.
func rounds(e estimator) rule {
	return rule{name: e.name + " of per-round ratios, sign flips, paired", paired: true, judge: func(_ *rand.Rand, a, b []float64, alpha float64) (float64, float64, float64, float64) {
		rng := rand.New(rand.NewPCG(7, uint64(len(a))))
		d := make([]float64, len(a))
		for k := range d {
			d[k] = math.Log(b[k] / a[k])
		}
		buf := make([]float64, len(d))
		at := func(xs []float64) float64 {
			copy(buf, xs)
			sort.Float64s(buf)
			return e.f(buf)
		}
		t := at(d)
		flipped := make([]float64, len(d))
		hits := 0
		for i := 0; i < stats.Permutations; i++ {
			for k, x := range d {
				if rng.IntN(2) == 0 {
					x = -x
				}
				flipped[k] = x
			}
			if math.Abs(at(flipped)) >= math.Abs(t)*(1-1e-12) {
				hits++
			}
		}
		rs := make([]float64, stats.BootstrapResamples)
		for i := range rs {
			for k := range flipped {
				flipped[k] = d[rng.IntN(len(d))]
			}
			rs[i] = math.Exp(at(flipped))
		}
		lo, hi := interval(rs, 1-alpha)
		return math.Exp(t), lo, hi, float64(1+hits) / float64(1+stats.Permutations)
	}}
}

// interval is the percentile interval at level of resampled ratios.
func interval(rs []float64, level float64) (lo, hi float64) {
	sort.Float64s(rs)
	a := (1 - level) / 2
	return stat.Quantile(a, stat.Empirical, rs, nil), stat.Quantile(1-a, stat.Empirical, rs, nil)
}
