package runner

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"sync"
)

// The rusage peak (ru_maxrss) of a child Go starts is at least vbench's
// own peak: Go vforks, and at exec the kernel folds the old (vbench's)
// memory's high-water mark into the child's. A zombie has no memory left
// to read (/proc/<pid>/status has no VmHWM), so the child's own peak is
// known only when the rusage figure exceeds what vbench's memory held when
// the child exec'd; below that it is unknown (0), never vbench's.

// startMu serialises resetting vbench's high-water mark, the start and
// reading it back, so no other launch's reset falls between a child's
// exec and the read that bounds what the child inherited.
var startMu sync.Mutex

type started struct {
	err     error
	inherit int64 // bytes: vbench's high-water mark just after the exec, an upper bound of what the child inherited; -1 unknown
}

// startAlone starts cmd, first returning vbench's free heap to the system
// and resetting its high-water mark to what it then holds (clear_refs 5),
// so a child smaller than vbench's past peak still gets its figure when it
// exceeds vbench's live memory. now is called right before the start,
// after that work: the child's times begin there.
func startAlone(cmd *exec.Cmd, now func()) started {
	startMu.Lock()
	defer startMu.Unlock()
	debug.FreeOSMemory()
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // best effort: an older kernel keeps the lifetime peak, read below
	now()
	err := cmd.Start()
	return started{err: err, inherit: selfHWM()}
}

// childPeak is rusage's peak when it is the child tree's own, else 0.
func (s started) childPeak(maxrss int64) int64 {
	if s.inherit < 0 || maxrss <= s.inherit {
		return 0
	}
	return maxrss
}

// selfHWM is VmHWM of vbench itself in bytes, -1 when unreadable.
func selfHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
			if err != nil {
				return -1
			}
			return kb * 1024
		}
	}
	return -1
}
