package stats

import "gonum.org/v1/gonum/stat/distuv"

// BinomialRange is the central range of counts that n draws with success
// probability p fall in with probability at least level (e.g. 0.99): the
// smallest lo with P(X <= lo) > (1-level)/2 and the smallest hi with
// P(X <= hi) >= 1 - (1-level)/2, for X ~ Binomial(n, p) (gonum's CDF). A
// count outside [lo, hi] rejects p in an equal-tailed exact binomial test at
// 1-level. n must be at least 1 and p within [0, 1].
func BinomialRange(n int64, p, level float64) (lo, hi int64) {
	switch {
	case p <= 0:
		return 0, 0
	case p >= 1:
		return n, n
	}
	tail := (1 - level) / 2
	b := distuv.Binomial{N: float64(n), P: p}
	// The smallest k in [0, n] with CDF(k) past the target: CDF is
	// non-decreasing in k, so a binary search finds it.
	first := func(past func(cdf float64) bool) int64 {
		l, h := int64(0), n
		for l < h {
			m := l + (h-l)/2
			if past(b.CDF(float64(m))) {
				h = m
			} else {
				l = m + 1
			}
		}
		return l
	}
	lo = first(func(c float64) bool { return c > tail })
	hi = first(func(c float64) bool { return c >= 1-tail })
	return lo, hi
}
