package runner

// Proof that a mode's foreign profiler loaded. CoreCLR silently runs without
// a profiler it cannot load (a wrong path, CORECLR_ENABLE_PROFILING unset, a
// program that is not .NET at all), and an engine-less mode has no profile
// to show for itself the way vbench's engines do (started.json). So while a
// run of such a mode goes, the runner looks for the library in the memory
// maps of the process and its descendants, and a run where it never shows
// fails its cell instead of giving an overhead of nothing.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"vbench/internal/attach"
)

// loadPoll is how often the maps are read until the library shows. A .NET
// process maps its profiler while the runtime starts and keeps it until it
// exits, tens of milliseconds at least; once seen, polling stops, so the
// measured process's own work is not disturbed.
const loadPoll = 2 * time.Millisecond

// maxWatched bounds the processes read per poll (a process tree that forks
// without end is no reason to spin).
const maxWatched = 64

// foreignProfiler is the library the child's environment makes CoreCLR load
// as its profiler (CORECLR_PROFILER_PATH_64 before CORECLR_PROFILER_PATH),
// or "" when it names none. Later entries of env win, as in exec.
func foreignProfiler(env []string) string {
	val := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			val[k] = v
		}
	}
	for _, k := range attach.ProfilerPathVars {
		if v := val[k]; v != "" {
			return v
		}
	}
	return ""
}

// library is what a process's maps show of one file: the path the kernel
// prints (symlinks resolved) and the device and inode, which still match
// when the file is reached through another path (a bind mount).
type library struct {
	path  []byte // " /resolved/path\n"
	devIn []byte // " fe:00 247239 ", as maps prints them; nil when the file cannot be stat'ed
}

// newLibrary describes path as a process started in dir would map it.
func newLibrary(path, dir string) library {
	if !filepath.IsAbs(path) && dir != "" {
		path = filepath.Join(dir, path)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	lib := library{path: []byte(" " + path + "\n")}
	var st syscall.Stat_t
	if syscall.Stat(path, &st) == nil {
		lib.devIn = fmt.Appendf(nil, " %02x:%02x %d ", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	}
	return lib
}

// in reports whether a maps file's content maps the library.
func (l *library) in(maps []byte) bool {
	return bytes.Contains(maps, l.path) || (l.devIn != nil && bytes.Contains(maps, l.devIn))
}

// watchLoaded polls the maps of pid and its descendants until one of them
// maps lib or exited is closed, and then sends whether it was seen.
func watchLoaded(pid int, lib library, exited <-chan struct{}) <-chan bool {
	seen := make(chan bool, 1)
	go func() {
		t := time.NewTicker(loadPoll)
		defer t.Stop()
		var buf bytes.Buffer
		for {
			if treeMaps(pid, lib, &buf) {
				seen <- true
				return
			}
			select {
			case <-exited:
				seen <- false
				return
			case <-t.C:
			}
		}
	}()
	return seen
}

// treeMaps reports whether pid or one of its descendants maps lib.
func treeMaps(pid int, lib library, buf *bytes.Buffer) bool {
	return walkTree(pid, buf, func(p int) bool {
		return readProc(buf, fmt.Sprintf("/proc/%d/maps", p)) && lib.in(buf.Bytes())
	})
}

// walkTree visits pid and its descendants (found through
// /proc/PID/task/TID/children, breadth first, at most maxWatched) until
// visit returns true, and says whether it did. visit may use buf.
func walkTree(pid int, buf *bytes.Buffer, visit func(pid int) bool) bool {
	queue := []int{pid}
	for i := 0; i < len(queue) && i < maxWatched; i++ {
		p := queue[i]
		if visit(p) {
			return true
		}
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", p))
		for _, t := range tasks {
			if !readProc(buf, fmt.Sprintf("/proc/%d/task/%s/children", p, t.Name())) {
				continue
			}
			for _, f := range strings.Fields(buf.String()) {
				if c, err := strconv.Atoi(f); err == nil {
					queue = append(queue, c)
				}
			}
		}
	}
	return false
}

// readProc reads a /proc file into buf (reused: no allocation per poll once
// it has grown); false when the process is gone.
func readProc(buf *bytes.Buffer, path string) bool {
	buf.Reset()
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = buf.ReadFrom(f)
	return err == nil
}

// notLoaded is the failure of a run whose process never mapped lib.
func notLoaded(lib string, pid int, env map[string]string) string {
	msg := fmt.Sprintf("the profiler %s was not loaded by the process (not in /proc/%d/maps, nor in its descendants')", lib, pid)
	if env["CORECLR_ENABLE_PROFILING"] != "1" {
		msg += "; the mode's env does not set CORECLR_ENABLE_PROFILING=1, without which the runtime loads no profiler"
	}
	return msg
}
