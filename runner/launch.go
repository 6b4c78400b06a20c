package runner

import (
	"context"
	"os"
	"slices"
	"strings"
	"time"

	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/results"
)

// launch is what every launch of a plan shares: how a cell's process is
// started and what its results are checked against.
type launch struct {
	env      *Env
	workDir  string // each run's own directory is made under it
	expected map[string]string
}

// newLaunch prepares the plan's launches. expected holds each workload's
// checksum: the suite's, else the first run's (see checkChecksum). The
// cleanup removes the work directory; when it cannot be made, every cell
// fails, since no profiled run could write its profile.
func newLaunch(plan *Plan, env *Env, cells []*cellState) (*launch, func()) {
	l := &launch{env: env, expected: map[string]string{}}
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
	r := results.Run{Seq: seq, Warmup: st.warmup}
	var runDir string
	if c.needsRunDir() {
		var err error
		if runDir, err = os.MkdirTemp(l.workDir, "run-"); err != nil {
			r.Error = "cannot create the run's directory: " + err.Error()
			return r, Outcome{}
		}
		defer os.RemoveAll(runDir)
	}
	out := Exec(ctx, Spec{Argv: c.argv, Env: l.childEnv(c, runDir), Dir: c.Workload.Cwd, Timeout: c.Timeout})
	if out.Interrupted {
		return r, out
	}
	r.WallNs = int64(out.Wall)
	r.UserNs, r.SysNs, r.MaxRSS = int64(out.User), int64(out.Sys), out.MaxRSS
	r.ExitCode, r.Signal = out.ExitCode, out.Signal
	l.check(c, st, &r, out, runDir)
	return r, out
}

// needsRunDir reports whether the cell's runs each need a directory of
// their own: an engine mode's profile goes there, and an environment value
// may name it ({rundir}).
func (c *cellState) needsRunDir() bool {
	if c.Spec.Engine != "" {
		return true
	}
	for _, kv := range append(c.Spec.EnvList(), c.Workload.Env...) {
		if strings.Contains(kv, modes.RunDir) {
			return true
		}
	}
	return false
}

// childEnv is a cell's process environment, built here and nowhere else:
// vbench's own environment without any profiler variable, the workload's
// env, the mode's env (which wins over the workload's), and in an engine
// mode the variables that load vbench's profiler and tell it its engine,
// settings and where to write the profiles (the run's directory), after
// attach.ProfiledDefaults (first, so the parent's, the workload's or the
// mode's value wins). {rundir} in the workload's and the mode's values is
// the run's directory.
func (l *launch) childEnv(c *cellState, runDir string) []string {
	env := attach.ScrubEnv(os.Environ())
	env = append(env, expandRunDir(c.Workload.Env, runDir)...)
	env = append(env, expandRunDir(c.Spec.EnvList(), runDir)...)
	sp := &c.Spec
	if sp.Engine == "" {
		return env
	}
	env = append(slices.Clone(attach.ProfiledDefaults), env...)
	lib := sp.Profiler
	if lib == "" {
		lib = l.env.Profiler
	}
	return append(env, attach.Env(lib, attach.Options{
		Engine: sp.Engine, ProfileDir: runDir, Interval: time.Duration(sp.Interval),
		Include: sp.Include, Exclude: sp.Exclude, TimeSample: sp.TimeSample, NoInline: sp.NoInline, MaxStack: sp.MaxStack,
	})...)
}

// expandRunDir replaces {rundir} in each KEY=VALUE's value with dir; every
// other brace passes through untouched (CLSIDs, the runtime's own {pid}).
func expandRunDir(kvs []string, dir string) []string {
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		out[i] = k + "=" + strings.ReplaceAll(v, modes.RunDir, dir)
	}
	return out
}
