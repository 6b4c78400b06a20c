package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Change points: where a series (one value per appended run, in the order
// the runs were appended) shifts for good. The method is E-divisive means
// (Matteson and James, "A nonparametric approach for multiple change point
// analysis of multivariate data", JASA 2014), the method MongoDB's and
// Apache Otava's performance histories use (arXiv 2003.00584, 2301.03034),
// with its permutation test of significance:
//
//   - a segment's best split τ maximises the energy statistic
//     Q(τ) = n1·n2/(n1+n2) · (2·mean|x-y| − mean|x-x'| − mean|y-y'|),
//     x before τ and y from τ on: the energy distance between the two
//     sides, which is zero only when they have the same distribution, so a
//     shift in level, spread or shape all count and nothing is assumed of
//     the noise;
//   - the split is significant when few shuffles of the segment's values
//     reach its Q (the shuffled series' best split, so the search over τ is
//     part of the null): p = (1 + shuffles at or above) / (1 + shuffles);
//   - a significant split cuts the segment in two and each half is searched
//     again; a segment with no significant split is stable.
//
// As in the paper, the right side's end κ is searched too (not fixed at the
// segment's end, as MongoDB's and Otava's simplification does): a
// regression that is fixed later (a bump) is found, which with the right
// side running to the end it was not at 10 % over 10 of 40 runs. Under "no
// change" the whole series is tested once, so the chance that a stable
// series shows any change point is alpha.
//
// Hand-written: no module in reach (gonum included) has E-divisive or any
// change-point method; the permutation loop follows Judge's.

// ChangePoint is a significant split of a series.
type ChangePoint struct {
	Index int     // the first value after the shift (0-based)
	P     float64 // the permutation test's p-value
	Q     float64 // the energy statistic of the split
}

// ChangeOptions tune ChangePoints. Zero fields take the defaults below.
type ChangeOptions struct {
	Alpha float64 // significance level of each split (default ChangeAlpha)
	// MinSize is the fewest values a segment may have: a shift is reported
	// once MinSize values after it are in (default ChangeMinSize).
	MinSize      int
	Permutations int // shuffles per test (default ChangePermutations)
}

// Defaults of ChangeOptions: measured on recorded runs of this machine
// (docs/measurements.md, "History").
const (
	ChangeAlpha        = 0.01
	ChangeMinSize      = 3
	ChangePermutations = 999
	changeSeed         = 0x656469766973 // "edivis"
)

func (o ChangeOptions) orDefaults() ChangeOptions {
	if o.Alpha <= 0 {
		o.Alpha = ChangeAlpha
	}
	if o.MinSize <= 0 {
		o.MinSize = ChangeMinSize
	}
	if o.Permutations <= 0 {
		o.Permutations = ChangePermutations
	}
	return o
}

// ChangePoints finds the change points of xs, in index order. NaN values
// are not allowed (callers leave missing runs out). The result depends
// only on xs and opts: the shuffles are seeded by the segment.
func ChangePoints(xs []float64, opts ChangeOptions) []ChangePoint {
	opts = opts.orDefaults()
	var out []ChangePoint
	var split func(lo, hi int)
	split = func(lo, hi int) {
		seg := xs[lo:hi]
		tau, q := bestSplit(seg, opts.MinSize)
		if tau < 0 || !(q > 0) {
			return
		}
		p := splitP(seg, q, opts, uint64(lo)<<32|uint64(hi))
		if p >= opts.Alpha {
			return
		}
		out = append(out, ChangePoint{Index: lo + tau, P: p, Q: q})
		split(lo, lo+tau)
		split(lo+tau, hi)
	}
	split(0, len(xs))
	slices.SortFunc(out, func(a, b ChangePoint) int { return a.Index - b.Index })
	return out
}

// Segments are the stable stretches between change points: [start, end)
// index pairs covering 0..n.
func Segments(n int, cps []ChangePoint) [][2]int {
	var out [][2]int
	start := 0
	for _, c := range cps {
		out = append(out, [2]int{start, c.Index})
		start = c.Index
	}
	return append(out, [2]int{start, n})
}

// bestSplit returns the split τ maximising Q over xs, searching every
// right end κ of the right side too (τ in [minSize, n-minSize], κ - τ >=
// minSize), with its Q; τ = -1 when xs is too short to split. O(n²): with
// each value's prefix sums of distances to the values before it, every
// (τ, κ) costs O(1).
func bestSplit(xs []float64, minSize int) (int, float64) {
	return newSplitter(len(xs)).best(xs, minSize)
}

// splitter holds bestSplit's prefix sums, reused across shuffles.
type splitter struct{ rows []float64 }

func newSplitter(n int) *splitter { return &splitter{rows: make([]float64, n*(n+1))} }

func (s *splitter) best(xs []float64, minSize int) (int, float64) {
	n := len(xs)
	if n < 2*minSize {
		return -1, 0
	}
	// row(k)[j] = Σ_{i<j} |x_k - x_i|, j in 0..n.
	row := func(k int) []float64 { return s.rows[k*(n+1) : (k+1)*(n+1)] }
	for k := 0; k < n; k++ {
		r := row(k)
		r[0] = 0
		for j := 0; j < n; j++ {
			r[j+1] = r[j] + math.Abs(xs[k]-xs[j])
		}
	}
	best, bestQ := -1, math.Inf(-1)
	left := 0.0 // Σ over pairs within [0, τ)
	for tau := 1; tau <= n-minSize; tau++ {
		left += row(tau - 1)[tau-1]
		if tau < minSize {
			continue
		}
		right, across := 0.0, 0.0 // within [τ, κ), and between [0, τ) and it
		for kappa := tau + 1; kappa <= n; kappa++ {
			r := row(kappa - 1)
			right += r[kappa-1] - r[tau]
			across += r[tau]
			if kappa-tau < minSize {
				continue
			}
			if q := energyQ(left, right, across, tau, kappa-tau); q > bestQ {
				best, bestQ = tau, q
			}
		}
	}
	return best, bestQ
}

// energyQ is the scaled energy distance from the sums of distances within
// each side (over pairs) and across them.
func energyQ(left, right, across float64, n1, n2 int) float64 {
	a, b := float64(n1), float64(n2)
	e := 2 * across / (a * b)
	if n1 > 1 {
		e -= left / (a * (a - 1) / 2)
	}
	if n2 > 1 {
		e -= right / (b * (b - 1) / 2)
	}
	return a * b / (a + b) * e
}

// splitP is the permutation p-value of a best split with statistic q,
// computed sequentially (Besag and Clifford): it stops as soon as the
// answer is known either way. A split that enough shuffles reach cannot be
// significant: a stable segment costs a few dozen shuffles. A split that
// none of the first quickShuffles reaches is significant at p =
// 1/(quickShuffles+1), below any alpha above that; the chance that a
// stable segment does so is that p. Otherwise all Permutations run.
func splitP(xs []float64, q float64, opts ChangeOptions, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(changeSeed, seed))
	ys := slices.Clone(xs)
	sp := newSplitter(len(ys))
	limit := int(math.Ceil(opts.Alpha * float64(opts.Permutations+1)))
	quick := 0.0
	if q := 1 / float64(quickShuffles+1); q < opts.Alpha {
		quick = q
	}
	at := 0
	for i := 1; i <= opts.Permutations; i++ {
		rng.Shuffle(len(ys), func(a, b int) { ys[a], ys[b] = ys[b], ys[a] })
		// A shuffle that ties the observed split counts against it.
		if _, s := sp.best(ys, opts.MinSize); s >= q*(1-1e-12) {
			at++
			if at >= limit {
				return float64(at+1) / float64(i+1)
			}
		}
		if i == quickShuffles && at == 0 && quick > 0 {
			return quick
		}
	}
	return float64(at+1) / float64(opts.Permutations+1)
}

// quickShuffles: see splitP. A series of 300 runs with one shift takes
// 0.2 s instead of 1 s on this machine.
const quickShuffles = 199
