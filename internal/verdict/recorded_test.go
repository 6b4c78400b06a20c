package verdict_test

import (
	"math/rand/v2"
	"testing"

	"vbench/internal/results"
	"vbench/internal/verdict"
	"vbench/stats/noise"
)

// The A/B rule (verdict.JudgePair: paired by round, the signed-rank test,
// the Hodges-Lehmann ratio) on run times recorded on this project's shared 2-core
// VM (../../stats/testdata/noise.json, scripts/noise-study.sh): synthetic experiments
// of 20 runs a side drawn from real runs, judged at the default suite's
// thresholds (alpha 0.01, minimum change 5%). Within one run the rule must
// keep false alarms at or below 1 in 20 and find a 5% slowdown (5% more
// work, or the slow profiler under tracing) at least 19 times in 20, as the
// issue asks. Judged by elapsed time instead of the kernel's CPU time the
// same runs hide that slowdown: why the default suites measure kernel-cpu.
func TestRuleOnRecordedNoise(t *testing.T) {
	if testing.Short() {
		t.Skip("judges 1,200 synthetic experiments")
	}
	d, err := noise.Load("../../stats/testdata/noise.json")
	if err != nil {
		t.Fatal(err)
	}
	const n, trials, alpha, minChange = 20, 100, 0.01, 0.05
	// Held out: this recording chose the unpaired rule stored baselines
	// use (cmd/noisestudy); the paired A/B rule judged here was chosen
	// without it (exchangeability within a round, issue 26), and nothing
	// of it was tuned to these runs. One pair, one look: its own alpha.
	opts := verdict.Options{Alpha: alpha, MinChange: minChange}
	judge := func(p noise.Pair) string {
		if !p.Paired {
			t.Fatal("within-invocation pairs must be paired by round")
		}
		return verdict.JudgePair(p.A, p.B, 0, 0, 1, opts)
	}
	for _, w := range []struct{ a1, a2, b string }{
		{"fib-a1", "fib-a2", "fib-b"},
		{"fibt-a1", "fibt-a2", "fibt-b"},
		{"man-a1", "man-a2", "man-b"},
	} {
		rng := rand.New(rand.NewPCG(1, 2))
		var alarms, found, foundElapsed int
		for i := 0; i < trials; i++ {
			aa, err := d.WithinPair(rng, results.MetricKernelCPU, n, w.a1, w.a2)
			if err != nil {
				t.Fatal(err)
			}
			if judge(aa) != results.VerdictSame {
				alarms++
			}
			// The same rounds, once by CPU time and once by elapsed time.
			s := rng.Uint64()
			ab, err := d.WithinPair(rand.New(rand.NewPCG(s, 0)), results.MetricKernelCPU, n, w.a1, w.b)
			if err != nil {
				t.Fatal(err)
			}
			if judge(ab) == results.VerdictRegressed {
				found++
			}
			abe, _ := d.WithinPair(rand.New(rand.NewPCG(s, 0)), results.MetricElapsed, n, w.a1, w.b)
			if judge(abe) == results.VerdictRegressed {
				foundElapsed++
			}
		}
		t.Logf("%s: A/A false alarms %d/%d; A/B detected %d/%d (by elapsed time: %d)", w.b, alarms, trials, found, trials, foundElapsed)
		if alarms > trials/20 || found < trials*19/20 {
			t.Errorf("%s within one run: A/A false alarms %d/%d, A/B detected %d/%d; want at most 1 in 20 and at least 19 in 20", w.b, alarms, trials, found, trials)
		}
		if foundElapsed >= found/2 {
			t.Errorf("%s: elapsed time found the slowdown %d times, CPU time %d: the recording no longer shows why the suites measure kernel-cpu", w.b, foundElapsed, found)
		}
	}
}
