//go:build vbenchstudy

package history

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/floats"

	"vbench/internal/results"
	"vbench/stats"
)

// Do an invocation's runs add power over its fastest alone (issue 39)? A
// series keeps one point per invocation, its fastest run. The runs inside
// it could count too, but not as independent values: runs of one
// invocation share its machine state, so a permutation test over runs
// would call an invocation's luck a change. stats.GroupedEndP keeps the
// invocations as the exchangeable units (shuffles move whole groups; its
// false-alarm rate is theirs) and measures their distance over every run.
// Measured here on the recorded histories, both on the same resampled
// series: the false-alarm rate of an unchanged build (series of 50
// invocations, tested at 10, 20, 30, 40 and 50: any p below alpha), and
// the power on a 5% step (8 invocations, then 4 at 5% more; and 20 then
// 3), found when p is below alpha at the step ±1.
func TestRecordedRunsAddPower(t *testing.T) {
	t.Parallel() // a computation on recorded files, its own generator
	if testing.Short() {
		t.Skip("resamples series")
	}
	for _, tc := range []struct {
		set    string
		metric results.Metric
	}{{"quiet", results.MetricWall}, {"quiet", results.MetricCPU}, {"calibrated-quiet", results.MetricWall}, {"heldout", results.MetricWall}} {
		base, more := invocationPools(t, tc.set, tc.metric)
		opts := stats.ChangeOptions{}.WithDefaults()
		fastest := func(gs [][]float64) [][]float64 {
			out := make([][]float64, len(gs))
			for i, g := range gs {
				out[i] = []float64{floats.Min(g)}
			}
			return out
		}
		rng := rand.New(rand.NewPCG(39, 1))
		draw := func(pool [][]float64, n int) [][]float64 {
			out := make([][]float64, n)
			for i := range out {
				out[i] = pool[rng.IntN(len(pool))]
			}
			return out
		}
		const series = 100
		falseRuns, falseMin := 0, 0
		for s := 0; s < series; s++ {
			gs := draw(base, 50)
			hitR, hitM := false, false
			for _, k := range []int{10, 20, 30, 40, 50} {
				if _, p := stats.GroupedEndP(gs[:k], opts); p < opts.Alpha {
					hitR = true
				}
				if _, p := stats.GroupedEndP(fastest(gs[:k]), opts); p < opts.Alpha {
					hitM = true
				}
			}
			if hitR {
				falseRuns++
			}
			if hitM {
				falseMin++
			}
		}
		for _, shape := range [][2]int{{8, 4}, {20, 3}} {
			foundRuns, foundMin := 0, 0
			for s := 0; s < series; s++ {
				gs := append(draw(base, shape[0]), draw(more, shape[1])...)
				if tau, p := stats.GroupedEndP(gs, opts); p < opts.Alpha && tau >= shape[0]-1 && tau <= shape[0]+1 {
					foundRuns++
				}
				if tau, p := stats.GroupedEndP(fastest(gs), opts); p < opts.Alpha && tau >= shape[0]-1 && tau <= shape[0]+1 {
					foundMin++
				}
			}
			t.Logf("%s/%s: 5%% step after %d, %d after: found in %d of %d series by every run, %d by the fastest", tc.set, tc.metric, shape[0], shape[1], foundRuns, series, foundMin)
		}
		t.Logf("%s/%s: unchanged, %d series of 50 (looks at 10..50): false alarms in %d by every run, %d by the fastest (alpha %g a look)", tc.set, tc.metric, series, falseRuns, falseMin, opts.Alpha)
	}
}

// invocationPools are the recorded set's invocations of the program (the
// first workload's none cell) as their runs' values by metric: at the first
// amount of work (unchanged histories, step histories' first 8) and at 5%
// more (step histories' last 4, more-*).
func invocationPools(t *testing.T, set string, metric results.Metric) (base, more [][]float64) {
	groups := func(pattern string) [][][]float64 {
		files, _ := filepath.Glob(filepath.Join("testdata", "recorded", set, pattern))
		var out [][][]float64
		for _, f := range files {
			es, err := Read(f)
			if err != nil {
				t.Fatal(err)
			}
			var gs [][]float64
			for _, e := range es {
				c := e.Cells[0]
				c.Metric = metric
				if xs := c.Values(); len(xs) > 0 {
					gs = append(gs, xs)
				}
			}
			out = append(out, gs)
		}
		return out
	}
	for _, gs := range groups("step-*.jsonl") {
		if len(gs) == 12 {
			base, more = append(base, gs[:8]...), append(more, gs[8:]...)
		}
	}
	for _, gs := range groups("unchanged-*.jsonl") {
		base = append(base, gs...)
	}
	for _, gs := range groups("more-*.jsonl") {
		more = append(more, gs...)
	}
	if len(base) == 0 || len(more) == 0 {
		t.Fatalf("no recorded invocations in testdata/recorded/%s", set)
	}
	return base, more
}
