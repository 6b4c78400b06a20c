package runner

import (
	"context"
	"time"
	"vbench/internal/instrprof"

	"vbench/internal/profdiff"
	"vbench/internal/results"
)

// Event is one step of progress.
type Event struct {
	Done, Total int // launches finished / planned
	Cell        string
	Warmup      bool
	Why         bool           // a counted cell's launch for its instruction profile (not measured)
	Run         *results.Run   // nil for a build step
	Metric      results.Metric // what the cell's runs are measured by
	Message     string         // build steps and failures
}

// Progress receives events as the run goes; it may be nil.
type Progress interface {
	Begin(total int)
	Step(Event)
	End()
}

// Env says how runs are launched.
type Env struct {
	Profiler string // absolute path of a checked library; needed when the plan is profiled
	Valgrind string // valgrind's path; needed when a cell is measured in instructions (valgrind.go)
	// ValgrindVersion is its `--version` (ValgrindVersion), recorded with
	// the counts (results.Settings.Valgrind).
	ValgrindVersion string
	KernelMarks     string // the kernel marks' library (kernelmarks.go); needed by kernel-instructions cells
	Jobs            int    // launches at once when every cell's metric is deterministic (loop.go); 0 or 1: one
	ProfilesDir     string // keep each cell's last profile here (<dir>/<workload>/<mode>); "" keeps none
	Progress        Progress
	Log             func(format string, args ...any) // warnings and build notes; may be nil
}

func (e *Env) logf(format string, args ...any) {
	if e.Log != nil {
		e.Log(format, args...)
	}
}

// Run measures plan. It returns the results gathered so far when ctx is
// cancelled (File.Partial set); a failing workload fails only its own cells.
// The caller fills in File.Machine. With the file it hands over its A/B
// pairs' whys, found from their profiles before any verdict exists, for the
// caller to judge the file with (verdict.Options.Whys).
//
// The steps, each in its own file: build what the cells need once
// (build.go), order every launch (schedule.go), launch and check each run
// (launch.go, check.go) in the measuring loop (loop.go), adding rounds to
// A/B pairs whose verdict is undecided (adaptive.go), and assemble the
// cells into the results file (assemble.go).
func Run(ctx context.Context, plan *Plan, env Env) (*results.File, results.Whys) {
	began := time.Now() // --budget counts the builds too
	f := newFile(plan, &env)
	cells := newCells(plan)
	buildAll(ctx, cells, &env)
	l, cleanup := newLaunch(plan, &env, cells)
	defer cleanup()
	pairs := runPairs(cells, plan)
	us := units(cells, pairs, plan.Options.Schedule)
	jobs := 1
	if plan.Deterministic() {
		jobs = env.Jobs
	}
	sched := newPlanned(cells, us, plan.Options.Seed)
	ad := newAdaptive(pairs, us, sched, plan, &env, began)
	// One round a batch; with jobs > 1, rounds enough to keep the jobs busy
	// (a batch's last launches wait for its slowest).
	size := 1
	if jobs > 1 {
		size = 64 * jobs
	}
	whyAsked := false
	more := func() []step {
		var out []step
		for len(out) < size {
			st := sched.next()
			if st == nil {
				break
			}
			out = append(out, st...)
		}
		if len(out) > 0 {
			return out
		}
		if out = ad.next(); len(out) > 0 {
			return out
		}
		if !whyAsked {
			whyAsked = true
			out = whySteps(ad.unsettled())
		}
		return out
	}
	acct, complete := measure(ctx, l, sched.total(), more, env.Progress, jobs)
	f.Partial = !complete
	acct.record(f)
	f.Finished = time.Now().UTC()
	assemble(f, cells)
	whys := explainPairs(f, cells)
	nameLines(f, cells, whys)
	return f, whys
}

// cellState is a cell being measured: its runs so far and what they showed.
type cellState struct {
	Cell
	argv      []string // what each launch runs: the command, or dotnet and the built assembly
	hook      string   // vbench's startup hook assembly for a .NET program (hook.go); "" for none
	samples   []results.Run
	failure   string // the first problem; a failed cell launches nothing more
	accuracy  *results.Accuracy
	cover     coverageSets      // what sampling coverage needs of the measured profiles
	shares    shareTally        // sampling cells: what the share checks need of the measured profiles
	allocs    allocTally        // allocation cells: what the alloc checks need of the measured profiles
	allocSide profdiff.Allocs   // allocation cells: every measured run's allocations, for explain
	coverage  *results.Coverage // sampling cells: set after the last run
	profile   string            // where its last measured profile was kept
	side      profdiff.Side     // engine modes: every measured run's function totals, for explain
	stopped   string            // the NEW side of an A/B pair: why its rounds stopped (adaptive.go)

	// Sampling cells with lines: the share checks of the declared lines
	// (lineshares.go).
	lineShares shareTally
	// Engine cells with lines: each function's lines, for explain (explainlines.go).
	lineSide lineSide
	// Counted cells of an unsettled A/B pair: the instructions of their
	// why launch by function, or why there are none (why.go).
	instr     *instrprof.Profile
	instrErr  string
	noPerfMap string // why instr's JIT-compiled code is unnamed (noPerfMap)
	whyR2ROff bool   // instr's launch ran without precompiled code (whyEnv)
	// Scaled cells of an engine that counts calls: every run's calls.
	growth growthCalls
}

func newCells(plan *Plan) []*cellState {
	cells := make([]*cellState, len(plan.Cells))
	for i, c := range plan.Cells {
		cells[i] = &cellState{Cell: c}
	}
	return cells
}

// record adds one run to the cell; the first failing run fails the cell.
func (c *cellState) record(r results.Run, warmup bool) {
	c.samples = append(c.samples, r)
	if r.Error != "" && c.failure == "" {
		c.failure = r.Error
		if warmup {
			c.failure = "warmup run: " + r.Error
		}
	}
}
