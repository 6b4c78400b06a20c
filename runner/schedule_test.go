package runner

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"vbench/internal/results"
	"vbench/internal/suite"
	"vbench/internal/testbin"
	"vbench/internal/verdict"
)

// abSuite has four A/B pairs of workloads (a NEW judged against its
// -base): one the same and steady (settled at its planned runs), two
// slower every round alike, by 50% and by 6% (at 12 of at most 36 rounds
// the test cannot reach alpha at its look's share, 1/9 of it: decided by
// adaptive rounds), one the same under heavy noise (undecided, and given
// up as hopeless or at its cap), and a cell of no pair.
func abSuite(fw string) string {
	return `name: sched
runs: 12
max_runs: 36
warmup: 0
modes: [none]
timeout: 1m
thresholds: {min_change: 5%, alpha: 0.01}
workloads:
  - {name: slow, command: [` + fw + `, -elapsed, "3000000"], against: slow-base}
  - {name: slow-base, command: [` + fw + `, -elapsed, "2000000"]}
  - {name: steady, command: [` + fw + `, -elapsed, "1000000"], against: steady-base}
  - {name: steady-base, command: [` + fw + `, -elapsed, "1000000"]}
  - {name: six, command: [` + fw + `, -elapsed, "1060000"], against: six-base}
  - {name: six-base, command: [` + fw + `, -elapsed, "1000000"]}
  - {name: noisy, command: [` + fw + `, -spread, "0.5"], against: noisy-base}
  - {name: noisy-base, command: [` + fw + `, -spread, "0.5"]}
  - {name: alone, command: [` + fw + `]}
`
}

// seqs maps each round of a cell to its run's position in the schedule.
func seqs(c *results.Cell) map[int]int {
	m := map[int]int{}
	for _, r := range c.Samples {
		m[r.Round] = r.Seq
	}
	return m
}

// A pair's two runs of a round are back to back (SchedulePairs), in
// planned and adaptive rounds alike, each side first in one of every two
// rounds; with
// ScheduleShuffle they are not kept together. Each pair's results say why
// its rounds stopped (the noisy one decides only by a false verdict: at
// most alpha over its family, 0.01/4, of runs of this test).
func TestSchedulePairsBackToBack(t *testing.T) {
	fw := testbin.Fakework(t)
	apart := map[string]int{}
	for _, how := range Schedules {
		plan := planFor(t, t.TempDir(), abSuite(fw))
		plan.Options.Schedule = how
		f, _ := Run(context.Background(), plan, Env{})
		if f.Settings.Schedule != how {
			t.Errorf("%s: results record schedule %q", how, f.Settings.Schedule)
		}
		for _, w := range []string{"slow", "steady", "six", "noisy"} {
			nw, old := seqs(f.Find(w, "none")), seqs(f.Find(w+"-base", "none"))
			first := map[bool]int{}
			newFirst := map[int]bool{}
			for round, s := range nw {
				o, ok := old[round]
				if !ok {
					t.Fatalf("%s: %s ran in round %d, its base did not", how, w, round)
				}
				if d := s - o; d != 1 && d != -1 {
					apart[how]++
				}
				first[s < o]++
				newFirst[round] = s < o
			}
			if how != SchedulePairs {
				continue
			}
			// Counterbalanced: in rounds 1-2, 3-4, … each side ran first
			// once (which one in the odd round is random), planned and
			// adaptive rounds alike.
			for r := 1; r+1 <= len(nw); r += 2 {
				if newFirst[r] == newFirst[r+1] {
					t.Errorf("%s: rounds %d and %d both ran NEW first: %v (NEW first in %d rounds, OLD in %d)", w, r, r+1, newFirst[r], first[true], first[false])
					break
				}
			}
			if first[true] == len(nw) || first[false] == len(nw) {
				t.Errorf("%s: NEW ran first in %d rounds, OLD in %d: the order within a pair is not random", w, first[true], first[false])
			}
		}
		stop := func(w string) string { return f.Find(w, "none").Stopped }
		if s := stop("slow"); !strings.HasPrefix(s, "decided after 18 rounds: regressed") {
			t.Errorf("%s: slow stopped: %q", how, s)
		}
		if s := stop("steady"); !strings.HasPrefix(s, "decided at its planned 12 rounds: same") {
			t.Errorf("%s: steady stopped: %q", how, s)
		}
		if s, n := stop("six"), f.Find("six", "none").Runs; !strings.HasPrefix(s, "decided after ") || !strings.HasSuffix(s, "rounds: regressed") || n <= 12 {
			t.Errorf("%s: six stopped after %d runs: %q", how, n, s)
		}
		if s := stop("noisy"); !strings.HasPrefix(s, "hopeless ") && s != "reached its cap of 36 rounds" {
			t.Errorf("%s: noisy stopped: %q", how, s)
		}
		if s := stop("alone") + stop("slow-base"); s != "" {
			t.Errorf("%s: cells of no pair, or OLD sides, say they stopped: %q", how, s)
		}
	}
	if apart[SchedulePairs] != 0 || apart[ScheduleShuffle] == 0 {
		t.Errorf("rounds in which a pair's runs were not back to back: %v", apart)
	}
}

// A pair is given up as hopeless only when even its cap's rounds would
// leave its interval spanning both no change and the minimum change: wide
// noise around no change is; a steady 6% change (its interval beyond 5%)
// and a pair with no interval yet (5 rounds) are not.
func TestFutile(t *testing.T) {
	opts := verdict.Options{Alpha: 0.01, MinChange: 0.05}
	ones := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = 1
		}
		return x
	}
	wide := []float64{1.6, 0.6, 1.3, 0.8, 1.5, 0.7, 1.1, 0.9, 1.4, 0.65, 1.2, 0.85}
	six := ones(12)
	for i := range six {
		six[i] = 1.06
	}
	if !futile(ones(12), wide, 36, opts) {
		t.Errorf("±50%% noise around no change at 12 of 36 rounds is not hopeless")
	}
	if futile(ones(12), six, 36, opts) {
		t.Errorf("a steady 6%% change is hopeless")
	}
	if futile(ones(5), wide[:5], 36, opts) {
		t.Errorf("5 rounds (no 99%% interval) are hopeless")
	}
	if futile(ones(12), wide, 12, opts) {
		t.Errorf("a pair at its cap is hopeless (the cap says why it stopped)")
	}
}

// A budget the run has already spent starts no adaptive round: the pairs
// still undecided at their planned runs stop out of time, the decided ones
// stop as before.
func TestBudgetStopsAdaptiveRounds(t *testing.T) {
	plan := planFor(t, t.TempDir(), abSuite(testbin.Fakework(t)))
	plan.Options.Budget = time.Nanosecond
	f, _ := Run(context.Background(), plan, Env{})
	six := f.Find("six", "none")
	if !strings.HasPrefix(six.Stopped, "out of time after 12 rounds (") || six.Runs != 12 {
		t.Errorf("six: %d runs, stopped %q", six.Runs, six.Stopped)
	}
	if s := f.Find("steady", "none").Stopped; !strings.HasPrefix(s, "decided at its planned 12 rounds: same") {
		t.Errorf("steady stopped %q", s)
	}
}

// A look counts a stored baseline's time tests in the pair's family
// (Plan.SetBaseline): a pair whose p passes alpha over its run's 4 pairs
// but not over the 9 time tests a baseline makes of the run (Holm's first
// step, the most any test is multiplied by) is not stopped as decided
// regressed, where the table would call it inconclusive. The baseline of
// abSuite's run judges its 5 cells that are not a pair's judged side.
func TestAdaptiveLooksCountTheBaselinesTests(t *testing.T) {
	fw := testbin.Fakework(t)
	base, _ := Run(context.Background(), planFor(t, t.TempDir(), abSuite(fw)), Env{})
	plan := planFor(t, t.TempDir(), abSuite(fw))
	if plan.SetBaseline(base); plan.BaselineTests != 5 {
		t.Fatalf("a baseline of every cell adds %d time tests, want 5 (the references and alone)", plan.BaselineTests)
	}
	if plan.SetBaseline(nil); plan.BaselineTests != 0 {
		t.Errorf("no baseline adds %d tests", plan.BaselineTests)
	}
	// 20 rounds, NEW ~10 % slower under ±25 % noise: adjusted p between
	// 0.01/9 and 0.01/4 (found by search over seeds, PCG's stream fixed).
	rng := rand.New(rand.NewPCG(10, 1))
	pair := abPair{new: &cellState{Cell: Cell{Workload: &suite.Workload{Name: "new"}, Mode: "none", Metric: results.MetricElapsed, Runs: 20, MaxRuns: 20}},
		old: &cellState{Cell: Cell{Workload: &suite.Workload{Name: "old"}, Mode: "none", Metric: results.MetricElapsed, Runs: 20, MaxRuns: 20}}}
	for i := 0; i < 20; i++ {
		o := 1e6 * (1 + 0.3*rng.Float64())
		n := o * (1.10 + 0.5*(rng.Float64()-0.5))
		pair.old.samples = append(pair.old.samples, results.Run{Seq: 2 * i, Round: i + 1, ElapsedNs: int64(o)})
		pair.new.samples = append(pair.new.samples, results.Run{Seq: 2*i + 1, Round: i + 1, ElapsedNs: int64(n)})
	}
	a := &adaptive{pairs: []abPair{pair, {}, {}, {}}, opts: verdict.Options{Alpha: 0.01, MinChange: 0.05}}
	for _, c := range []struct {
		family  int
		decided bool
	}{{4, true}, {9, false}} {
		a.family = c.family
		s := a.stop(pair)
		if strings.HasPrefix(s, "decided at its planned 20 rounds: regressed") != c.decided {
			t.Errorf("a family of %d time tests: stopped %q, decided regressed: want %v", c.family, s, c.decided)
		}
	}
}
