package runner

import (
	"context"
	"os"

	"vbench/internal/attach"
	"vbench/internal/results"
	"vbench/internal/suite"
)

// launch is what every launch of a plan shares: how a cell's process is
// started and what its results are checked against.
type launch struct {
	env      *Env
	profiler suite.Profiler // the suite's settings for profiled modes
	workDir  string         // profiles are written under it, one directory per launch
	expected map[string]string
}

// newLaunch prepares the plan's launches. expected holds each workload's
// checksum: the suite's, else the first run's (see checkChecksum). The
// cleanup removes the work directory; when it cannot be made, every cell
// fails, since no profiled run could write its profile.
func newLaunch(plan *Plan, env *Env, cells []*cellState) (*launch, func()) {
	l := &launch{env: env, profiler: plan.Suite.Profiler, expected: map[string]string{}}
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
	var profDir string
	if c.Mode.Engine() != "" {
		var err error
		if profDir, err = os.MkdirTemp(l.workDir, "profile-"); err != nil {
			r.Error = "cannot create a profile directory: " + err.Error()
			return r, Outcome{}
		}
		defer os.RemoveAll(profDir)
	}
	out := Exec(ctx, Spec{Argv: c.argv, Env: l.childEnv(c, profDir), Dir: c.Workload.Cwd, Timeout: c.Timeout})
	if out.Interrupted {
		return r, out
	}
	r.WallNs = int64(out.Wall)
	r.UserNs, r.SysNs, r.MaxRSS = int64(out.User), int64(out.Sys), out.MaxRSS
	r.ExitCode, r.Signal = out.ExitCode, out.Signal
	l.check(c, st, &r, out, profDir)
	return r, out
}

// childEnv is a cell's process environment, built here and nowhere else:
// vbench's own environment without any profiler variable, the workload's
// env, and in a profiled mode the variables that load the profiler and tell
// it its engine, settings and where to write the profile (profDir).
func (l *launch) childEnv(c *cellState, profDir string) []string {
	env := append(attach.ScrubEnv(os.Environ()), c.Workload.Env...)
	engine := c.Mode.Engine()
	if engine == "" {
		return env
	}
	return append(env, attach.Env(l.env.Profiler, attach.Options{
		Engine: engine, ProfileDir: profDir, Interval: l.profiler.Interval,
		Include: l.profiler.Include, Exclude: l.profiler.Exclude,
	})...)
}
