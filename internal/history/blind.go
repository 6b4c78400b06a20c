package history

import (
	"math"
	"sync"

	"vbench/stats"
)

// Blind is what CI's gate cannot judge yet in a series: a step in its
// newest Runs runs could not be found however clear it were, and Needs
// more runs make a step in any of them visible. Change points are found
// by permutation tests, whose smallest p is set by how many orders the
// runs have: 4 runs and then 3 slower, every one of them, are 1 order in
// C(7,3) = 35, and the search's p can never fall below its 0.02 (measured:
// the ideal step, below). A history of 4 invocations and 3 at +12% said
// "no series shifted for good" and nothing else; it says this now.
type Blind struct {
	Runs int `json:"runs"` // newest runs a step could start in and not be seen
	// Needs is how many more runs make the oldest of them that has the
	// runs before it a step needs findable (a step from the next run,
	// when none has): after Needs more, a step there at the latest is
	// seen.
	Needs int `json:"needs"`
}

// blindOf is series xs's Blind under the gate: the last stable stretch
// (from its last change point) is the segment a step at its end is
// searched in, at most gateSpan runs of it as the gate tests; level is the
// gate's threshold over its family (and the search's own alpha).
func blindOf(xs []float64, cps []stats.ChangePoint, opts stats.ChangeOptions, level float64) Blind {
	start := 0
	if len(cps) > 0 {
		start = cps[len(cps)-1].Index
	}
	L := min(len(xs)-start, gateSpan)
	m := opts.MinSize
	var b Blind
	b.Runs = L
	for j := m; j <= L-m; j++ {
		if visible(L, j, opts, level) {
			b.Runs = j - 1
			break
		}
	}
	// The oldest step among them that has the runs before it a step needs
	// (or, when none has, one from the next run): seen once enough runs
	// follow it.
	j := min(b.Runs, L-m)
	if j < m {
		j = 0
	}
	left := min(L-j, gateSpan)
	wait := max(m-left, 0) // a series too short for any step: runs at its level first
	for k := 1; k <= 4*gateSpan; k++ {
		if visible(left+wait+j+k, j+k, opts, level) {
			b.Needs = wait + k
			break
		}
	}
	return b
}

var visibleCache sync.Map // visibleKey → bool

type visibleKey struct {
	n, j         int
	alpha, level float64
	min          int
}

// visible reports whether the clearest step there is — n runs at one
// level and the last j a level above every one of them — is found at the
// step by the change-point search and passes the gate at level: the best
// any real step of j runs after n-j can do.
func visible(n, j int, opts stats.ChangeOptions, level float64) bool {
	if j < opts.MinSize || n-j < opts.MinSize {
		return false
	}
	key := visibleKey{n, j, opts.Alpha, level, opts.MinSize}
	if v, ok := visibleCache.Load(key); ok {
		return v.(bool)
	}
	xs := make([]float64, n)
	for i := n - j; i < n; i++ {
		xs[i] = 1
	}
	ok := false
	for _, c := range stats.ChangePoints(xs, opts) {
		if c.Index == n-j {
			refine := opts
			refine.Alpha = level
			refine.Permutations = max(opts.Permutations, min(int(math.Ceil(20/level)), 400000))
			ok = stats.ChangeP(xs, c, refine) <= level
		}
	}
	visibleCache.Store(key, ok)
	return ok
}
