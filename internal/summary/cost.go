package summary

import (
	"slices"

	"vbench/stats"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// The profiler's cost per event: what one call costs a cell whose engine
// counts calls exactly (and the null engine, whose hooks fire on the same
// calls), what one sample taken costs a sampling cell. It is
//
//	(median of the cell − median of the workload's none cell) / events per run
//
// with the 95% percentile-bootstrap interval of the difference of medians
// (DiffCI: the two cells resampled on their own, as RatioCI does for the
// overhead multiple) divided by the same events per run. The events per run
// are a count, not a measurement: the median over the cell's measured runs of
// what their profiles counted (results.Run.Calls, SamplesTaken), identical
// in every run of a deterministic workload, so dividing by it scales the
// interval and adds no uncertainty of its own.

// MinCallsForCost is the fewest calls a run must make for a cost per call
// to be given: below it the profiler's fixed cost in a run (loading it, code
// JIT-compiled instead of precompiled, writing the profile: milliseconds)
// outweighs its calls, and the quotient named a cost per call it was not
// (a new user's 21-call program read 179 µs/call).
const MinCallsForCost = 10000

// fillCost sets every cell's events per run and cost per event (zero when
// there is no none cell, no count, or too few calls: MinCallsForCost).
func fillCost(f *results.File) {
	for i := range f.Results {
		c := &f.Results[i]
		c.CallsPerRun, c.CostPerCallNs, c.CostPerCallLoNs, c.CostPerCallHiNs = 0, 0, 0, 0
		c.SamplesPerRun, c.CostPerSampleNs, c.CostPerSampleLoNs, c.CostPerSampleHiNs = 0, 0, 0, 0
		// A service's time is per request under a load of many
		// connections, not the time its calls took: no cost per event.
		if c.Runs == 0 || c.Mode == modes.None || c.Metric.Service() {
			continue
		}
		c.CallsPerRun = callsPerRun(f, c)
		c.SamplesPerRun = PerRun(c, func(r *results.Run) int64 { return r.SamplesTaken })
		none := f.Find(c.Workload, modes.None)
		if none == nil || none.Runs == 0 {
			continue
		}
		d, lo, hi := stats.DiffCI(c.Values(), none.Values())
		if c.Metric.Deterministic() && none.Metric == c.Metric {
			d, lo, hi = stats.ExactDiff(c.Values(), none.Values()) // instructions a call
		}
		if lo == 0 && hi == 0 {
			continue // too few runs for an interval: no cost shown rather than half of one
		}
		if n := c.CallsPerRun; n >= MinCallsForCost {
			c.CostPerCallNs, c.CostPerCallLoNs, c.CostPerCallHiNs = d/n, lo/n, hi/n
		}
		if n := c.SamplesPerRun; n > 0 {
			c.CostPerSampleNs, c.CostPerSampleLoNs, c.CostPerSampleHiNs = d/n, lo/n, hi/n
		}
	}
}

// PerRun is the median over c's measured runs of a count its profiles
// recorded, 0 when none recorded it (older files, engine-less modes). A
// run's 0 counts once some run has one (a short kernel between two ticks).
func PerRun(c *results.Cell, count func(*results.Run) int64) float64 {
	var xs []float64
	some := false
	for _, r := range c.Measured() {
		n := count(&r)
		xs = append(xs, float64(n))
		some = some || n > 0
	}
	if !some {
		return 0
	}
	return stats.Median(xs)
}

// callsPerRun is c's calls per run: its own profiles' count, or for a null
// cell (whose hooks count nothing) the count of the workload's tracing cell
// with the same filter, which hooks exactly the same functions; the same
// build's twin is preferred (tracing for null, tracing@old for null@old).
func callsPerRun(f *results.File, c *results.Cell) float64 {
	calls := func(x *results.Cell) float64 { return PerRun(x, func(r *results.Run) int64 { return r.Calls }) }
	spec := f.ModeSpec(c.Mode)
	if spec.Engine != modes.EngineNull {
		return calls(c)
	}
	best := 0.0
	for i := range f.Results {
		t := &f.Results[i]
		ts := f.ModeSpec(t.Mode)
		if t.Workload != c.Workload || ts.Engine != modes.EngineTracing ||
			!slices.Equal(ts.Include, spec.Include) || !slices.Equal(ts.Exclude, spec.Exclude) {
			continue
		}
		if n := calls(t); n > 0 {
			if t.Mode.IsOldBuild() == c.Mode.IsOldBuild() {
				return n
			}
			best = n
		}
	}
	return best
}
