package stats

import (
	"math"
	"sort"
	"sync"
)

// The Wilcoxon signed-rank test, its Hodges-Lehmann estimate and the
// interval that inverts it, exactly (no normal approximation, no resampling).
// (scripts/studies/noisestudy, which first measured this test on recorded noise, calls
// SignedRankP too.)
// The A/B rule (JudgePaired) uses them on the per-round log ratios of two
// cells that ran in the same rounds.
//
// Hand-written: neither gonum nor golang.org/x/perf has a signed-rank test
// (x/perf's benchmath has Mann-Whitney U, the unpaired relative).

// signedRank is the exact null distribution of W+ (the sum of the ranks of
// the positive differences) for n differences without ties or zeros: each
// of the 2^n sign patterns is equally likely.
type signedRank struct {
	n   int
	cdf []float64 // cdf[w] = P(W+ <= w), w = 0 … n(n+1)/2
}

var signedRanks sync.Map // n -> *signedRank

// signedRankOf returns (and caches) the distribution for n.
func signedRankOf(n int) *signedRank {
	if d, ok := signedRanks.Load(n); ok {
		return d.(*signedRank)
	}
	top := n * (n + 1) / 2
	// counts[w] = number of subsets of {1..k} summing to w, built up over k;
	// divided by 2 at each step so that it ends as a probability without
	// ever holding 2^n (exact in floating point up to n of about 1000).
	p := make([]float64, top+1)
	p[0] = 1
	for k := 1; k <= n; k++ {
		for w := k * (k + 1) / 2; w >= 0; w-- {
			v := p[w]
			if w >= k {
				v += p[w-k]
			}
			p[w] = v / 2
		}
	}
	cdf := make([]float64, top+1)
	acc := 0.0
	for w, x := range p {
		acc += x
		cdf[w] = acc
	}
	d := &signedRank{n: n, cdf: cdf}
	signedRanks.Store(n, d)
	return d
}

// SignedRankP is the exact two-sided p-value of the signed-rank test that
// the differences are symmetric about 0. Zeros are dropped (Wilcoxon's
// rule); tied magnitudes get their mean rank, and the null distribution is
// counted over those very ranks (doubled to stay integers), so it is exact
// with ties too. 1 when no difference is nonzero.
func SignedRankP(d []float64) float64 {
	var nz []float64
	for _, x := range d {
		if x != 0 && !math.IsNaN(x) {
			nz = append(nz, x)
		}
	}
	n := len(nz)
	if n == 0 {
		return 1
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return math.Abs(nz[idx[a]]) < math.Abs(nz[idx[b]]) })
	rank2 := make([]int, n) // twice the (mean) rank
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(nz[idx[j+1]]) == math.Abs(nz[idx[i]]) {
			j++
		}
		for k := i; k <= j; k++ {
			rank2[idx[k]] = i + j + 2
		}
		i = j + 1
	}
	total, w := 0, 0
	for i, x := range nz {
		total += rank2[i]
		if x > 0 {
			w += rank2[i]
		}
	}
	// p[s]: the share of the 2^n sign patterns whose positive ranks sum to
	// s, halved at each step so that it never holds 2^n.
	p := make([]float64, total+1)
	p[0] = 1
	for _, r := range rank2 {
		for s := total; s >= 0; s-- {
			v := p[s]
			if s >= r {
				v += p[s-r]
			}
			p[s] = v / 2
		}
	}
	tail := 0.0
	for s := 0; s <= min(w, total-w); s++ {
		tail += p[s]
	}
	return math.Min(1, 2*tail)
}

// MinSignedRankP is the smallest two-sided p-value the test can give n
// nonzero differences: every one of the same sign, 2/2^n.
func MinSignedRankP(n int) float64 { return math.Min(1, 2*math.Pow(2, -float64(n))) }

// walsh returns the sorted Walsh averages (d_i + d_j)/2, i <= j.
func walsh(d []float64) []float64 {
	n := len(d)
	w := make([]float64, 0, n*(n+1)/2)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	sort.Float64s(w)
	return w
}

// HodgesLehmann is the median of the Walsh averages: the shift the
// signed-rank test is about, robust to a few wild differences.
func HodgesLehmann(d []float64) float64 {
	if len(d) == 0 {
		return math.NaN()
	}
	return sortedMedian(walsh(d))
}

// SignedRankInterval is the distribution-free interval of the
// Hodges-Lehmann estimate at the given confidence: the k-th smallest and
// k-th largest Walsh averages, k from the exact signed-rank distribution
// of len(d) differences. ±Inf when len(d) is too small for that confidence.
func SignedRankInterval(d []float64, confidence float64) (lo, hi float64) {
	if len(d) == 0 {
		return math.NaN(), math.NaN()
	}
	return walshInterval(walsh(d), len(d), confidence)
}

// walshInterval is SignedRankInterval from the sorted Walsh averages w of
// n differences.
func walshInterval(w []float64, n int, confidence float64) (lo, hi float64) {
	dist := signedRankOf(n)
	// k is the largest count with P(W+ <= k-1) <= (1-confidence)/2: the
	// interval [w_(k), w_(N-k+1)] then covers with at least the confidence.
	tail := (1 - confidence) / 2
	k := 0
	for k < len(dist.cdf) && dist.cdf[k] <= tail {
		k++
	}
	if k == 0 {
		return math.Inf(-1), math.Inf(1)
	}
	return w[k-1], w[len(w)-k]
}
