package runner

import (
	"cmp"
	"fmt"
	"slices"
	"time"
	"vbench/internal/summary"

	"vbench/internal/results"
)

// newFile starts the results file: the suite's identity and the effective
// settings, before anything runs.
func newFile(plan *Plan, env *Env) *results.File {
	s := plan.Suite
	f := &results.File{
		Schema:  results.SchemaVersion,
		Suite:   results.Suite{Name: s.Name, Path: s.Path, SHA256: s.SHA256},
		Started: time.Now().UTC(),
		Shard:   plan.Options.Shard,
		Settings: results.Settings{
			Runs: plan.Runs, Warmup: plan.Warmup, Modes: plan.Modes, Timeout: plan.Timeout.String(),
			Alpha: s.Alpha, Threshold: s.MinChange, CountThreshold: s.MinChangeInstructions, MeasureMinChange: s.MeasureMinChange, Seed: plan.Options.Seed,
			Workloads: plan.Options.Workloads, ModeSpecs: plan.Specs, Against: plan.Options.Against,
			Calibration: s.Calibration, Schedule: cmp.Or(plan.Options.Schedule, SchedulePairs),
		},
	}
	for _, c := range plan.Cells {
		if c.Metric.Deterministic() {
			f.Settings.CountingEnv = slices.Clone(countingDefaults)
			f.Settings.Valgrind = env.ValgrindVersion
			break
		}
	}
	pairs := newPairing(plan.Cells)
	f.Settings.WorkloadAgainst = pairs.workloadAgainst()
	for i := range plan.Cells {
		if _, ok := pairs.reference(&plan.Cells[i]); ok { // only A/B pairs take adaptive rounds
			f.Settings.MaxRuns = plan.MaxRuns
		}
	}
	if plan.Profiled {
		f.Settings.Profiler = env.Profiler
		f.Settings.Interval = s.Profiler.Interval
	}
	return f
}

// assemble turns the measured cells into the file's results, in plan order,
// and computes their statistics.
func assemble(f *results.File, cells []*cellState) {
	fillCoverage(cells)
	for _, c := range cells {
		shares, allocs := append(c.shares.checks(), c.lineShares.checks()...), c.allocs.checks(c.Spec.Engine)
		rc := results.Cell{Workload: c.Workload.Name, Mode: c.Mode, Metric: c.Metric, Samples: c.samples, Failure: cellFailure(c, shares, allocs), Accuracy: c.accuracy, Coverage: c.coverage, Shares: shares, Allocs: allocs, Profile: c.profile,
			PlannedRuns: c.Runs, MaxRuns: c.MaxRuns, Stopped: c.stopped, Scale: c.Workload.Scale, Calls: c.growth.calls,
			LineExecutions: c.growth.lineExecutions()}
		if rc.Samples == nil {
			rc.Samples = []results.Run{}
		}
		if rc.Failed() {
			rc.Verdict = results.VerdictFailed
		}
		f.Results = append(f.Results, rc)
	}
	summary.Fill(f)
}

// cellFailure is what fails a finished cell: its first failed run (or
// build), else what all its runs together show: call counts the profiler
// got wrong, shares the sampler measured outside their interval, objects
// an allocation engine counted wrong or estimated outside their interval.
func cellFailure(c *cellState, shares []results.ShareCheck, allocs []results.AllocCheck) string {
	if c.failure != "" {
		return c.failure
	}
	if a := c.accuracy; a != nil && a.Exact < a.Checked {
		m := a.Mismatches[0]
		if m.Line != "" {
			return fmt.Sprintf("profiler counts wrong in %d of %d exact checks: workload %s, line %s: expected %d executions, profile says %d",
				a.Checked-a.Exact, a.Checked, c.Workload.Name, m.Line, m.Expected, m.Actual)
		}
		return fmt.Sprintf("profiler call counts wrong in %d of %d checks: workload %s, function %s: expected %d calls, profile says %d",
			a.Checked-a.Exact, a.Checked, c.Workload.Name, m.Function, m.Expected, m.Actual)
	}
	if msg := sharesFailure(c.Workload.Name, shares); msg != "" {
		return msg
	}
	return allocsFailure(c.Workload.Name, allocs)
}
