package runner

import "math/rand/v2"

// step is one launch of the schedule.
type step struct {
	cell   *cellState
	warmup bool
	// round numbers the measured rounds from 1 (0 for warmups): the runs of
	// an A/B pair are paired by it (results.Run.Round).
	round int
}

// schedule orders every launch: all warmups first, then the measured runs in
// rounds; each round runs every cell that still needs a run once, in a fresh
// random order (seeded), so slow drift and periodic noise hit all modes and
// workloads alike instead of piling up on whichever ran last.
func schedule(cells []*cellState, seed uint64) []step {
	rng := rand.New(rand.NewPCG(seed, 0x76626e6368))
	var out []step
	rounds := func(count func(*cellState) int, warmup bool) {
		for r := 0; ; r++ {
			var round []*cellState
			for _, c := range cells {
				if r < count(c) {
					round = append(round, c)
				}
			}
			if len(round) == 0 {
				return
			}
			rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
			n := 0 // warmups have no round
			if !warmup {
				n = r + 1
			}
			for _, c := range round {
				out = append(out, step{c, warmup, n})
			}
		}
	}
	rounds(func(c *cellState) int { return c.Warmup }, true)
	rounds(func(c *cellState) int { return c.Runs }, false)
	return out
}

// lastRound is the number of the schedule's last measured round (0 when it
// has none): where adaptive rounds go on numbering.
func lastRound(order []step) int {
	last := 0
	for _, st := range order {
		last = max(last, st.round)
	}
	return last
}
