package runner

import (
	"math/rand/v2"
	"slices"
)

// step is one launch of the schedule.
type step struct {
	cell   *cellState
	warmup bool
	// round numbers the measured rounds from 1 (0 for warmups): the runs of
	// an A/B pair are paired by it (results.Run.Round).
	round int
	// why is a counted cell's extra launch for its instruction profile
	// (why.go): not a measured run.
	why bool
	// noR2R: the why launch runs without precompiled code (whySteps).
	noR2R bool
}

// How a round orders its launches (Options.Schedule).
const (
	// SchedulePairs (the default) runs the cells of an A/B pair back to
	// back, counterbalanced within the pair (roundOrder), and the pairs (and the
	// cells of no pair) in a random order: a burst of a neighbour's load
	// then mostly lands on both sides of a pair, which the paired test
	// divides out. Measured under scripts/neighbour.sh: docs/notebook/measurements.md.
	SchedulePairs = "pairs"
	// ScheduleShuffle runs every cell of a round in one random order, so
	// the two sides of a pair are as far apart as any two cells (the
	// schedule before issue 40; kept to measure the difference).
	ScheduleShuffle = "shuffle"
)

// Schedules are the values Options.Schedule takes ("" is SchedulePairs).
var Schedules = []string{SchedulePairs, ScheduleShuffle}

// unit is what a round keeps together: the cells of one A/B pair (or of
// pairs sharing a cell, e.g. two modes judged against one), or one cell.
type unit []*cellState

// units groups cells for a round: with SchedulePairs, the connected
// components of the pairs (in the order of their first cell); otherwise,
// and for cells of no pair, one cell each.
func units(cells []*cellState, pairs []abPair, how string) []unit {
	group := map[*cellState]int{}
	for i, c := range cells {
		group[c] = i
	}
	if how != ScheduleShuffle {
		// Union of the pairs' cells: relabel every cell of the larger label.
		for _, p := range pairs {
			a, b := group[p.new], group[p.old]
			if a == b {
				continue
			}
			lo, hi := min(a, b), max(a, b)
			for c, g := range group {
				if g == hi {
					group[c] = lo
				}
			}
		}
	}
	var out []unit
	at := map[int]int{}
	for _, c := range cells {
		g := group[c]
		i, ok := at[g]
		if !ok {
			i = len(out)
			at[g] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], c)
	}
	return out
}

// leads counts, per cell, the measured rounds in which it ran first of its
// unit; nil for rounds that are not measured (warmups).
type leads map[*cellState]int

// roundOrder is one round's launches: the cells of us that want a run
// (want), the units in a random order and the cells of each in a random
// order, counterbalanced: the cell that has led its unit least (by led)
// goes first, ties drawn at random, so over every two rounds each side of
// a pair runs first once. Under load the first and the second run of a
// pair need not cost alike; a coin flip per round from a fixed seed can
// give one side the first place in, say, 15 of 25 rounds, and that
// position effect then reads as a change (an A/A pair judged improved,
// ratio 0.970, under a clean-clone CI run's load); balanced, it cancels.
// Units of one cell draw nothing from rng for their inside, so a schedule
// of single cells is the one ScheduleShuffle always made.
func roundOrder(rng *rand.Rand, us []unit, want func(*cellState) bool, led leads) []*cellState {
	var round []unit
	for _, u := range us {
		var in unit
		for _, c := range u {
			if want(c) {
				in = append(in, c)
			}
		}
		if len(in) > 0 {
			round = append(round, in)
		}
	}
	rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
	var out []*cellState
	for _, u := range round {
		rng.Shuffle(len(u), func(i, j int) { u[i], u[j] = u[j], u[i] })
		if led != nil && len(u) > 1 {
			slices.SortStableFunc(u, func(a, b *cellState) int { return led[a] - led[b] })
			led[u[0]]++
		}
		out = append(out, u...)
	}
	return out
}

// planned yields the planned launches one round at a time: all warmups
// first, then the measured runs in rounds; each round runs every cell that
// still needs a run once, in a fresh random order (seeded), so slow drift
// and periodic noise hit all modes and workloads alike instead of piling up
// on whichever ran last; the cells of a unit (an A/B pair, with
// SchedulePairs) run back to back. Round by round, not all up front: a
// suite's every launch listed before the first ran held memory in
// proportion to its runs (runs: 1000000000 grew to 24 GB, printing
// nothing). led is which cell of each unit ran first how often: where
// adaptive rounds take up the counterbalancing.
type planned struct {
	rng    *rand.Rand
	us     []unit
	cells  []*cellState
	led    leads
	warmup bool
	r      int // the next round's index in its phase
}

func newPlanned(cells []*cellState, us []unit, seed uint64) *planned {
	return &planned{rng: rand.New(rand.NewPCG(seed, 0x76626e6368)), us: us, cells: cells, led: leads{}, warmup: true}
}

// next is the next round's launches; nil once the planned rounds are done.
func (p *planned) next() []step {
	for {
		count := func(c *cellState) int { return c.Runs }
		l := p.led
		if p.warmup {
			count, l = func(c *cellState) int { return c.Warmup }, nil
		}
		r := p.r
		round := roundOrder(p.rng, p.us, func(c *cellState) bool { return r < count(c) }, l)
		p.r++
		if len(round) == 0 {
			if !p.warmup {
				p.r-- // done: stay done
				return nil
			}
			p.warmup, p.r = false, 0
			continue
		}
		n := 0 // warmups have no round
		if !p.warmup {
			n = r + 1
		}
		out := make([]step, len(round))
		for i, c := range round {
			out[i] = step{cell: c, warmup: p.warmup, round: n}
		}
		return out
	}
}

// total is the number of planned launches.
func (p *planned) total() int {
	n := 0
	for _, c := range p.cells {
		n += c.Warmup + c.Runs
	}
	return n
}

// lastRound is the number of the last planned measured round (0 when there
// is none): where adaptive rounds go on numbering.
func (p *planned) lastRound() int {
	last := 0
	for _, c := range p.cells {
		last = max(last, c.Runs)
	}
	return last
}

// schedule is every planned launch at once (tests look at the whole).
func schedule(cells []*cellState, us []unit, seed uint64) (out []step, led leads) {
	p := newPlanned(cells, us, seed)
	for st := p.next(); st != nil; st = p.next() {
		out = append(out, st...)
	}
	return out, p.led
}
