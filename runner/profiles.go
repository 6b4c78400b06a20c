package runner

import (
	"io"
	"os"
	"path/filepath"

	"vbench/internal/atomicfile"
	"vbench/internal/profile"
	"vbench/internal/results"
)

// useProfile takes from a measured run's profile what the cell keeps: the
// call-count check (an engine that counts calls, when the workload declares
// counts) and the names sampling coverage needs.
func (l *launch) useProfile(c *cellState, seq int, p *profile.Profile, rep Report) {
	e := c.Spec.Engine
	if e.CountsCalls() && len(rep.Calls) > 0 {
		checkCalls(c, seq, p, rep.Calls)
	}
	switch e {
	case results.EngineTracing:
		c.cover.addTracing(p)
	case results.EngineSampling:
		c.cover.addSampling(p)
	}
}

// keep copies a measured run's directory (an engine mode's profile, or
// whatever a mode's {rundir} received: a trace, another profiler's output)
// to Env.ProfilesDir/<workload>/<mode>, replacing the previous run's.
func (l *launch) keep(c *cellState, runDir string) {
	if l.env.ProfilesDir == "" {
		return
	}
	dst := filepath.Join(l.env.ProfilesDir, c.Workload.Name, string(c.Mode))
	kept, err := keepProfile(runDir, dst)
	if err != nil {
		l.env.logf("keeping the profile of %s: %v", c.Key(), err)
		return
	}
	if kept {
		c.profile = dst
	}
}

// keepProfile replaces dst's files with copies of the regular files in src,
// each written atomically (and streamed: a trace may be large): an
// interrupted or failed copy leaves the previous profile whole, never half
// of one (files it no longer has are removed last). kept is false, and dst
// untouched, when src holds no file.
func keepProfile(src, dst string) (kept bool, err error) {
	entries, err := os.ReadDir(src)
	if err != nil {
		return false, err
	}
	keep := map[string]bool{}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if len(keep) == 0 {
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return false, err
			}
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return false, err
		}
		keep[e.Name()] = true
	}
	if len(keep) == 0 {
		return false, nil
	}
	old, _ := os.ReadDir(dst)
	for _, e := range old {
		if !keep[e.Name()] {
			os.RemoveAll(filepath.Join(dst, e.Name()))
		}
	}
	return true, nil
}

// copyFile copies src to dst atomically.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return atomicfile.Write(dst, 0o644, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}
