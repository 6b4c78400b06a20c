//go:build vbenchstudy

// A statistical study (make study): it launches nothing, takes minutes, and
// measures the rule on simulated or recorded data rather than checking a
// behaviour, so `make test` leaves it to `make study`, which CI also runs.

package history

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vbench/internal/results"
	"vbench/stats"
)

// The goals of issue 24, measured on histories of real invocations on this
// machine (testdata/recorded, made by scripts/studies/history-study.sh: `vbench run`
// of a C# program that knows nothing of vbench, metric wall, each run
// appended by `vbench history append`), in two sets: quiet/ (each
// invocation started when the cores had been at least half idle for 2 s)
// and busy/ (recorded while other work kept the load average at 10-18):
//
//   - step-*.jsonl: 8 invocations at one amount of work, then 4 at 5% more,
//     in that order: one change point, at index 8 ± 1, none among the first 8;
//   - false change points per 50 appended runs of an unchanged build, from
//     50-run series resampled from the invocations at the first amount
//     (unchanged-*.jsonl and every step file's first 8): at the end of each
//     series, and ever new while it grows run by run (what CI would fail on);
//   - latency of a 5% step: 20 runs resampled from the first amount, then
//     runs resampled from the second (step files' last 4, more-*.jsonl)
//     until a change point within one run of the step appears.
//
// The numbers are logged (docs/notebook/measurements.md, "History"); what is
// asserted is what the goals need.
//
// The same invocations are measured again by their CPU time (metric cpu,
// user + system of the process, which every run records too): what a
// shared machine disturbs least. Two more sets ran a calibration workload
// beside the program in every invocation (CALIBRATE=1, the suite's
// calibration:), measured raw and calibrated: calibrated/ while other
// measurements kept the machine busy, calibrated-quiet/ with each
// invocation waiting for 80% idle cores, and heldout/ as calibrated-quiet/,
// recorded after the search's method was chosen on the others: it tests
// the method on invocations that did not choose it.
func TestRecordedHistories(t *testing.T) {
	if testing.Short() {
		t.Skip("resamples 400 series")
	}
	for _, set := range []string{"quiet", "busy", "calibrated", "calibrated-quiet", "heldout"} {
		kinds := []string{KindTime}
		if strings.HasPrefix(set, "calibrated") || set == "heldout" { // the same invocations, raw and calibrated
			kinds = append(kinds, KindCalibrated)
		}
		for _, m := range []results.Metric{results.MetricWall, results.MetricCPU} {
			for _, kind := range kinds {
				t.Run(set+"/"+string(m)+"/"+kind, func(t *testing.T) {
					t.Parallel() // each resamples with its own generator
					measureRecorded(t, set, m, kind)
				})
			}
		}
	}
}

// measureRecorded measures the change-point goals on the recorded set's
// histories, by metric, on the program's (the first workload's) series of
// the kind given.
func measureRecorded(t *testing.T, set string, metric results.Metric, kind string) {
	load := func(pattern string) [][]float64 { return recordedSeries(t, set, pattern, metric, kind) }
	steps := load("step-*.jsonl")
	if len(steps) == 0 {
		t.Fatalf("no recorded histories in testdata/recorded/%s", set)
	}
	var base, more []float64
	opts := stats.ChangeOptions{}
	correct := 0
	for i, xs := range steps {
		if len(xs) != 12 {
			t.Logf("step history %d has %d runs, not 12: left out", i, len(xs))
			continue
		}
		base = append(base, xs[:8]...)
		more = append(more, xs[8:]...)
		early := stats.ChangePoints(xs[:8], opts)
		all := stats.ChangePoints(xs, opts)
		ok := len(early) == 0 && len(all) == 1 && all[0].Index >= 7 && all[0].Index <= 9
		if ok {
			correct++
		}
		t.Logf("step history %d: first 8 %v, all 12 %v: %v", i, early, all, ok)
	}
	for _, xs := range load("unchanged-*.jsonl") {
		base = append(base, xs...)
	}
	for _, xs := range load("more-*.jsonl") {
		more = append(more, xs...)
	}
	t.Logf("step histories right: %d of %d; pools: %d runs at the first amount, %d at 5%% more", correct, len(steps), len(base), len(more))

	rng := rand.New(rand.NewPCG(24, 50))
	const series, n = 200, 50
	final, ever := 0, 0
	for s := 0; s < series; s++ {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = base[rng.IntN(len(base))]
		}
		final += len(stats.ChangePoints(xs, opts))
		var known []stats.ChangePoint
		for k := 2 * stats.ChangeMinSize; k <= n; k++ {
			cps := stats.ChangePoints(xs[:k], opts)
			for _, c := range cps {
				if !nearAny(known, c.Index) {
					ever++
				}
			}
			known = cps
		}
	}
	t.Logf("unchanged, %d series of %d: %d change points at the end (%.3f per 50 runs), %d ever new while growing (%.3f per 50 runs)",
		series, n, final, float64(final)/series, ever, float64(ever)/series)
	if set != "busy" && metric == results.MetricWall && float64(ever)/series > 1 {
		t.Errorf("%.2f false change points per 50 appended runs, goal at most 1", float64(ever)/series)
	}

	const trials, before, patience = 200, 20, 10
	latency := latencies(rng, base, more, trials, before, patience, func(xs []float64) bool {
		return nearAny(stats.ChangePoints(xs, opts), before)
	})
	t.Logf("5%% step after %d runs, %d trials: runs past the step until found (0: not within %d): %v", before, trials, patience, latency)

}

// CI's gate (Analysis.Gate) judges a run's series as one family: in a suite
// of m judged series a change point fails the run when its p, tested again
// finely, is at most GateAlpha/m (Holm's first step, the one that decides
// when one series moved). Measured on the quiet calibrated set's calibrated
// series, per series: how often an unchanged build fails (distinct change
// points that ever pass, per 50 runs; a run of m series fails about m times
// that over 50), and how many runs past a 5% step until it does.
func TestRecordedGate(t *testing.T) {
	t.Parallel() // a computation on recorded files, its own generator
	if testing.Short() {
		t.Skip("resamples 200 series with up to 20,000 shuffles a test")
	}
	for _, metric := range []results.Metric{results.MetricWall, results.MetricCPU} {
		base, more := pools(t, "calibrated-quiet", metric, KindCalibrated)
		opts := stats.ChangeOptions{}
		const n, series, trials, before, patience = 50, 100, 100, 20, 10
		for _, m := range []int{1, 100} {
			level := GateAlpha / float64(m)
			refine := stats.ChangeOptions{Alpha: level, Permutations: max(stats.ChangePermutations, int(20/level))}
			rng := rand.New(rand.NewPCG(24, uint64(m)))
			fails := 0
			for s := 0; s < series; s++ {
				xs := make([]float64, n)
				for i := range xs {
					xs[i] = base[rng.IntN(len(base))]
				}
				var known []int
				for k := 2 * stats.ChangeMinSize; k <= n; k++ {
					for _, c := range stats.ChangePoints(xs[:k], opts) {
						if c.Index <= k-1-gateWindow || !slower(xs[:k], c) || slices.ContainsFunc(known, func(i int) bool { return i >= c.Index-1 && i <= c.Index+1 }) {
							continue
						}
						if stats.ChangeP(xs[:k], c, refine) <= level {
							fails++
							known = append(known, c.Index)
						}
					}
				}
			}
			lat := latencies(rng, base, more, trials, before, patience, func(xs []float64) bool {
				for _, c := range stats.ChangePoints(xs, opts) {
					if c.Index >= before-1 && c.Index <= before+1 && slower(xs, c) && stats.ChangeP(xs, c, refine) <= level {
						return true
					}
				}
				return false
			})
			perRun := float64(m) * float64(fails) / series / n
			t.Logf("%s, gate over %d series: unchanged, %d series of %d: %d failing change points (%.3f per 50 runs a series; a run fails with chance ~%.3f); 5%% step after %d runs: runs past it until CI fails (0: not within %d): %v",
				metric, m, series, n, fails, float64(fails)/series, perRun, before, patience, lat)
			// The gate's promise, with room for this estimate's spread: a
			// run of a build that changed nothing fails at most 2·GateAlpha.
			if perRun > 2*GateAlpha {
				t.Errorf("%s, %d series: a run fails with chance %.3f, over 2·%g", metric, m, perRun, GateAlpha)
			}
		}
	}
}

// pools are the recorded set's values of the program's series of the kind
// given, by metric: at the first amount of work (every unchanged history
// and every step history's first 8) and at 5% more (their last 4).
func pools(t *testing.T, set string, metric results.Metric, kind string) (base, more []float64) {
	for _, xs := range recordedSeries(t, set, "step-*.jsonl", metric, kind) {
		if len(xs) == 12 {
			base, more = append(base, xs[:8]...), append(more, xs[8:]...)
		}
	}
	for _, xs := range recordedSeries(t, set, "unchanged-*.jsonl", metric, kind) {
		base = append(base, xs...)
	}
	if len(base) == 0 || len(more) == 0 {
		t.Fatalf("no recorded histories in testdata/recorded/%s", set)
	}
	return base, more
}

// recordedSeries reads the recorded set's histories matching pattern and
// returns, per file, the program's (the first workload's) series of the
// kind given, measured by metric.
func recordedSeries(t *testing.T, set, pattern string, metric results.Metric, kind string) [][]float64 {
	files, _ := filepath.Glob(filepath.Join("testdata", "recorded", set, pattern))
	var out [][]float64
	for _, f := range files {
		es, err := Read(f)
		if err != nil {
			t.Fatal(err)
		}
		for i := range es {
			for j := range es[i].Cells {
				es[i].Cells[j].Metric = metric
			}
		}
		for _, s := range SeriesOf(es) {
			if s.Workload == es[0].Cells[0].Workload && s.Kind == kind {
				out = append(out, s.Values())
			}
		}
	}
	return out
}

// latencies resamples trials series of before runs from base, then runs
// from more one at a time until found says so (at most patience): how
// many runs past the step each took (0: not within patience).
func latencies(rng *rand.Rand, base, more []float64, trials, before, patience int, found func([]float64) bool) map[int]int {
	out := map[int]int{}
	for s := 0; s < trials; s++ {
		xs := make([]float64, 0, before+patience)
		for i := 0; i < before; i++ {
			xs = append(xs, base[rng.IntN(len(base))])
		}
		k := 1
		for ; k <= patience; k++ {
			xs = append(xs, more[rng.IntN(len(more))])
			if found(xs) {
				break
			}
		}
		if k > patience {
			k = 0
		}
		out[k]++
	}
	return out
}

// slower reports whether change point c of xs says slower: the median after
// it, within its segment, above the median before.
func slower(xs []float64, c stats.ChangePoint) bool {
	return stats.Median(xs[c.Index:c.Hi]) > stats.Median(xs[c.Lo:c.Index])
}

func nearAny(cps []stats.ChangePoint, index int) bool {
	for _, c := range cps {
		if c.Index >= index-1 && c.Index <= index+1 {
			return true
		}
	}
	return false
}
