//go:build vbenchstudy

// A statistical study (make study): see recorded_test.go.

package verdict

import (
	"math/rand/v2"
	"testing"

	"vbench/internal/results"
	"vbench/stats"
)

// On heavy-tailed noise the unpaired rule (stored baselines) keeps its
// false alarms at alpha = 0.01, as the verdict sees them, and the fast
// half sees a 5% step that the tail hides from the median.
func TestJudgeOnHeavyTails(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 300 judgements")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	opts := Options{Alpha: 0.01, MinChange: 0.05}
	const trials = 100
	var falseAlarms, found, foundMedian int
	cell := &results.Cell{Compare: &results.Change{}}
	v := func(j stats.Judgement) results.Verdict { return verdictOf(&test{cell: cell, j: j, p: j.P}, opts) }
	for i := 0; i < trials; i++ {
		switch v(stats.Judge(noisy(rng, 20, 1), noisy(rng, 20, 1), opts.Alpha)) {
		case results.VerdictRegressed, results.VerdictImproved:
			falseAlarms++
		}
		a, b := noisy(rng, 20, 1), noisy(rng, 20, 1.05)
		if v(stats.Judge(a, b, opts.Alpha)) == results.VerdictRegressed {
			found++
		}
		if v(stats.JudgeWith(stats.Quantile(0.5), a, b, opts.Alpha)) == results.VerdictRegressed {
			foundMedian++
		}
	}
	t.Logf("A/A false alarms %d/%d; 5%% found %d/%d (median: %d)", falseAlarms, trials, found, trials, foundMedian)
	// Binomial(100, 0.01) stays under 5 with probability > 0.996.
	if falseAlarms > 4 {
		t.Errorf("A/A: %d/%d at alpha %g", falseAlarms, trials, opts.Alpha)
	}
	if found < trials*8/10 || found <= foundMedian {
		t.Errorf("5%% step found %d/%d times by the fast half, %d by the median", found, trials, foundMedian)
	}
}
