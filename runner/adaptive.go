package runner

import (
	"math/rand/v2"
	"slices"

	"vbench/internal/results"
	"vbench/stats"
)

// Adaptive rounds. An A/B pair — a cell judged against another cell of the
// same run (modes.Spec.Against) — whose verdict is still undecided after its
// planned runs gets more rounds, a batch at a time, both cells interleaved
// in each round as before, until the verdict is decided or the pair reaches
// its MaxRuns. Undecided means not significant while the interval at
// 1 - alpha still reaches a change of min_change (stats.Judgement.Decided):
// neither "changed" nor "no change that counts" can be said yet. On a busy
// machine it is what lets a true 5% regression be caught without making
// every quiet run pay for the busy ones (BenchmarkDotNet likewise runs until
// its interval is narrow enough). The verdict itself is still the one rule,
// applied once at the end to all the runs; looking a few times before
// stopping adds little to its false alarms because a false "regressed"
// also needs the interval to reach min_change (docs/harness.md measures it).

// abPair is an A/B pair: NEW judged against OLD.
type abPair struct{ new, old *cellState }

// adaptive decides the extra rounds of a run's A/B pairs.
type adaptive struct {
	pairs            []abPair
	alpha, minChange float64
	rng              *rand.Rand
}

func newAdaptive(cells []*cellState, plan *Plan) *adaptive {
	a := &adaptive{alpha: plan.Suite.Alpha, minChange: plan.Suite.MinChange,
		rng: rand.New(rand.NewPCG(plan.Options.Seed, 0x6d6f7265))} // "more"
	byKey := map[string]*cellState{}
	for _, c := range cells {
		byKey[c.Key()] = c
	}
	for _, c := range cells {
		if against := c.Spec.Against; against != "" {
			if old := byKey[c.keyOf(against)]; old != nil {
				a.pairs = append(a.pairs, abPair{c, old})
			}
		}
	}
	return a
}

// next returns the next batch of launches: half the planned runs' worth of
// rounds (at least one) for every pair still undecided and below its cap,
// or nothing when every pair is settled.
func (a *adaptive) next() []step {
	var open []*cellState
	batch := 0
	for _, p := range a.pairs {
		if !a.undecided(p) {
			continue
		}
		for _, c := range []*cellState{p.new, p.old} {
			if !slices.Contains(open, c) {
				open = append(open, c)
			}
		}
		batch = max(batch, (p.new.Runs+1)/2)
	}
	var out []step
	for r := 0; r < batch; r++ {
		var round []*cellState
		for _, c := range open {
			if measured(c) < c.MaxRuns {
				round = append(round, c)
			}
		}
		a.rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		for _, c := range round {
			out = append(out, step{c, false})
		}
	}
	return out
}

// undecided reports whether a pair should get more runs: both cells
// healthy, both below their cap, and the verdict on their runs so far not
// decided.
func (a *adaptive) undecided(p abPair) bool {
	if p.new.failure != "" || p.old.failure != "" {
		return false
	}
	if measured(p.new) >= p.new.MaxRuns || measured(p.old) >= p.old.MaxRuns {
		return false
	}
	j := stats.Judge(values(p.old), values(p.new), a.alpha)
	return !j.Decided(a.alpha, a.minChange)
}

// values are a cell's measured runs in its metric, as the verdict sees them.
func values(c *cellState) []float64 { return c.runsSoFar().Values() }

// measured is how many measured runs the cell has.
func measured(c *cellState) int { return len(c.runsSoFar().Measured()) }

// runsSoFar is the cell's runs as a results cell, for its accessors.
func (c *cellState) runsSoFar() *results.Cell {
	return &results.Cell{Metric: c.Metric, Samples: c.samples}
}
