package stats

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// The resampling loops (bootstrap, permutation test) used to sort each
// resample: O(n log n) a draw, 44,000 draws a test, so a cell of 20,000
// runs took minutes to judge. A resample's values are the sample's; sorted
// once, with each value's rank, a draw can lay its values out in order by
// rank in O(n). The sorted resample is the same, value for value, so every
// estimate and p-value is unchanged.

// ranked is a sample sorted once: rank[i] is the position of the sample's
// i-th value in sorted, which orders like sort.Float64s (NaNs first).
type ranked struct {
	sorted []float64
	rank   []int32
}

func rankOf(xs []float64) ranked {
	order := make([]int32, len(xs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(xs[a], xs[b]) })
	r := ranked{sorted: make([]float64, len(xs)), rank: make([]int32, len(xs))}
	for pos, i := range order {
		r.sorted[pos] = xs[i]
		r.rank[i] = int32(pos)
	}
	return r
}

// resampler draws bootstrap resamples of one sample, sorted.
type resampler struct {
	ranked
	counts []int32   // draws of each rank
	buf    []float64 // the resample, with room for spill (draw)
}

// spill is how many copies of a value draw writes whatever its count: a
// rank is drawn 0 to 3 times but 2% of the time, so writing 3 and advancing
// by the count spares a branch per copy that a coin would decide.
const spill = 3

func newResampler(src []float64) *resampler {
	return &resampler{ranked: rankOf(src), counts: make([]int32, len(src)), buf: make([]float64, len(src)+spill)}
}

// draw returns len(sample) values of the sample drawn with replacement,
// sorted, valid until the next draw: the draws resample made (one rng.IntN
// each, in the same order), counted by rank and laid out instead of sorted.
func (r *resampler) draw(rng *rand.Rand) []float64 {
	clear(r.counts)
	n := len(r.rank)
	for range n {
		r.counts[r.rank[rng.IntN(n)]]++
	}
	j, dst := 0, r.buf
	for pos, c := range r.counts {
		x := r.sorted[pos]
		dst[j], dst[j+1], dst[j+2] = x, x, x
		for k := spill; k < int(c); k++ {
			dst[j+k] = x
		}
		j += int(c)
	}
	return dst[:n]
}

// permuter shuffles two samples' pooled values between them, as
// rng.Shuffle on the pool did (the same calls, so the same splits), and
// gives each side sorted without sorting: the pool's indices are shuffled
// and each side's values read off the pool in sorted order.
type permuter struct {
	ranked
	idx []int32 // the pool's indices in their shuffled order
	inA []uint8 // by rank: 1 when the value went to the first side
	na  int
	// a and b have room for one value more than their side: shuffle
	// writes each value to both and advances one (no branch to mispredict
	// on a coin flip per value).
	a, b []float64
}

func newPermuter(a, b []float64) *permuter {
	pool := append(append([]float64(nil), a...), b...)
	p := &permuter{ranked: rankOf(pool), idx: make([]int32, len(pool)), inA: make([]uint8, len(pool)),
		na: len(a), a: make([]float64, len(a)+1), b: make([]float64, len(b)+1)}
	for i := range p.idx {
		p.idx[i] = int32(i)
	}
	return p
}

// shuffle splits the pool anew; the sides, sorted, are len(a) and len(b)
// long and valid until the next shuffle.
func (p *permuter) shuffle(rng *rand.Rand) ([]float64, []float64) {
	// rng.Shuffle's Fisher-Yates, its draws one IntN each, without a call
	// through its swap function per value.
	idx := p.idx
	for i := len(idx) - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		idx[i], idx[j] = idx[j], idx[i]
	}
	clear(p.inA)
	for _, i := range p.idx[:p.na] {
		p.inA[p.rank[i]] = 1
	}
	ia, ib := 0, 0
	a, b := p.a, p.b
	for pos, x := range p.sorted {
		f := int(p.inA[pos])
		a[ia], b[ib] = x, x
		ia += f
		ib += 1 - f
	}
	return a[:ia], b[:ib]
}
