package timeline

import (
	"math"
	"sort"
)

// CatSample is the category of the slices a sampling engine's timeline is
// made of (see Slices).
const CatSample = "sample"

// A Sample is one stack a sampler took on a thread: the tick's time and the
// time it stands for before it (its weight, µs), its frames root first.
type Sample struct {
	Ts, Dur float64
	Stack   []string
}

// Slices turns one thread's samples into nested slices, as Chrome and
// Perfetto draw a sampled profile: a sample covers [Ts-Dur, Ts], started
// no earlier than the one before it ended; consecutive samples sharing a
// stack prefix extend the same slices, and a silence longer than gap
// (the thread did not run) ends them all. Every cut (a GC on the thread)
// ends them too, so that the thread's other slices and these nest. At
// most limit slices (< 0: no limit); used is how many samples they hold,
// in time order (the rest are the caller's to count as dropped).
func Slices(pid, tid int, samples []Sample, cuts []float64, gap float64, limit int) (ev []Event, used int) {
	sort.SliceStable(samples, func(i, j int) bool { return samples[i].Ts < samples[j].Ts })
	cuts = append([]float64(nil), cuts...)
	for i := range cuts {
		cuts[i] = Grid(cuts[i])
	}
	sort.Float64s(cuts)
	type open struct {
		name string
		at   int // its event, written when it opens: a parent before its children (Sort keeps them so at a tie)
	}
	var st []open
	// A slice ends 1 ns a level before at: a sibling starting at at, or a
	// parent ending there, never shares its end (speedscope's importer
	// pairs ends of equal times in file order and would nest them wrong).
	closeTo := func(k int, at float64) {
		for len(st) > k {
			e := &ev[st[len(st)-1].at]
			e.Dur = max(Grid(at-0.001*float64(len(st))-e.Ts), 0)
			st = st[:len(st)-1]
		}
	}
	// piece adds stack over [a, b]: the slices it shares stay open.
	piece := func(stack []string, a float64) bool {
		k := 0
		for k < len(st) && k < len(stack) && st[k].name == stack[k] {
			k++
		}
		if limit >= 0 && len(ev)+len(stack)-k > limit {
			return false
		}
		closeTo(k, a)
		for _, f := range stack[k:] {
			st = append(st, open{f, len(ev)})
			ev = append(ev, Event{Name: f, Cat: CatSample, Ph: "X", Ts: a, Pid: pid, Tid: tid})
		}
		return true
	}
	prev, ci := 0.0, 0
	for i, s := range samples {
		a, b := Grid(s.Ts-s.Dur), Grid(s.Ts)
		if i > 0 && a < prev {
			a = prev
		}
		a = min(max(a, 0), b)
		if i > 0 && a > prev+gap {
			closeTo(0, prev)
		}
		for ; ci < len(cuts) && cuts[ci] <= a; ci++ { // a cut since the last sample: its slices end before it
			closeTo(0, prev)
		}
		ok := piece(s.Stack, a)
		for ; ok && ci < len(cuts) && cuts[ci] < b; ci++ { // a cut inside the sample
			closeTo(0, cuts[ci])
			prev = cuts[ci]
			ok = piece(s.Stack, cuts[ci])
		}
		if !ok {
			break
		}
		prev, used = b, i+1
	}
	closeTo(0, prev)
	return ev, used
}

// Grid rounds µs to the file's precision (3 decimals), so that a slice's
// end is its start plus its duration as written. The slices a cut ends
// start on it: the cut's own slice (a GC) must be on it too, or a start a
// fraction of a ns later sorts it inside them.
func Grid(us float64) float64 { return math.Round(us*1e3) / 1e3 }
