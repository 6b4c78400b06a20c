package runner

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"vbench/internal/atomicfile"
	"vbench/internal/profile"
	"vbench/internal/results"
)

// useProfile takes from a measured run's profiles what the cell keeps: the
// call-count check (tracing, when the workload declares counts), the names
// sampling coverage needs, both over the merged profile of every process of
// the run, and the profiles themselves under Env.ProfilesDir.
func (l *launch) useProfile(c *cellState, seq int, t *profile.Tree, p *profile.Profile, rep Report, profDir string) {
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
	if err := keepProfile(profDir, dst, t); err != nil {
		l.env.logf("keeping the profile of %s: %v", c.Key(), err)
		return
	}
	c.profile = dst
}

// keepProfile replaces the directory dst with a copy of the profile
// directory src (every process's directory and files) and, given the tree
// read from src, its merged profile.pb.gz. The copy is made beside dst and
// swapped in with one rename (RENAME_EXCHANGE when dst exists), so a reader
// sees the previous run's profiles or this run's, never a mix of the two nor
// half of either; an interrupted or failed copy leaves dst as it was.
func keepProfile(src, dst string, t *profile.Tree) error {
	parent := filepath.Dir(dst)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dst)+".new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // after the swap it holds the previous profiles
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := copyTree(src, tmp); err != nil {
		return err
	}
	if t != nil {
		if err := t.WritePprofFile(filepath.Join(tmp, profile.PprofFile)); err != nil {
			return err
		}
	}
	err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, dst, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOENT) {
		err = os.Rename(tmp, dst)
	}
	return err
}

// copyTree copies the directories and regular files under src into dst,
// which exists.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		switch {
		case rel == ".":
			return nil
		case d.IsDir():
			return os.Mkdir(to, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return atomicfile.WriteFile(to, b, 0o644)
		}
		return nil
	})
}
