package runner

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"vbench/internal/atomicfile"
	"vbench/internal/modes"
	"vbench/internal/profile"
)

// useProfile takes from a measured run's profiles what the cell keeps: the
// call-count check (an engine that counts calls, when the workload declares
// counts), the sample counts of the share checks (a sampling engine) and the
// names sampling coverage needs, all over the merged profile of every
// process of the run. It returns why the run fails ("" when it does not):
// shares it cannot count.
func (l *launch) useProfile(c *cellState, seq int, p *profile.Profile, rep Report) string {
	e := c.Spec.Engine
	if e.CountsCalls() && len(rep.Calls) > 0 {
		checkCalls(c, seq, p, rep.Calls)
	}
	if e.Samples() {
		if msg := c.shares.add(p, rep.Shares); msg != "" {
			return msg
		}
	}
	switch e {
	case modes.EngineTracing:
		c.cover.addTracing(p)
	case modes.EngineSampling:
		c.cover.addSampling(p)
	}
	return ""
}

// keep copies a measured run's directory (an engine mode's profiles, given
// their tree t, or whatever a mode's {rundir} received: a trace, another
// profiler's output) to Env.ProfilesDir/<workload>/<mode>, replacing the
// previous run's. An engine-less mode's directory that received nothing
// keeps nothing.
func (l *launch) keep(c *cellState, runDir string, t *profile.Tree) {
	if l.env.ProfilesDir == "" {
		return
	}
	if t == nil {
		if entries, err := os.ReadDir(runDir); err != nil || len(entries) == 0 {
			return
		}
	}
	dst := filepath.Join(l.env.ProfilesDir, c.Workload.Name, string(c.Mode))
	if err := keepProfile(runDir, dst, t); err != nil {
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
// which exists. Files are streamed: a mode's trace may be large.
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
			return copyFile(path, to)
		}
		return nil
	})
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
