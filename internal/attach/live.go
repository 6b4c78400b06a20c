package attach

import (
	"errors"
	"time"

	"vbench/internal/diagipc"
)

// AttachTimeout is how long the runtime may take to load the profiler and
// run InitializeForAttach (the Go runtime's start is most of it).
const AttachTimeout = 20 * time.Second

// alreadyActiveWait is how long Live retries a process whose profiler is
// still there.
const alreadyActiveWait = 2 * time.Second

// DialError is Live's failure to reach the process's diagnostics port (no
// such process, not .NET, its port disabled): nothing was sent.
type DialError struct{ Err error }

func (e *DialError) Error() string { return e.Err.Error() }
func (e *DialError) Unwrap() error { return e.Err }

// Live loads the profiler at lib into running process pid through its
// diagnostics port, with data (ClientData) as its configuration; it
// returns once InitializeForAttach has. A profiler that has just detached
// (a previous attach, whose profile is written in ProfilerDetachSucceeded)
// is gone moments later, when the runtime frees it: that refusal is retried
// for alreadyActiveWait. The runtime's refusals are *diagipc.HRESULTError.
func Live(pid int, lib string, data []byte) error {
	clsid, err := diagipc.ParseGUID(CLSID)
	if err != nil {
		return err
	}
	send := func() error {
		conn, err := diagipc.Dial(pid)
		if err != nil {
			return &DialError{err}
		}
		defer conn.Close()
		return diagipc.AttachProfiler(conn, AttachTimeout, clsid, lib, data)
	}
	err = send()
	for end := time.Now().Add(alreadyActiveWait); isAlreadyActive(err) && time.Now().Before(end); {
		time.Sleep(200 * time.Millisecond)
		err = send()
	}
	return err
}

func isAlreadyActive(err error) bool {
	var he *diagipc.HRESULTError
	return errors.As(err, &he) && he.HR == diagipc.ProfilerAlreadyActive
}
