package runner

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/results"
)

// launch is what every launch of a plan shares: how a cell's process is
// started and what its results are checked against.
type launch struct {
	mu       sync.Mutex // held while a finished run is checked against its cell
	seed     uint64     // the plan's: draws each run's environment pad
	env      *Env
	workDir  string // each run's own directory is made under it
	expected map[string]string
}

// newLaunch prepares the plan's launches. expected holds each workload's
// checksum: the suite's, else the first run's (see checkChecksum). The
// cleanup removes the work directory; when it cannot be made, every cell
// fails, since no profiled run could write its profile (vbench run checks
// TMPDIR before it starts, so this is the case of a TMPDIR broken meanwhile).
func newLaunch(plan *Plan, env *Env, cells []*cellState) (*launch, func()) {
	l := &launch{seed: plan.Options.Seed, env: env, expected: map[string]string{}}
	for _, c := range cells {
		if c.Workload.Checksum != "" {
			l.expected[c.Workload.Name] = c.Workload.Checksum
		}
	}
	dir, err := os.MkdirTemp("", "vbench-run-")
	if err != nil {
		for _, c := range cells {
			c.failure = "cannot create a work directory: " + err.Error()
		}
		return l, func() {}
	}
	l.workDir = dir
	return l, func() { os.RemoveAll(dir) }
}

// run launches one step and checks what it did. It returns the run's record
// and the process's outcome, which the loop's accounting needs even when the
// launch was interrupted (Outcome.Interrupted; the record is then void).
func (l *launch) run(ctx context.Context, st step, seq int) (results.Run, Outcome) {
	c := st.cell
	r := results.Run{Seq: seq, Warmup: st.warmup, Round: st.round}
	var runDir string
	if c.needsRunDir() {
		var err error
		if runDir, err = os.MkdirTemp(l.workDir, "run-"); err != nil {
			r.Error = "cannot create the run's directory: " + err.Error()
			return r, Outcome{}
		}
		defer os.RemoveAll(runDir)
	}
	var lib string // the run's own copy of an engine mode's build
	if c.Spec.Engine != "" {
		var cleanup func()
		var err error
		if lib, cleanup, err = l.libraryCopy(c); err != nil {
			r.Error = "cannot copy the profiler library for the run: " + err.Error()
			return r, Outcome{}
		}
		defer cleanup()
	}
	var hookDir string // where the startup hook writes (hook.go)
	if c.hook != "" {
		var err error
		if hookDir, err = os.MkdirTemp(l.workDir, "hook-"); err != nil {
			r.Error = "cannot create the run's hook directory: " + err.Error()
			return r, Outcome{}
		}
		defer os.RemoveAll(hookDir)
	}
	la := l.launcher(c, runDir, lib, hookDir)
	pad := envPad(l.seed, seq)
	if c.Metric.Deterministic() {
		// The pad moves the stack to defeat layout bias in time; in a
		// count it would only add the instructions that scan it.
		pad = "VBENCH_ENV_PAD="
	}
	env := la.Env(os.Environ(), []string{pad}, c.Workload.Env)
	spec := Spec{Argv: la.Argv(c.argv), Env: env, Dir: c.Workload.Cwd, Timeout: c.Timeout, Wrapped: len(c.Spec.Wrap) > 0}
	var mapOff string // why a why launch has no perf map (whyEnv)
	var r2rOff bool   // a why launch without precompiled code (whyEnv)
	if c.Metric.Count() {
		spec.Argv = append(valgrindArgs(l.env.Valgrind, runDir, c.Metric, st.why), spec.Argv...)
		spec.Env = countingEnv(spec.Env)
		if st.why {
			var add []string
			add, mapOff, r2rOff = whyEnv(spec.Env, runDir, st.noR2R)
			spec.Env = append(spec.Env, add...)
		}
		if c.Metric == results.MetricKernelInstructions {
			spec.Env = append(spec.Env, KernelMarksVar+"="+l.env.KernelMarks)
		}
	}
	if c.Spec.Engine.Samples() && c.Spec.Attach == nil && !c.Metric.Count() && exportsKernelMarks(l.build(c)) {
		// The profiler is the kernel marks' library: its samplers count the
		// kernel apart, for the why (kernelmarks.go).
		spec.Env = append(spec.Env, KernelMarksVar+"="+lib)
	}
	if c.Spec.Engine == "" {
		// Another profiler has no profile to show: its library must
		// at least be seen in the process (loaded.go).
		spec.Library = foreignProfiler(env)
	}
	var out Outcome
	if c.Workload.Server != nil {
		out = l.serve(ctx, c, spec, &r, lib, runDir) // service.go
	} else {
		out = Exec(ctx, spec)
	}
	if out.Interrupted {
		return r, out
	}
	if st.why {
		l.keepWhy(c, &r, out, runDir, mapOff, r2rOff)
		return r, out
	}
	r.WallNs = int64(out.Wall)
	r.UserNs, r.SysNs, r.MaxRSS = int64(out.User), int64(out.Sys), out.MaxRSS
	r.ExitCode, r.Signal = out.ExitCode, out.Signal
	// What the run cost the whole program, kept whatever the checks say.
	wholeProgram(hookDir, out.Pid, out.StartMono, &r)
	if out.ReadyMono > 0 && out.StartMono > 0 {
		r.StartupNs = results.Int64(out.ReadyMono - out.StartMono) // a service: until ready answers
	}
	if c.Spec.Engine != "" && runDir != "" {
		if n, err := profileBytes(runDir); err == nil {
			r.ProfileBytes = results.Int64(n)
		}
	}
	var cnt runCount
	if c.Metric.Count() {
		cnt = count(runDir)
	}
	// What follows reads and writes the cell's state: runs of a
	// deterministic metric finish in parallel (loop.go), one at a time here.
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.Error != "" { // the service's own failure
		l.keepCrashed(c, st, &r, runDir)
		return r, out
	}
	l.check(c, st, &r, out, spec.Library, runDir)
	if c.Metric.Count() {
		counted(&r, cnt, c.Metric)
	}
	return r, out
}

// needsRunDir reports whether the cell's runs each need a directory of
// their own: an engine mode's profile goes there, and an environment value
// or a wrapper's argument may name it ({rundir}).
func (c *cellState) needsRunDir() bool {
	if c.Spec.Engine != "" || c.Spec.Profile != nil { // a mode's profile may be in it
		return true
	}
	if c.Metric.Count() { // valgrind's count files
		return true
	}
	for _, kv := range append(append(c.Spec.EnvList(), c.Workload.Env...), c.Spec.Wrap...) {
		if strings.Contains(kv, modes.RunDir) {
			return true
		}
	}
	return false
}

// launcher is how a run of cell c starts, by attach.Launch (the one
// launcher, which vbench profile uses too). Its environment is vbench's own
// without any profiler variable, the run's pad, the workload's env, the
// mode's env (which wins over the workload's), and in an engine mode the
// variables that load vbench's profiler and tell it its engine, settings
// and where to write the profiles (the run's directory); its command is the
// mode's wrapper, if any, before the workload's. {rundir} in the workload's
// and the mode's values and in the wrapper's arguments is the run's
// directory. lib is the run's copy of the build (libraryCopy); the build
// itself is named in VBENCH_PROFILER_BUILD. A .NET program's runs, in every
// mode, get vbench's startup hook writing into hookDir (hook.go).
func (l *launch) launcher(c *cellState, runDir, lib, hookDir string) attach.Launch {
	la := attach.Launch{Spec: c.Spec, Library: lib, RunDir: runDir, StartupHook: c.hook, HookDir: hookDir}
	if c.Spec.Attach != nil {
		la.Spec.Engine = "" // started unprofiled: the engine is attached later (attachload.go)
	}
	if la.Spec.Engine != "" {
		la.Build = l.build(c)
	}
	return la
}

// build is the profiler library an engine cell's mode names, else the run's.
func (l *launch) build(c *cellState) string {
	if c.Spec.Profiler != "" {
		return c.Spec.Profiler
	}
	return l.env.Profiler
}

// Two cells that differ only in which copy of one library they load must
// measure alike: an A/A run of two copies of the same build once read
// -6% (p < 0.001) within one run. Whatever a side keeps fixed for a whole
// run and the other side does not — the library's path (and with it the
// environment's size), the file's pages in the page cache — is made equal
// or drawn afresh for every run, so that it is noise the verdict's test
// accounts for, not a bias (Mytkowicz et al., "Producing wrong data
// without doing anything obviously wrong", ASPLOS 2009):
//
//   - libraryCopy: every run of an engine mode loads a fresh copy of its
//     build, at a path of the same length for every build (a new file:
//     new pages, placed anew);
//   - envPad: every run's environment gets VBENCH_ENV_PAD of a random
//     length (0-255 bytes), so the process's stack and environment start at
//     a different offset each run whatever the paths' lengths.

// libraryCopy copies the cell's profiler build to a directory of its own
// for one run: <work dir>/lib-XXXXXXXXX/libvbenchprof.so. The original path
// stays in VBENCH_PROFILER_BUILD for the profile and for tools that tell
// builds apart by path.
func (l *launch) libraryCopy(c *cellState) (string, func(), error) {
	dir, err := os.MkdirTemp(l.workDir, "lib-")
	if err != nil {
		return "", func() {}, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	dst := filepath.Join(dir, "libvbenchprof.so")
	if err := copyFile(l.build(c), dst); err != nil {
		cleanup()
		return "", func() {}, err
	}
	return dst, cleanup, nil
}

// envPad is VBENCH_ENV_PAD=<0-255 x's>, the length drawn from the plan's
// seed and the run's position (reproducible, different every run).
func envPad(seed uint64, seq int) string {
	n := rand.New(rand.NewPCG(seed, uint64(seq)^0x706164)).IntN(256) // "pad"
	return "VBENCH_ENV_PAD=" + strings.Repeat("x", n)
}
