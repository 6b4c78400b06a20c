package runner

import (
	"math/rand/v2"

	"vbench/internal/results"
	"vbench/internal/verdict"
	"vbench/stats"
)

// Adaptive rounds. An A/B pair — a cell judged against another cell of the
// same run (verdict.ReferenceKey: another mode's, or another workload's) — whose verdict is still undecided after its
// planned runs gets more rounds, both cells interleaved in each round as
// before, until the verdict is decided or the pair reaches its MaxRuns.
// The pair is looked at only at the run counts stats.Looks fixes before
// anything is measured (its planned runs, then half as many more at a
// time), and verdict.Undecided says whether to go on. Each look is another
// chance of a false alarm, so the verdict spends alpha over them
// (stats.SequentialP, in internal/verdict): adding runs never raises the
// false-alarm rate. On a busy machine it is what lets a true 5% regression
// be caught without making every quiet run pay for the busy ones
// (BenchmarkDotNet likewise runs until its interval is narrow enough).

// abPair is an A/B pair: NEW judged against OLD.
type abPair struct{ new, old *cellState }

// adaptive decides the extra rounds of a run's A/B pairs.
type adaptive struct {
	pairs []abPair
	done  map[abPair]bool // pairs once settled stay settled: a pair is never reopened
	opts  verdict.Options
	rng   *rand.Rand
	round int // the last round number given out
}

// newAdaptive finds the run's A/B pairs; round is the schedule's last
// measured round, after which adaptive rounds are numbered.
func newAdaptive(cells []*cellState, plan *Plan, round int) *adaptive {
	a := &adaptive{round: round, done: map[abPair]bool{}, opts: verdict.Options{Alpha: plan.Suite.Alpha, MinChange: plan.Suite.MinChange},
		rng: rand.New(rand.NewPCG(plan.Options.Seed, 0x6d6f7265))} // "more"
	byKey := map[string]*cellState{}
	for _, c := range cells {
		byKey[c.Key()] = c
	}
	pairs := newPairing(plan.Cells)
	for _, c := range cells {
		if k, ok := pairs.reference(&c.Cell); ok {
			if old := byKey[k]; old != nil {
				a.pairs = append(a.pairs, abPair{c, old})
			}
		}
	}
	return a
}

// next returns the next batch of launches: rounds up to the next look of
// every pair still undecided (each cell runs only up to its pair's next
// look), or nothing when every pair is settled.
func (a *adaptive) next() []step {
	target := map[*cellState]int{}
	var open []*cellState
	batch := 0
	for _, p := range a.pairs {
		if a.done[p] || !a.undecided(p) {
			a.done[p] = true
			continue
		}
		n := measured(p.new)
		look := nextLook(p.new, n)
		for _, c := range []*cellState{p.new, p.old} {
			if _, ok := target[c]; !ok {
				open = append(open, c)
			}
			target[c] = max(target[c], min(look, c.MaxRuns))
		}
		batch = max(batch, look-n)
	}
	var out []step
	for r := 0; r < batch; r++ {
		var round []*cellState
		for _, c := range open {
			if measured(c)+r < target[c] {
				round = append(round, c)
			}
		}
		a.rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		a.round++
		for _, c := range round {
			out = append(out, step{c, false, a.round})
		}
	}
	return out
}

// nextLook is the first of the cell's looks (stats.Looks) beyond n runs.
func nextLook(c *cellState, n int) int {
	for _, k := range stats.Looks(c.Runs, c.MaxRuns) {
		if k > n {
			return k
		}
	}
	return c.MaxRuns
}

// undecided reports whether a pair should get more runs: both cells
// healthy and the verdict on their runs so far not decided
// (verdict.Undecided, with the run's pairs as the family).
func (a *adaptive) undecided(p abPair) bool {
	if p.new.failure != "" || p.old.failure != "" {
		return false
	}
	old, new := verdict.Rounds(p.old.runsSoFar(), p.new.runsSoFar())
	return verdict.Undecided(old, new, p.new.Runs, p.new.MaxRuns, len(a.pairs), a.opts)
}

// measured is how many successful measured runs the cell has (results.Cell.Measured).
func measured(c *cellState) int { return len(c.runsSoFar().Measured()) }

// runsSoFar is the cell's runs as a results cell, for its accessors.
func (c *cellState) runsSoFar() *results.Cell {
	return &results.Cell{Metric: c.Metric, Samples: c.samples}
}
