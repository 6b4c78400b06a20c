package runner

import (
	"os"
	"path/filepath"

	"vbench/internal/atomicfile"
	"vbench/internal/profile"
	"vbench/internal/results"
)

// useProfile takes from a measured run's profile what the cell keeps: the
// call-count check (tracing, when the workload declares counts), the names
// sampling coverage needs, and the profile itself under Env.ProfilesDir.
func (l *launch) useProfile(c *cellState, seq int, p *profile.Profile, rep Report, profDir string) {
	switch c.Mode.Engine() {
	case results.EngineTracing:
		if len(rep.Calls) > 0 {
			checkCalls(c, seq, p, rep.Calls)
		}
		c.cover.addTracing(p)
	case results.EngineSampling:
		c.cover.addSampling(p)
	}
	if l.env.ProfilesDir == "" {
		return
	}
	dst := filepath.Join(l.env.ProfilesDir, c.Workload.Name, string(c.Mode))
	if err := keepProfile(profDir, dst); err != nil {
		l.env.logf("keeping the profile of %s: %v", c.Key(), err)
		return
	}
	c.profile = dst
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
