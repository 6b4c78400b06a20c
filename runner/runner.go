package runner

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"vbench/internal/atomicfile"
	"vbench/internal/attach"
	"vbench/internal/machine"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/suite"
	"vbench/stats"
)

// Event is one step of progress.
type Event struct {
	Done, Total int // launches finished / planned
	Cell        string
	Warmup      bool
	Run         *results.Run // nil for a build step
	Message     string       // build steps and failures
}

// Progress receives events as the run goes; it may be nil.
type Progress interface {
	Begin(total int)
	Step(Event)
	End()
}

// Env says how runs are launched.
type Env struct {
	Profiler    string // absolute path of a checked library; needed when the plan is profiled
	ProfilesDir string // keep each cell's last profile here (<dir>/<workload>/<mode>); "" keeps none
	Progress    Progress
	Log         func(format string, args ...any) // warnings and build notes; may be nil
}

// cellState is a cell being measured.
type cellState struct {
	Cell
	samples  []results.Run
	failure  string
	accuracy *results.Accuracy
	cover    coverageSets      // what sampling coverage needs of the measured profiles
	coverage *results.Coverage // sampling cells: set after the last run
	argv     []string
	profile  string
}

// Run measures plan. It returns the results gathered so far when ctx is
// cancelled (File.Partial set); a failing workload fails only its own cells.
// The caller fills in File.Machine.
func Run(ctx context.Context, plan *Plan, env Env) *results.File {
	logf := env.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	s := plan.Suite
	f := &results.File{
		Schema:  results.SchemaVersion,
		Suite:   results.Suite{Name: s.Name, Path: s.Path, SHA256: s.SHA256},
		Started: time.Now().UTC(),
		Shard:   plan.Options.Shard,
		Settings: results.Settings{
			Runs: plan.Runs, Warmup: plan.Warmup, Modes: plan.Modes, Timeout: plan.Timeout.String(),
			Alpha: s.Alpha, Threshold: s.MinChange, Seed: plan.Options.Seed,
			Workloads: plan.Options.Workloads,
		},
	}
	if plan.Profiled {
		f.Settings.Profiler = env.Profiler
		if s.Profiler.Interval > 0 {
			f.Settings.Interval = s.Profiler.Interval.String()
		}
	}
	cells := make([]*cellState, len(plan.Cells))
	for i, c := range plan.Cells {
		cells[i] = &cellState{Cell: c}
	}

	// Build each project once, however many cells use it.
	built := map[string]string{}
	buildErr := map[string]error{}
	dotnet, dotnetErr := exec.LookPath("dotnet")
	for _, c := range cells {
		w := c.Workload
		if w.Project == "" {
			c.argv = append([]string(nil), w.Command...)
			continue
		}
		if _, done := built[w.Project]; !done && buildErr[w.Project] == nil {
			if dotnetErr != nil {
				buildErr[w.Project] = fmt.Errorf("dotnet not found on PATH: %v", dotnetErr)
			} else {
				logf("building %s", w.Project)
				dll, err := BuildProject(ctx, dotnet, w.Project)
				if err != nil {
					buildErr[w.Project] = err
				} else {
					built[w.Project] = dll
				}
			}
		}
		if err := buildErr[w.Project]; err != nil {
			c.failure = "build failed: " + err.Error()
			continue
		}
		c.argv = append([]string{dotnet, built[w.Project]}, w.Args...)
	}

	workDir, err := os.MkdirTemp("", "vbench-run-")
	if err != nil {
		for _, c := range cells {
			c.failure = "cannot create a work directory: " + err.Error()
		}
	} else {
		defer os.RemoveAll(workDir)
	}

	order := schedule(cells, plan.Options.Seed)
	if env.Progress != nil {
		env.Progress.Begin(len(order))
		defer env.Progress.End()
	}
	expected := map[string]string{} // checksum per workload, from the suite or the first run
	for _, c := range cells {
		if c.Workload.Checksum != "" {
			expected[c.Workload.Name] = c.Workload.Checksum
		}
	}
	loopStart := time.Now()
	busy0, busyOK := machine.BusyCPU()
	self0 := selfCPU()
	var childWall, childCPU time.Duration
	launches := 0
	for i, st := range order {
		if ctx.Err() != nil {
			f.Partial = true
			break
		}
		c := st.cell
		if c.failure != "" {
			if env.Progress != nil {
				env.Progress.Step(Event{Done: i + 1, Total: len(order), Cell: c.Key(), Warmup: st.warmup})
			}
			continue
		}
		r, interrupted := runOnce(ctx, c, st, i, workDir, s.Profiler, env, expected)
		if interrupted {
			f.Partial = true
			break
		}
		launches++
		childWall += time.Duration(r.WallNs)
		childCPU += time.Duration(r.UserNs + r.SysNs)
		c.samples = append(c.samples, r)
		if r.Error != "" && c.failure == "" {
			c.failure = r.Error
			if st.warmup {
				c.failure = "warmup run: " + r.Error
			}
		}
		if env.Progress != nil {
			env.Progress.Step(Event{Done: i + 1, Total: len(order), Cell: c.Key(), Warmup: st.warmup, Run: &r, Message: r.Error})
		}
	}
	if launches > 0 {
		loop := time.Since(loopStart)
		f.BookkeepingNs = float64(loop-childWall) / float64(launches)
		if busy1, ok := machine.BusyCPU(); ok && busyOK {
			// All the machine's CPU time, minus the children's and vbench's own.
			others := busy1 - busy0 - childCPU - (selfCPU() - self0)
			f.OtherCPU = math.Max(0, float64(others)/float64(loop))
		}
	}
	f.Finished = time.Now().UTC()
	fillCoverage(cells)

	for _, c := range cells {
		rc := results.Cell{Workload: c.Workload.Name, Mode: c.Mode, Samples: c.samples, Failure: c.failure, Accuracy: c.accuracy, Coverage: c.coverage, Profile: c.profile}
		if rc.Samples == nil {
			rc.Samples = []results.Run{}
		}
		if c.accuracy != nil && c.accuracy.Exact < c.accuracy.Checked && rc.Failure == "" {
			m := c.accuracy.Mismatches[0]
			rc.Failure = fmt.Sprintf("profiler call counts wrong in %d of %d checks: workload %s, function %s: expected %d calls, profile says %d",
				c.accuracy.Checked-c.accuracy.Exact, c.accuracy.Checked, c.Workload.Name, m.Function, m.Expected, m.Actual)
		}
		if rc.Failed() {
			rc.Verdict = results.VerdictFailed
		}
		f.Results = append(f.Results, rc)
	}
	stats.Fill(f)
	return f
}

type step struct {
	cell   *cellState
	warmup bool
}

// schedule orders every launch: all warmups first, then the measured runs in
// rounds; each round runs every cell that still needs a run once, in a fresh
// random order (seeded), so slow drift and periodic noise hit all modes and
// workloads alike instead of piling up on whichever ran last.
func schedule(cells []*cellState, seed uint64) []step {
	rng := rand.New(rand.NewPCG(seed, 0x76626e6368))
	var out []step
	rounds := func(count func(*cellState) int, warmup bool) {
		for r := 0; ; r++ {
			var round []*cellState
			for _, c := range cells {
				if r < count(c) {
					round = append(round, c)
				}
			}
			if len(round) == 0 {
				return
			}
			rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
			for _, c := range round {
				out = append(out, step{c, warmup})
			}
		}
	}
	rounds(func(c *cellState) int { return c.Warmup }, true)
	rounds(func(c *cellState) int { return c.Runs }, false)
	return out
}

// runOnce launches one run of c and checks everything a run must show.
func runOnce(ctx context.Context, c *cellState, st step, seq int, workDir string, prof suite.Profiler, env Env, expected map[string]string) (results.Run, bool) {
	w := c.Workload
	r := results.Run{Seq: seq, Warmup: st.warmup}
	childEnv := append(attach.ScrubEnv(os.Environ()), w.Env...)
	var profDir string
	engine := c.Mode.Engine()
	if engine != "" {
		var err error
		profDir, err = os.MkdirTemp(workDir, "profile-")
		if err != nil {
			r.Error = "cannot create a profile directory: " + err.Error()
			return r, false
		}
		defer os.RemoveAll(profDir)
		childEnv = append(childEnv, attach.Env(env.Profiler, attach.Options{
			Engine: engine, ProfileDir: profDir, Interval: prof.Interval,
			Include: prof.Include, Exclude: prof.Exclude,
		})...)
	}
	out := Exec(ctx, Spec{Argv: c.argv, Env: childEnv, Dir: w.Cwd, Timeout: c.Timeout})
	if out.Interrupted {
		return r, true
	}
	r.WallNs = int64(out.Wall)
	r.UserNs, r.SysNs, r.MaxRSS = int64(out.User), int64(out.Sys), out.MaxRSS
	r.ExitCode, r.Signal = out.ExitCode, out.Signal
	if msg := out.Failure(c.Timeout); msg != "" {
		r.Error = msg
		return r, false
	}
	switch len(out.VBENCH) {
	case 0:
		r.Error = "printed no VBENCH line (want: VBENCH elapsed_ns=<int> checksum=<string>)"
		if out.Stdout != "" {
			r.Error += "; last output: " + oneLine(out.Stdout)
		}
		return r, false
	case 1:
	default:
		r.Error = fmt.Sprintf("printed %d VBENCH lines; want exactly one", len(out.VBENCH))
		return r, false
	}
	rep, err := ParseLine(out.VBENCH[0])
	if err != nil {
		r.Error = err.Error()
		return r, false
	}
	r.ElapsedNs, r.Checksum = rep.ElapsedNs, rep.Checksum
	if want, ok := expected[w.Name]; ok {
		if rep.Checksum != want {
			src := "the suite"
			if w.Checksum == "" {
				src = "earlier runs"
			}
			r.Error = fmt.Sprintf("checksum mismatch: got %q, expected %q (from %s)", rep.Checksum, want, src)
			return r, false
		}
	} else {
		expected[w.Name] = rep.Checksum
	}
	if profDir == "" {
		return r, false
	}
	p, err := profile.ReadFile(profDir)
	if err != nil {
		if os.IsNotExist(err) {
			r.Error = noProfile(out.Profiler)
		} else {
			r.Error = "profiler wrote an unreadable profile: " + err.Error()
		}
		return r, false
	}
	if p.Mode != engine {
		r.Error = fmt.Sprintf("profile says mode %q, the run asked for %q", p.Mode, engine)
		return r, false
	}
	if engine.CountsCalls() && len(rep.Calls) > 0 && !st.warmup {
		checkCalls(c, seq, p, rep.Calls)
	}
	if !st.warmup {
		switch engine {
		case results.EngineTracing:
			c.cover.addTracing(p)
		case results.EngineSampling:
			c.cover.addSampling(p)
		}
	}
	if !st.warmup && env.ProfilesDir != "" {
		dst := filepath.Join(env.ProfilesDir, w.Name, string(c.Mode))
		if err := keepProfile(profDir, dst); err == nil {
			c.profile = dst
		} else if env.Log != nil {
			env.Log("keeping the profile of %s: %v", c.Key(), err)
		}
	}
	return r, false
}

// noProfile explains a profiled run that left no profile, quoting the
// profiler when it said why: never a silent unprofiled run.
func noProfile(said []string) string {
	quote := strings.Join(said, " / ")
	switch {
	case strings.Contains(quote, "running unprofiled"):
		return "profiler did not initialise, so the run was unprofiled: " + quote
	case quote != "":
		return "profiler wrote no profile: " + quote
	}
	return "profiler did not load or wrote no profile (no " + profile.JSONFile + " in VBENCH_PROFILE_DIR)"
}

// selfCPU is the CPU time vbench itself has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// checkCalls compares the profile's call counts (all rows named f, summed)
// with the workload's exact expectations.
func checkCalls(c *cellState, seq int, p *profile.Profile, want map[string]int64) {
	if c.accuracy == nil {
		c.accuracy = &results.Accuracy{}
	}
	got := map[string]int64{}
	for _, fn := range p.Functions {
		got[fn.Name] += fn.Calls
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c.accuracy.Checked++
		if got[n] == want[n] {
			c.accuracy.Exact++
		} else if len(c.accuracy.Mismatches) < 10 {
			c.accuracy.Mismatches = append(c.accuracy.Mismatches, results.CallMismatch{Seq: seq, Function: n, Expected: want[n], Actual: got[n]})
		}
	}
}

// keepProfile replaces dst's files with copies of the files in src, each
// written atomically: an interrupted or failed copy leaves the previous
// profile whole, never half of one (files it no longer has are removed last).
func keepProfile(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			return err
		}
		keep[e.Name()] = true
	}
	old, _ := os.ReadDir(dst)
	for _, e := range old {
		if !keep[e.Name()] {
			os.RemoveAll(filepath.Join(dst, e.Name()))
		}
	}
	return nil
}
