package runner

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"vbench/internal/atomicfile"
	"vbench/internal/modes"
	"vbench/internal/profdiff"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/speedscope"
)

// useProfile takes from a measured run's profiles what the cell keeps: the
// call-count check (an engine that counts calls, when the workload declares
// counts) and the line-count check (instrumentation with lines, line.*), the sample counts of the share checks (a sampling engine) and the
// names sampling coverage needs, the alloc checks' counts (an allocation
// engine), all over the merged profile of every
// process of the run. It returns why the run fails ("" when it does not):
// shares it cannot count.
func (l *launch) useProfile(c *cellState, r *results.Run, p *profile.Profile, rep Report) string {
	seq := r.Seq
	e := c.Spec.Engine
	if e.CountsCalls() && len(rep.Calls) > 0 {
		checkCalls(c, seq, p, rep.Calls)
	}
	if e.CountsCalls() && c.Workload.Scale != nil {
		c.growth.add(p)
	}
	if e == modes.EngineInstrumentation && c.Spec.Lines && len(rep.LineCounts) > 0 {
		checkLineCounts(c, seq, p, rep.LineCounts)
	}
	if e.Samples() {
		if msg := c.shares.add(p, rep.Shares); msg != "" {
			return msg
		}
		if msg := c.lineShares.addLines(p, rep.LineShares); msg != "" {
			return msg
		}
	}
	if e.Allocates() {
		if msg := c.allocs.add(p, rep.Allocs); msg != "" {
			return msg
		}
		if err := c.allocSide.AddAllocs(p); err != nil {
			l.env.logf("%s: run %d's allocations are left out of its explain: %v", c.Key(), seq, err)
		}
	}
	if e != modes.EngineNull {
		requests := profiledRequests(r.Service)
		if err := c.side.Add(p); err != nil {
			l.env.logf("%s: run %d's profile is left out of its explain: %v", c.Key(), seq, err)
		} else if r.Service != nil {
			c.side.PerRequest(requests)
		}
		c.lineSide.add(p, requests)
	}
	switch {
	case e == modes.EngineTracing:
		c.cover.addTracing(p)
	case e.Samples():
		c.cover.addSampling(p)
	}
	return ""
}

// profiledRequests is the requests a service run's profile spans: the
// warm-up's too, or under an attach only those sent while attached.
func profiledRequests(s *results.Service) int64 {
	switch {
	case s == nil:
		return 0
	case s.Attach != nil:
		for _, w := range s.Attach.Pooled {
			if w.Name == results.WindowDuring {
				return w.Requests
			}
		}
		return 0
	}
	return s.WarmupRequests + s.Requests
}

// keep copies a measured run's directory (an engine mode's profiles, given
// their tree t, or whatever a mode's {rundir} received: a trace, another
// profiler's output) to Env.ProfilesDir/<workload>/<mode>, replacing the
// previous run's. An engine mode's measured run (measured) is also kept in
// runs/<seq>/ there, beside every earlier one: what `vbench diff` and the
// report compare. An engine-less mode's directory that received nothing
// keeps nothing.
func (l *launch) keep(c *cellState, measured bool, seq int, runDir string, t *profile.Tree) {
	if l.env.ProfilesDir == "" {
		return
	}
	if t == nil {
		if entries, err := os.ReadDir(runDir); err != nil || len(entries) == 0 {
			return
		}
	}
	dst := filepath.Join(l.env.ProfilesDir, c.Workload.Name, string(c.Mode))
	run := ""
	if measured {
		run = strconv.Itoa(seq)
	}
	if err := keepProfile(runDir, dst, t, run); err != nil {
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
// dst's runs/ moves into the copy before the swap (a reader may find it
// missing for that moment); a run name adds the copy itself as runs/<run>,
// hard-linked (the files are never written again).
func keepProfile(src, dst string, t *profile.Tree, runName string) (err error) {
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
	if err := copyTree(src, tmp, copyFile); err != nil {
		return err
	}
	if t != nil {
		if err := t.WritePprofFile(filepath.Join(tmp, profile.PprofFile)); err != nil {
			return err
		}
		if err := speedscope.WriteTreeFile(filepath.Join(tmp, speedscope.FileName), t); err != nil {
			return err
		}
	}
	runs, tmpRuns := filepath.Join(dst, profdiff.RunsDir), filepath.Join(tmp, profdiff.RunsDir)
	if err := os.Rename(runs, tmpRuns); err == nil {
		defer func() {
			if err != nil { // put the earlier runs back
				os.Rename(tmpRuns, runs)
			}
		}()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if runName != "" {
		run := filepath.Join(tmpRuns, runName)
		if err := os.MkdirAll(run, 0o755); err != nil {
			return err
		}
		if err := copyTree(src, run, linkFile(tmp, src)); err != nil {
			return err
		}
		if t != nil {
			if err := linkOrCopy(filepath.Join(tmp, profile.PprofFile), filepath.Join(run, profile.PprofFile)); err != nil {
				return err
			}
		}
	}
	err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, dst, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOENT) {
		err = os.Rename(tmp, dst)
	}
	return err
}

// linkFile copies a file of src by hard-linking its copy already made under
// tmp.
func linkFile(tmp, src string) func(from, to string) error {
	return func(from, to string) error {
		rel, err := filepath.Rel(src, from)
		if err != nil {
			return err
		}
		return linkOrCopy(filepath.Join(tmp, rel), to)
	}
}

// linkOrCopy hard-links from to to, or copies it where links fail.
func linkOrCopy(from, to string) error {
	if os.Link(from, to) == nil {
		return nil
	}
	return copyFile(from, to)
}

// copyTree copies the directories and regular files under src into dst,
// which exists, each file with copy (copyFile streams: a mode's trace may
// be large).
func copyTree(src, dst string, copy func(from, to string) error) error {
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
			return copy(path, to)
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
	return atomicfile.Write(dst, 0o666, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}
