package runner

import (
	"context"
	"strings"
	"testing"

	"vbench/internal/results"
	"vbench/internal/testbin"
)

// abSuite has three A/B pairs of workloads (a NEW judged against its
// -base): one 1.5x slower (clear), one the same and steady (clear), one
// the same under heavy noise (undecided: it takes adaptive rounds up to its
// cap), and a cell of no pair.
func abSuite(fw string) string {
	return `name: sched
runs: 12
max_runs: 18
warmup: 0
modes: [none]
timeout: 1m
thresholds: {min_change: 5%, alpha: 0.01}
workloads:
  - {name: slow, command: [` + fw + `, -elapsed, "3000000"], against: slow-base}
  - {name: slow-base, command: [` + fw + `, -elapsed, "2000000"]}
  - {name: steady, command: [` + fw + `, -elapsed, "1000000"], against: steady-base}
  - {name: steady-base, command: [` + fw + `, -elapsed, "1000000"]}
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
// planned and adaptive rounds alike, in both orders over the run; with
// ScheduleShuffle they are not kept together. Each pair's results say why
// its rounds stopped: the clear ones at their planned runs, the noisy one
// at its cap (the noisy pair decides earlier only by a false verdict: at
// most alpha over its family, 0.01/3, of runs of this test).
func TestSchedulePairsBackToBack(t *testing.T) {
	fw := testbin.Fakework(t)
	apart := map[string]int{}
	for _, how := range Schedules {
		plan := planFor(t, t.TempDir(), abSuite(fw))
		plan.Options.Schedule = how
		f := Run(context.Background(), plan, Env{})
		if f.Settings.Schedule != how {
			t.Errorf("%s: results record schedule %q", how, f.Settings.Schedule)
		}
		for _, w := range []string{"slow", "steady", "noisy"} {
			nw, old := seqs(f.Find(w, "none")), seqs(f.Find(w+"-base", "none"))
			first := map[bool]int{}
			for round, s := range nw {
				o, ok := old[round]
				if !ok {
					t.Fatalf("%s: %s ran in round %d, its base did not", how, w, round)
				}
				if d := s - o; d != 1 && d != -1 {
					apart[how]++
				}
				first[s < o]++
			}
			if how == SchedulePairs && (first[true] == 0 || first[false] == 0) {
				t.Errorf("%s: NEW ran first in %d rounds, OLD in %d: the order within a pair is not random", w, first[true], first[false])
			}
		}
		stop := func(w string) string { return f.Find(w, "none").Stopped }
		if s := stop("slow"); !strings.HasPrefix(s, "decided at its planned 12 rounds: regressed") {
			t.Errorf("%s: slow stopped: %q", how, s)
		}
		if s := stop("steady"); !strings.HasPrefix(s, "decided at its planned 12 rounds: same") {
			t.Errorf("%s: steady stopped: %q", how, s)
		}
		if s, n := stop("noisy"), f.Find("noisy", "none").Runs; s != "reached its cap of 18 rounds, still inconclusive" || n != 18 {
			t.Errorf("%s: noisy stopped after %d runs: %q", how, n, s)
		}
		if s := stop("alone") + stop("slow-base"); s != "" {
			t.Errorf("%s: cells of no pair, or OLD sides, say they stopped: %q", how, s)
		}
	}
	if apart[SchedulePairs] != 0 || apart[ScheduleShuffle] == 0 {
		t.Errorf("rounds in which a pair's runs were not back to back: %v", apart)
	}
}
