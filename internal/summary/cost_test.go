package summary

import (
	"math"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// A cell of n runs at ns + k·step, each with the given profile counts.
func costCell(m modes.Mode, ns, step int64, calls, samples int64) results.Cell {
	c := results.Cell{Workload: "w", Mode: m, Metric: results.MetricElapsed}
	for k := int64(0); k < 9; k++ {
		c.Samples = append(c.Samples, results.Run{Seq: int(k), ElapsedNs: ns + k*step, Calls: calls, SamplesTaken: samples})
	}
	return c
}

// Cost per event: (median − none's median) / events per run, inside its
// bootstrap interval; null divides by its tracing cell's calls (its own
// profile counts none), sampling by its samples; none and an engine-less
// mode get none.
func TestFillCost(t *testing.T) {
	f := &results.File{Results: []results.Cell{
		costCell(modes.None, 1_000_000, 1000, 0, 0),
		costCell(modes.Null, 1_500_000, 1000, 0, 0),
		costCell(modes.Tracing, 3_000_000, 1000, 10_000, 0),
		costCell(modes.Instrumentation, 3_000_000, 1000, 9_999, 0), // too few calls for a cost per call
		costCell(modes.Sampling, 1_100_000, 1000, 0, 50),
		costCell("other", 2_000_000, 1000, 0, 0),
	}}
	// A service's cells, whose time is a request's under load: none.
	for _, m := range []modes.Mode{modes.None, modes.Tracing} {
		c := costCell(m, 1_000_000, 1000, 10_000, 0)
		c.Workload, c.Metric = "web", results.MetricRPS
		f.Results = append(f.Results, c)
	}
	Fill(f)
	for _, c := range []struct {
		mode        modes.Mode
		calls, cost float64
		samples     float64
		perSample   float64
	}{
		{modes.None, 0, 0, 0, 0},
		{modes.Null, 10_000, 50, 0, 0},
		{modes.Tracing, 10_000, 200, 0, 0},
		{modes.Instrumentation, 9_999, 0, 0, 0},
		{modes.Sampling, 0, 0, 50, 2000},
		{"other", 0, 0, 0, 0},
	} {
		got := f.Find("w", c.mode)
		if got.CallsPerRun != c.calls || math.Abs(got.CostPerCallNs-c.cost) > 1e-9 || got.SamplesPerRun != c.samples || math.Abs(got.CostPerSampleNs-c.perSample) > 1e-9 {
			t.Errorf("%s: calls %v cost %v, samples %v cost %v; want %v %v, %v %v", c.mode,
				got.CallsPerRun, got.CostPerCallNs, got.SamplesPerRun, got.CostPerSampleNs, c.calls, c.cost, c.samples, c.perSample)
		}
		if c.cost != 0 && !(got.CostPerCallLoNs < got.CostPerCallNs && got.CostPerCallNs < got.CostPerCallHiNs) {
			t.Errorf("%s: cost %v outside [%v, %v]", c.mode, got.CostPerCallNs, got.CostPerCallLoNs, got.CostPerCallHiNs)
		}
	}
	if web := f.Find("web", modes.Tracing); web.CallsPerRun != 0 || web.CostPerCallNs != 0 {
		t.Errorf("a service's tracing cell: calls %v cost %v, want no cost per event", web.CallsPerRun, web.CostPerCallNs)
	}
}
