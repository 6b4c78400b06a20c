package verdict

import (
	"math"
	"vbench/internal/summary"

	"vbench/internal/results"
	"vbench/stats"
)

// perEvent gives every judged A/B pair its change per call (per sample
// taken, for a sampling pair): the number a profiler engineer optimizes.
// Each round gives one difference new − old of the pair's metric (Rounds,
// the pairing the verdict uses); the change is their Hodges-Lehmann
// estimate and its exact signed-rank 95% interval, divided by the events
// per run (summary.Fill's CallsPerRun, SamplesPerRun). A round's episode
// slows both sides and cancels in its difference, as in the verdict.
//
// Calls must be the same count on both sides (the same program traced by
// two builds): two programs that make different calls (a workload's
// against:) differ in their own work, which is no cost of the profiler, and
// get no change per call. Samples taken follow the run's length, so a
// sampling pair divides by the mean of its two sides'.
func perEvent(f *results.File) {
	for i := range f.Results {
		c := &f.Results[i]
		ch := c.Compare
		if ch == nil || ch.Against == "" {
			continue
		}
		old := f.Reference(c)
		if old == nil {
			continue
		}
		oldX, newX := Rounds(old, c)
		if len(newX) < 2 {
			continue
		}
		d := make([]float64, len(newX))
		for k := range newX {
			d[k] = newX[k] - oldX[k]
		}
		est := stats.HodgesLehmann(d)
		lo, hi := stats.SignedRankInterval(d, stats.Confidence)
		if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			continue // too few rounds for a 95% interval
		}
		if n := c.CallsPerRun; n >= summary.MinCallsForCost && n == old.CallsPerRun {
			ch.ChangePerCallNs, ch.ChangePerCallLoNs, ch.ChangePerCallHiNs = est/n, lo/n, hi/n
		}
		if c.SamplesPerRun > 0 && old.SamplesPerRun > 0 {
			n := (c.SamplesPerRun + old.SamplesPerRun) / 2
			ch.ChangePerSampleNs, ch.ChangePerSampleLoNs, ch.ChangePerSampleHiNs = est/n, lo/n, hi/n
		}
	}
}
