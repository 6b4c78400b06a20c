package runner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"vbench/internal/results"
	"vbench/internal/verdict"
	"vbench/stats"
)

// Adaptive rounds. An A/B pair — a cell judged against another cell of the
// same run (results.File.ReferenceKey: another mode's, or another workload's) — whose verdict is still undecided after its
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
// Clear pairs stop at their planned runs; the rounds go to the undecided
// ones only, and with a budget (Options.Budget) no batch of rounds starts
// that the time left cannot pay for at the run's pace so far. Each pair's
// reason to stop is recorded (results.Cell.Stopped) and logged.

// abPair is an A/B pair: NEW judged against OLD.
type abPair struct{ new, old *cellState }

// adaptive decides the extra rounds of a run's A/B pairs.
type adaptive struct {
	pairs   []abPair
	family  int               // the run's time tests: its pairs and a baseline's (Plan.BaselineTests)
	units   []unit            // how a round keeps cells together (schedule.go)
	led     leads             // which side of each unit ran first how often (roundOrder)
	stopped map[abPair]string // why each settled pair stopped; a pair is never reopened
	opts    verdict.Options
	rng     *rand.Rand
	round   int // the last round number given out

	began    time.Time     // when the run began (its builds included): what the budget counts from
	start    time.Time     // when the measuring began: the pace is measured from it
	launched int           // launches given out so far
	budget   time.Duration // 0: none
	log      func(format string, args ...any)
}

// runPairs are the run's A/B pairs: each cell judged against another cell
// of the run, with that cell.
func runPairs(cells []*cellState, plan *Plan) []abPair {
	byKey := map[string]*cellState{}
	for _, c := range cells {
		byKey[c.Key()] = c
	}
	pairing := newPairing(plan.Cells)
	var out []abPair
	for _, c := range cells {
		if k, ok := pairing.reference(&c.Cell); ok {
			if old := byKey[k]; old != nil {
				out = append(out, abPair{c, old})
			}
		}
	}
	return out
}

// newAdaptive takes over after the planned rounds (of units) and their
// leads: its rounds are numbered after their last; began is when the run
// began.
func newAdaptive(pairs []abPair, us []unit, sched *planned, plan *Plan, env *Env, began time.Time) *adaptive {
	return &adaptive{pairs: pairs, family: len(pairs) + plan.BaselineTests, units: us, led: sched.led, round: sched.lastRound(), stopped: map[abPair]string{},
		opts:  verdict.Options{Alpha: plan.Suite.Alpha, MinChange: plan.Suite.MinChange, CountMinChange: plan.Suite.MinChangeInstructions},
		rng:   rand.New(rand.NewPCG(plan.Options.Seed, 0x6d6f7265)), // "more"
		began: began, start: time.Now(), launched: sched.total(), budget: plan.Options.Budget, log: env.logf}
}

// next returns the next batch of launches: rounds up to the next look of
// every pair still undecided (each cell runs only up to its pair's next
// look), or nothing when every pair is settled.
func (a *adaptive) next() []step {
	target := map[*cellState]int{}
	var open []abPair
	batch := 0
	for _, p := range a.pairs {
		if _, ok := a.stopped[p]; ok {
			continue
		}
		if why := a.stop(p); why != "" {
			a.settle(p, why)
			continue
		}
		open = append(open, p)
		n := measured(p.new)
		look := nextLook(p.new, n)
		for _, c := range []*cellState{p.new, p.old} {
			target[c] = max(target[c], min(look, c.MaxRuns))
		}
		batch = max(batch, look-n)
	}
	var out []step
	for r := 0; r < batch; r++ {
		a.round++
		for _, c := range roundOrder(a.rng, a.units, func(c *cellState) bool { _, ok := target[c]; return ok && measured(c)+r < target[c] }, a.led) {
			out = append(out, step{cell: c, round: a.round})
		}
	}
	if a.budget > 0 && len(out) > 0 && a.launched > 0 {
		need := time.Since(a.start) / time.Duration(a.launched) * time.Duration(len(out))
		if time.Since(a.began)+need+need/4+budgetReserve > a.budget {
			for _, p := range open {
				a.settle(p, fmt.Sprintf("out of time after %d rounds (the next look needed ~%s more of the %s budget)", measured(p.new), need.Round(time.Second), a.budget))
			}
			return nil
		}
	}
	a.launched += len(out)
	return out
}

// budgetReserve is the part of a budget no adaptive batch may use: the
// run's end (its results, profiles and reports written). A batch is also
// assumed a quarter slower than the run's pace so far, since on a busy
// machine the pace drifts: a quick-suite run under the neighbour with a
// budget of 8m took 486 s without either margin.
const budgetReserve = 10 * time.Second

// settle stops a pair for good, saying why.
func (a *adaptive) settle(p abPair, why string) {
	a.stopped[p] = why
	p.new.stopped = why
	a.log("%s: stopped: %s", p.new.Key(), why)
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

// stop is why a pair gets no more rounds, or "" when it should get more:
// a side failed, or the verdict on its runs so far is decided (the
// verdict.JudgePair of its rounds, with the run's time tests as the family:
// verdict.Undecided's rule), or it reached its cap.
func (a *adaptive) stop(p abPair) string {
	opts := a.opts.ForMetric(p.new.Metric)
	if p.new.failure != "" || p.old.failure != "" {
		return "a side failed"
	}
	old, new := verdict.Rounds(p.old.runsSoFar(), p.new.runsSoFar())
	n := len(new)
	v := verdict.JudgePair(old, new, p.new.Runs, p.new.MaxRuns, a.family, opts)
	at := fmt.Sprintf("after %d rounds", n)
	if n == p.new.Runs {
		at = fmt.Sprintf("at its planned %d rounds", n)
	}
	switch {
	case v == results.VerdictRegressed || v == results.VerdictImproved:
		return fmt.Sprintf("decided %s: %s", at, v)
	case v == results.VerdictSame:
		return fmt.Sprintf("decided %s: same (any change within ±%g%%)", at, opts.MinChange*100)
	case !verdict.Undecided(old, new, p.new.Runs, p.new.MaxRuns, a.family, opts):
		// Not "still inconclusive": this look bounds p by Bonferroni over
		// the run's time tests, and the verdict's Holm adjustment over the
		// same tests can still decide it. CI's run of a no-op pair said
		// "still inconclusive" here and "improved" in the table.
		return fmt.Sprintf("reached its cap of %d rounds", n)
	case futile(old, new, p.new.MaxRuns, opts):
		return fmt.Sprintf("hopeless %s: its interval, narrowed as %d rounds would, would still span no change and ±%g%%", at, p.new.MaxRuns, opts.MinChange*100)
	}
	return ""
}

// futileSlack is how much narrower than sqrt(n/max) predicts an interval
// is assumed to get by the cap before a pair is given up as hopeless: the
// width measured at n rounds is itself noisy, and a pair wrongly given up
// is a verdict lost, so the rule errs towards more rounds.
const futileSlack = 0.75

// futile reports whether an undecided pair (old[i], new[i] of round i)
// could not be decided even at its cap: its 1 - alpha interval (in log
// ratio), shrunk by sqrt(n/maxRuns) — the width maxRuns rounds of the same
// noise would give — and by futileSlack, around its present estimate,
// would still hold both no change (so not significant) and a change of
// min_change (so not settled). Its rounds then go to the pairs that can
// still decide (issue 40: a busy machine made every pair take its cap).
// Stopping for futility only ever withholds a verdict: it cannot raise
// the false-alarm rate.
func futile(old, new []float64, maxRuns int, opts verdict.Options) bool {
	n := len(new)
	if n == 0 || n >= maxRuns {
		return false
	}
	j := stats.JudgePaired(old, new, opts.Alpha)
	c, lo, hi := math.Log(j.Ratio), math.Log(j.DecideLo), math.Log(j.DecideHi)
	h := max(c-lo, hi-c)
	if math.IsNaN(h) || math.IsInf(h, 0) {
		return false // no interval yet: nothing to project
	}
	proj := futileSlack * h * math.Sqrt(float64(n)/float64(maxRuns))
	return math.Abs(c) <= proj && math.Abs(c)+proj >= math.Log(1+opts.MinChange)
}

// measured is how many successful measured runs the cell has (results.Cell.Measured).
func measured(c *cellState) int { return len(c.runsSoFar().Measured()) }

// runsSoFar is the cell's runs as a results cell, for its accessors.
func (c *cellState) runsSoFar() *results.Cell {
	return &results.Cell{Metric: c.Metric, Samples: c.samples}
}
