//go:build vbenchstudy

// A statistical study (make study): it launches nothing, takes minutes, and
// measures the rule on simulated or recorded data rather than checking a
// behaviour, so `make test` leaves it to `make study`, which CI also runs.

package verdict_test

import (
	"math/rand/v2"
	"testing"

	"vbench/internal/noise"
	"vbench/internal/results"
	"vbench/internal/verdict"
	"vbench/stats"
)

// The A/B rule (verdict.JudgePair: paired by round, the signed-rank test,
// the Hodges-Lehmann ratio, a second look when undecided) on run times
// recorded on this project's shared 2-core VM (stats/testdata/noise.json,
// scripts/studies/noise-study.sh): synthetic pairs of 20 (then 30) rounds drawn from
// real interleaved runs, judged at the default suite's thresholds (alpha
// 0.01, minimum change 5%). A/A: at most 1 false alarm in 20. A/B: a change
// at or above min_change (the slow profiler under tracing) caught at least
// 19 times in 20; one below it (5% more work measures +4.3% to +4.8% CPU
// time) regressed or shown to be below min_change, nothing else. By elapsed
// time instead of the kernel's CPU time the same runs hide the slowdown:
// why the default suites measure kernel-cpu.
func TestRuleOnRecordedNoise(t *testing.T) {
	if testing.Short() {
		t.Skip("judges 1,200 synthetic experiments")
	}
	d, err := noise.Load("../../stats/testdata/noise.json")
	if err != nil {
		t.Fatal(err)
	}
	// 30 of an invocation's 40 rounds, judged as a run judges an A/B pair:
	// planned 20 runs, one more look at 30 when undecided.
	const planned, n, trials, alpha, minChange = 20, 30, 100, 0.01, 0.05
	// Held out: this recording chose the unpaired rule stored baselines
	// use (scripts/studies/noisestudy); the paired A/B rule judged here was chosen
	// without it (exchangeability within a round, issue 26), and nothing
	// of it was tuned to these runs. One pair: its own family.
	opts := verdict.Options{Alpha: alpha, MinChange: minChange}
	judge := func(p noise.Pair) results.Verdict {
		if !p.Paired {
			t.Fatal("within-invocation pairs must be paired by round")
		}
		a, b := p.A[:planned], p.B[:planned]
		if verdict.Undecided(a, b, planned, n, 1, opts) {
			a, b = p.A, p.B
		}
		return verdict.JudgePair(a, b, planned, n, 1, opts)
	}
	for _, w := range []struct{ a1, a2, b string }{
		{"fib-a1", "fib-a2", "fib-b"},
		{"fibt-a1", "fibt-a2", "fibt-b"},
		{"man-a1", "man-a2", "man-b"},
	} {
		rng := rand.New(rand.NewPCG(1, 2))
		var alarms, undecided, found, foundElapsed int
		missed := map[results.Verdict]int{}
		var ratios []float64
		for i := 0; i < trials; i++ {
			aa, err := d.WithinPair(rng, results.MetricKernelCPU, n, w.a1, w.a2)
			if err != nil {
				t.Fatal(err)
			}
			switch judge(aa) {
			case results.VerdictRegressed, results.VerdictImproved:
				alarms++
			case results.VerdictInconclusive:
				undecided++
			}
			// The same rounds, once by CPU time and once by elapsed time.
			s := rng.Uint64()
			ab, err := d.WithinPair(rand.New(rand.NewPCG(s, 0)), results.MetricKernelCPU, n, w.a1, w.b)
			if err != nil {
				t.Fatal(err)
			}
			v := judge(ab)
			ratios = append(ratios, stats.JudgePaired(ab.A, ab.B, alpha).Ratio)
			if v == results.VerdictRegressed {
				found++
			}
			missed[v]++
			abe, _ := d.WithinPair(rand.New(rand.NewPCG(s, 0)), results.MetricElapsed, n, w.a1, w.b)
			if judge(abe) == results.VerdictRegressed {
				foundElapsed++
			}
		}
		t.Logf("%s: A/A false alarms %d/%d (%d inconclusive); A/B detected %d/%d (by elapsed time: %d) %v; change %+.1f%%", w.b, alarms, trials, undecided, found, trials, foundElapsed, missed, 100*(stats.Median(ratios)-1))
		// A change at or above min_change must be caught 19 times in 20;
		// one below it (5% more work measures about +4.7% CPU time) may be
		// shown to be below it, "same", but never said to be anything else.
		change := stats.Median(ratios)
		if alarms > trials/20 {
			t.Errorf("%s within one run: A/A false alarms %d/%d; want at most 1 in 20", w.b, alarms, trials)
		}
		if change >= 1+minChange && found < trials*19/20 {
			t.Errorf("%s within one run: a change of %+.1f%% detected %d/%d; want at least 19 in 20", w.b, 100*(change-1), found, trials)
		}
		if found+missed[results.VerdictSame] != trials {
			t.Errorf("%s: a change of %+.1f%% judged %v: only regressed or (below min_change) same are right", w.b, 100*(change-1), missed)
		}
		if foundElapsed >= found/2 {
			t.Errorf("%s: elapsed time found the slowdown %d times, CPU time %d: the recording no longer shows why the suites measure kernel-cpu", w.b, foundElapsed, found)
		}
	}
}
