//go:build vbenchstudy

package main

import (
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat"

	"vbench/stats"
)

// A rule judges B against A: the estimated ratio B/A, a 95% interval of it
// and a two-sided p-value (or, for the bootstrap-test rules, p 0 when their
// 1-alpha interval excludes 1, else 1).
type rule struct {
	name   string
	paired bool // needs A[k], B[k] from one round
	judge  func(rng *rand.Rand, a, b []float64, alpha float64) (ratio, lo, hi, p float64)
}

// estimator is a location estimate of a sorted sample.
type estimator struct {
	name string
	f    stats.Estimator
}

var estimators = []estimator{
	{"median", stats.Quantile(0.5)},
	{"p25", stats.Quantile(0.25)},
	{"p10", stats.Quantile(0.10)},
	{"min", func(s []float64) float64 { return s[0] }},
	{"trim20", func(s []float64) float64 { return trimmed(s, 0.2) }},
	{"fast half", stats.FastHalf},
}

// quantile is R's type 7 (linear interpolation between order statistics).
func quantile(s []float64, q float64) float64 {
	h := q * float64(len(s)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-lo)*(s[i+1]-s[i])
}

func trimmed(s []float64, frac float64) float64 {
	k := int(frac * float64(len(s)))
	return mean(s[k : len(s)-k])
}

func mean(s []float64) float64 {
	t := 0.0
	for _, x := range s {
		t += x
	}
	return t / float64(len(s))
}

const resamples = 1000

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

func sortedCopy(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s
}

// diff is est(B) - est(A) on logs: the log of the ratio.
func diff(e estimator, a, b, bufA, bufB []float64) float64 {
	copy(bufA, a)
	copy(bufB, b)
	sort.Float64s(bufA)
	sort.Float64s(bufB)
	return e.f(bufB) - e.f(bufA)
}

// permutation is vbench's own test (stats.JudgeWith) with estimator e:
// runs shuffled between the sides, and its 1-alpha bootstrap interval.
func permutation(e estimator) rule {
	return rule{name: e.name + ", permutation, unpaired", judge: func(_ *rand.Rand, a, b []float64, alpha float64) (float64, float64, float64, float64) {
		j := stats.JudgeWith(e.f, a, b, alpha)
		return j.Ratio, j.DecideLo, j.DecideHi, j.P
	}}
}

// bootstrap: the 1-alpha percentile interval of the log ratio, both sides
// resampled independently (unpaired) or by round (paired).
func bootstrap(e estimator, paired bool) rule {
	name := e.name + ", bootstrap, unpaired"
	if paired {
		name = e.name + ", bootstrap, paired"
	}
	return rule{name: name, paired: paired, judge: func(rng *rand.Rand, a, b []float64, alpha float64) (float64, float64, float64, float64) {
		la, lb := logs(a), logs(b)
		ba, bb := make([]float64, len(la)), make([]float64, len(lb))
		t := diff(e, la, lb, ba, bb)
		ra, rb := make([]float64, len(la)), make([]float64, len(lb))
		ts := make([]float64, resamples)
		for i := range ts {
			for k := range ra {
				j := rng.IntN(len(la))
				ra[k] = la[j]
				if paired {
					rb[k] = lb[j]
				}
			}
			if !paired {
				for k := range rb {
					rb[k] = lb[rng.IntN(len(lb))]
				}
			}
			ts[i] = diff(e, ra, rb, ba, bb)
		}
		sort.Float64s(ts)
		lo := stat.Quantile(alpha/2, stat.Empirical, ts, nil)
		hi := stat.Quantile(1-alpha/2, stat.Empirical, ts, nil)
		if lo > 0 || hi < 0 {
			return math.Exp(t), math.Exp(lo), math.Exp(hi), 0
		}
		return math.Exp(t), math.Exp(lo), math.Exp(hi), 1
	}}
}

// uTest is vbench's rule before this study: Mann-Whitney U (benchmath), ratio of medians.
var uTest = rule{name: "median, U test, unpaired", judge: func(_ *rand.Rand, a, b []float64, _ float64) (float64, float64, float64, float64) {
	c := stats.Compare(a, b)
	_, lo, hi := stats.RatioCI(b, a)
	return c.Ratio, lo, hi, c.P
}}

// signedRank is Wilcoxon's signed-rank test on the per-round log ratios
// (exact null distribution), with the median per-round ratio as estimate.
var signedRank = rule{name: "per-round ratio, signed-rank, paired", paired: true, judge: func(_ *rand.Rand, a, b []float64, _ float64) (float64, float64, float64, float64) {
	d := make([]float64, len(a))
	for k := range a {
		d[k] = math.Log(b[k] / a[k])
	}
	return math.Exp(quantile(sortedCopy(d), 0.5)), math.NaN(), math.NaN(), stats.SignedRankP(d)
}}

// rules lists every candidate the study evaluates.
func rules() []rule {
	out := []rule{uTest, signedRank}
	for _, e := range estimators {
		out = append(out, permutation(e), pairedSwap(e), bootstrap(e, false), bootstrap(e, true))
	}
	for _, e := range []estimator{estimators[0], {"mean", mean}, estimators[4]} {
		out = append(out, rounds(e))
	}
	return out
}
