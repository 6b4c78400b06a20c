package runner

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// killTree kills process group pgid and every process descending from its
// leader that left the group (setsid, setpgid): a group's SIGKILL missed
// them, and they ran on after a timeout or Ctrl-C (a sleep, a server's
// worker), disturbing every later measurement on a small machine. The
// tree is frozen first (SIGSTOP: a stopped process forks no more) and
// walked (walkTree) until it stops growing with all of it stopped, then
// all of it is killed: killed first, a process's children would move to
// init, out of the walk's reach. A descendant whose parent had already
// ended (a double fork) is out of reach anyway.
func killTree(pgid int) {
	var buf bytes.Buffer
	seen := map[int]bool{}
	if !leadsGroup(pgid, &buf) { // reaped as the watchdog fired: its pid may be another's now
		unix.Kill(-pgid, unix.SIGKILL)
		return
	}
	unix.Kill(-pgid, unix.SIGSTOP)
	for round := 0; round < 200; round++ { // 200 ms at most of waiting for stops
		grew := false
		walkTree(pgid, &buf, func(p int) bool {
			if !seen[p] {
				seen[p], grew = true, true
				unix.Kill(p, unix.SIGSTOP)
			}
			return false
		})
		if !grew && allStopped(seen, &buf) {
			break
		}
		if !grew {
			time.Sleep(time.Millisecond)
		}
	}
	unix.Kill(-pgid, unix.SIGKILL)
	for p := range seen {
		unix.Kill(p, unix.SIGKILL)
	}
}

// allStopped reports whether every process of pids is stopped, a zombie
// or gone: then none can fork, and one more walk of the tree is its last.
func allStopped(pids map[int]bool, buf *bytes.Buffer) bool {
	for p := range pids {
		if f := statFields(p, buf); len(f) > 0 && f[0] != "T" && f[0] != "t" && f[0] != "Z" && f[0] != "X" {
			return false
		}
	}
	return true
}

// leadsGroup reports whether process pid leads process group pid (stat's
// fifth field, the third after the command's name).
func leadsGroup(pid int, buf *bytes.Buffer) bool {
	f := statFields(pid, buf)
	return len(f) > 2 && f[2] == strconv.Itoa(pid)
}

// statFields are /proc/PID/stat's fields after the command's name (which
// may hold spaces and parentheses): the state first. nil: gone.
func statFields(pid int, buf *bytes.Buffer) []string {
	if !readProc(buf, fmt.Sprintf("/proc/%d/stat", pid)) {
		return nil
	}
	s := buf.String()
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}
