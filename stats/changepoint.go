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
// Two alternatives are tested, in order. First the split whose right side
// runs to the segment's end (MongoDB's and Otava's simplification): a shift
// that lasts, what a regression at the end of a history is. Only when that
// is not significant, the paper's search over the right side's end κ too:
// a regression that was fixed later (a bump), which with the right side
// running to the end was not found at 10 % over 10 of 40 runs. Each has its
// own permutation null (the shuffles' best split of the same kind). Tested
// alone, the search over κ costs power where it is not needed: the
// shuffles' best over every (τ, κ) is larger, and 8 runs then 4 at 5 % more
// whose every later run was above every earlier one read p 0.013-0.027
// (docs/notebook/measurements.md, "History"). Under "no change" the whole series is
// tested at most twice, so the chance that a stable series shows any change
// point is at most 2·alpha (1.5-1.7·alpha measured, 3000 stable normal
// series of 12 and of 50: the two statistics often agree).
//
// Hand-written: no module in reach (gonum included) has E-divisive or any
// change-point method; the permutation loop follows Judge's.

// ChangePoint is a significant split of a series.
type ChangePoint struct {
	Index int     // the first value after the shift (0-based)
	P     float64 // the permutation test's p-value
	Q     float64 // the energy statistic of the split
	// The segment [Lo, Hi) the split was tested in, and whether it was
	// tested as a bump (the right side's end searched too): what ChangeP
	// tests again.
	Lo, Hi int
	Bump   bool
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
// (docs/notebook/measurements.md, "History").
const (
	ChangeAlpha        = 0.02
	ChangeMinSize      = 3
	ChangePermutations = 999
	changeSeed         = 0x656469766973 // "edivis"
)

// WithDefaults is o with its zero fields set to the defaults.
func (o ChangeOptions) WithDefaults() ChangeOptions { return o.orDefaults() }

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
		sp := newSplitter(len(seg))
		end, bump := sp.best(seg, opts.MinSize)
		if end.tau < 0 {
			return
		}
		// The shift that lasts to the segment's end first; a bump only
		// when that is not significant and the bump is the better split.
		at, p, isBump := end, 1.0, false
		if end.q > 0 {
			p = splitP(seg, end.q, false, opts, segmentSeed(lo, hi))
		}
		if p >= opts.Alpha && bump.q > end.q*(1+1e-12) {
			at, p, isBump = bump, splitP(seg, bump.q, true, opts, segmentSeed(lo, hi)), true
		}
		if p >= opts.Alpha {
			return
		}
		out = append(out, ChangePoint{Index: lo + at.tau, P: p, Q: at.q, Lo: lo, Hi: hi, Bump: isBump})
		split(lo, lo+at.tau)
		split(lo+at.tau, hi)
	}
	split(0, len(xs))
	slices.SortFunc(out, func(a, b ChangePoint) int { return a.Index - b.Index })
	return out
}

// ChangeP tests change point c of xs again: the best split of its segment
// [c.Lo, c.Hi), of c's kind (a lasting shift or a bump), against its
// permutation null, with opts' Permutations and stopping as soon as p is
// known to lie above or below opts.Alpha: a finer p than the search's
// (whose 999 shuffles cannot tell 0.001 from less) for a threshold the
// search does not use, as a gate's over many series (history's). A caller
// may narrow the segment (a later Lo): the statistic is computed anew.
func ChangeP(xs []float64, c ChangePoint, opts ChangeOptions) float64 {
	opts = opts.orDefaults()
	if c.Lo < 0 || c.Hi > len(xs) || c.Hi-c.Lo < 2*opts.MinSize {
		return 1
	}
	seg := xs[c.Lo:c.Hi]
	end, bump := newSplitter(len(seg)).best(seg, opts.MinSize)
	q := end.q
	if c.Bump {
		q = bump.q
	}
	if !(q > 0) {
		return 1
	}
	return splitP(seg, q, c.Bump, opts, segmentSeed(c.Lo, c.Hi))
}

// segmentSeed seeds the shuffles of the segment [lo, hi): a result depends
// only on the series and the options.
func segmentSeed(lo, hi int) uint64 { return uint64(lo)<<32 | uint64(hi) }

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
// minSize), with its Q; τ = -1 when xs is too short to split.
func bestSplit(xs []float64, minSize int) (int, float64) {
	_, bump := newSplitter(len(xs)).best(xs, minSize)
	return bump.tau, bump.q
}

// cut is a candidate split τ with its statistic.
type cut struct {
	tau int
	q   float64
}

// splitter holds best's prefix sums, reused across shuffles.
type splitter struct{ rows []float64 }

func newSplitter(n int) *splitter { return &splitter{rows: make([]float64, n*(n+1))} }

// best returns two splits of xs: the best with the right side running to
// the end (a shift that lasts) and the best over every right end κ (a
// bump); τ = -1 when xs is too short to split. O(n²): with each value's
// prefix sums of distances to the values before it, every (τ, κ) costs O(1).
func (s *splitter) best(xs []float64, minSize int) (end, bump cut) {
	n := len(xs)
	end, bump = cut{-1, math.Inf(-1)}, cut{-1, math.Inf(-1)}
	if n < 2*minSize {
		return end, bump
	}
	// row(k)[j] = Σ_{i<j} |x_k - x_i|, j in 0..n.
	for k := 0; k < n; k++ {
		r := s.rows[k*(n+1) : (k+1)*(n+1)]
		r[0] = 0
		for j := 0; j < n; j++ {
			r[j+1] = r[j] + math.Abs(xs[k]-xs[j])
		}
	}
	return s.scan(n, minSize)
}

// bestOf is best over n values known by their distances: d[perm[k]][perm[j]]
// is the distance of the k-th value from the j-th.
func (s *splitter) bestOf(d [][]float64, perm []int, minSize int) (end, bump cut) {
	n := len(perm)
	if n < 2*minSize {
		return cut{-1, math.Inf(-1)}, cut{-1, math.Inf(-1)}
	}
	for k := 0; k < n; k++ {
		r, dk := s.rows[k*(n+1):(k+1)*(n+1)], d[perm[k]]
		r[0] = 0
		for j := 0; j < n; j++ {
			r[j+1] = r[j] + dk[perm[j]]
		}
	}
	return s.scan(n, minSize)
}

// scan finds best's two splits from the rows of prefix sums of distances.
func (s *splitter) scan(n, minSize int) (end, bump cut) {
	end, bump = cut{-1, math.Inf(-1)}, cut{-1, math.Inf(-1)}
	row := func(k int) []float64 { return s.rows[k*(n+1) : (k+1)*(n+1)] }
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
			q := energyQ(left, right, across, tau, kappa-tau)
			if q > bump.q {
				bump = cut{tau, q}
			}
			if kappa == n && q > end.q {
				end = cut{tau, q}
			}
		}
	}
	return end, bump
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
func splitP(xs []float64, q float64, bump bool, opts ChangeOptions, seed uint64) float64 {
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
		end, anyEnd := sp.best(ys, opts.MinSize)
		s := end.q
		if bump {
			s = anyEnd.q
		}
		// A shuffle that ties the observed split counts against it.
		if s >= q*(1-1e-12) {
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

// GroupedEndP is the permutation p of the best lasting shift (the right
// side running to the end) of a series whose values come in groups — an
// invocation's runs — with groups, not values, exchangeable: shuffles
// permute whole groups, so runs that share their invocation's machine
// state are never taken as independent, and the false-alarm rate is that
// of the invocations'. The distance of two groups is the mean distance of
// their values across (within one group: over its pairs); tau is the best
// split's index (-1 when too short). For the study of whether an
// invocation's runs add power over its fastest alone (history's recorded
// histories).
func GroupedEndP(groups [][]float64, opts ChangeOptions) (tau int, p float64) {
	opts = opts.orDefaults()
	n := len(groups)
	d := make([][]float64, n)
	for i := range d {
		d[i] = make([]float64, n)
		for j := range d[i] {
			sum, cnt := 0.0, 0
			for a, x := range groups[i] {
				for b, y := range groups[j] {
					if i == j && a >= b {
						continue
					}
					sum += math.Abs(x - y)
					cnt++
				}
			}
			if cnt > 0 {
				d[i][j] = sum / float64(cnt)
			}
		}
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	sp := newSplitter(n)
	end, _ := sp.bestOf(d, perm, opts.MinSize)
	if end.tau < 0 || !(end.q > 0) {
		return end.tau, 1
	}
	rng := rand.New(rand.NewPCG(changeSeed, segmentSeed(0, n)))
	limit := int(math.Ceil(opts.Alpha * float64(opts.Permutations+1)))
	at := 0
	for i := 1; i <= opts.Permutations; i++ {
		rng.Shuffle(n, func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
		if e, _ := sp.bestOf(d, perm, opts.MinSize); e.q >= end.q*(1-1e-12) {
			at++
			if at >= limit {
				return end.tau, float64(at+1) / float64(i+1)
			}
		}
	}
	return end.tau, float64(at+1) / float64(opts.Permutations+1)
}
