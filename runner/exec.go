package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"vbench/internal/dotnetbuild"
)

// Spec is one process launch.
type Spec struct {
	Argv    []string // run as is: no shell
	Env     []string // the complete environment
	Dir     string
	Timeout time.Duration
	// Library, when set, is a profiler library the process must map
	// (Outcome.Loaded): see loaded.go.
	Library string
	// Stop, when closed, asks the process to end (a service's server):
	// SIGTERM to its group, then SIGKILL after Grace (Outcome.Stopped,
	// Outcome.Killed).
	Stop  <-chan struct{}
	Grace time.Duration
	// Started, when set, is told the process's id as soon as it runs (a
	// service's server: its tree's CPU clocks are read around the measured
	// load).
	Started func(pid int)
	// Wrapped says Argv is a mode's wrapper around the program: an exit
	// status of 128+n then most likely is a shell's report of the program
	// killed by signal n, which Outcome.Failure says in words.
	Wrapped bool
}

// Outcome is what one launch did.
type Outcome struct {
	Wall        time.Duration // start to reaped, as the harness saw it
	User, Sys   time.Duration
	MaxRSS      int64 // bytes
	ExitCode    int   // -1 when killed by a signal
	Signal      string
	TimedOut    bool
	Interrupted bool     // ctx was cancelled (Ctrl-C)
	VBENCH      []string // VBENCH lines from stdout
	Stdout      string   // its last lines
	Stderr      string   // a .NET error line and the program's frames, else its last lines
	Profiler    []string // the profiler's own stderr lines ("vbench-profiler: ..."), the first few
	StartErr    error    // the process could not be started
	Pid         int      // the process's id (and its group's)
	// StartMono is CLOCK_MONOTONIC (ns) read right before the process was
	// started: what its start-up is measured from (hook.go).
	StartMono int64
	// ReadyMono is CLOCK_MONOTONIC (ns) when a service's ready URL first
	// answered (service.go); 0 otherwise.
	ReadyMono int64
	Loaded    bool // with Spec.Library: the process or a descendant mapped it
	Stopped   bool // ended after Spec.Stop asked it to
	Killed    bool // Stopped, but only by SIGKILL after the grace period
	Wrapped   bool // Spec.Wrapped
}

// Exec runs spec in a new process group and waits for it. On timeout or
// cancellation the whole group is killed (SIGKILL), children included, and
// descendants that left the group (setsid: see killTree); after
// a normal exit, stragglers the child left in its group are killed too, so no
// run leaves processes behind to disturb the next.
func Exec(ctx context.Context, spec Spec) Outcome {
	out := Outcome{Wrapped: spec.Wrapped}
	rd, wr, err := os.Pipe()
	if err != nil {
		out.StartErr = err
		return out
	}
	var stdout outputScanner
	var stderr stderrScanner
	erd, ewr, err := os.Pipe()
	if err != nil {
		rd.Close()
		wr.Close()
		out.StartErr = err
		return out
	}
	cmd := exec.Command(spec.Argv[0], spec.Argv[1:]...)
	cmd.Env = spec.Env
	cmd.Dir = spec.Dir
	// Pass the pipes' write ends as files, so Wait returns when the child
	// exits even if a grandchild still holds them.
	cmd.Stdout, cmd.Stderr = wr, ewr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}

	var start time.Time
	own := startAlone(cmd, func() { out.StartMono, start = monotonicNs(), time.Now() })
	err = own.err
	wr.Close()
	ewr.Close()
	if err != nil {
		rd.Close()
		erd.Close()
		out.StartErr = err
		return out
	}
	pgid := cmd.Process.Pid
	out.Pid = pgid
	if spec.Started != nil {
		spec.Started(pgid)
	}
	exited := make(chan struct{})
	var loaded <-chan bool
	if spec.Library != "" {
		loaded = watchLoaded(pgid, newLibrary(spec.Library, spec.Dir), exited)
	}
	copied := make(chan struct{}, 2)
	go func() { io.Copy(&stdout, rd); copied <- struct{}{} }()
	go func() { io.Copy(&stderr, erd); copied <- struct{}{} }()

	// The watchdog kills the group on timeout or cancellation and reports
	// which one it was (or neither) on killedBy, exactly once.
	const (
		killedNone = iota
		killedTimeout
		killedInterrupt
		killedStop  // asked to stop, ended within the grace period
		killedGrace // asked to stop, SIGKILLed after it
	)
	killedBy := make(chan int, 1)
	go func() {
		var timer <-chan time.Time
		if spec.Timeout > 0 {
			t := time.NewTimer(spec.Timeout)
			defer t.Stop()
			timer = t.C
		}
		why := killedNone
		select {
		case <-exited:
			killedBy <- why
			return
		case <-timer:
			why = killedTimeout
		case <-ctx.Done():
			why = killedInterrupt
		case <-spec.Stop:
			why = killedStop
			unix.Kill(-pgid, unix.SIGTERM)
			grace := time.NewTimer(spec.Grace)
			defer grace.Stop()
			select {
			case <-exited:
				killedBy <- why
				return
			case <-grace.C:
				why = killedGrace
			case <-ctx.Done():
				why = killedInterrupt
			}
		}
		killTree(pgid) // the group, and what of its tree left it (setsid)
		killedBy <- why
	}()
	waitErr := cmd.Wait()
	out.Wall = time.Since(start)
	close(exited)
	why := <-killedBy
	if loaded != nil {
		out.Loaded = <-loaded
	}
	unix.Kill(-pgid, unix.SIGKILL) // stragglers; ESRCH when none

	// The pipes close when the last holder dies; a process that escaped the
	// group (setsid) could hold them forever, so do not wait long for it.
	deadline := time.After(2 * time.Second)
	for i := 0; i < 2; i++ {
		select {
		case <-copied:
		case <-deadline:
			i = 2
		}
	}
	rd.Close()
	erd.Close()
	stdout.flush()
	stderr.flush()

	out.TimedOut, out.Interrupted = why == killedTimeout, why == killedInterrupt
	out.Stopped, out.Killed = why == killedStop || why == killedGrace, why == killedGrace
	out.VBENCH = stdout.vbench
	out.Stdout = stdout.tail.LastLines(5)
	out.Stderr = stderr.Text()
	out.Profiler = stderr.profiler
	ps := cmd.ProcessState
	if ps == nil {
		out.StartErr = waitErr
		return out
	}
	out.ExitCode = ps.ExitCode()
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		out.Signal = unix.SignalName(ws.Signal())
		if out.Signal == "" {
			out.Signal = ws.Signal().String()
		}
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		out.User = time.Duration(ru.Utime.Nano())
		out.Sys = time.Duration(ru.Stime.Nano())
		out.MaxRSS = own.childPeak(ru.Maxrss * 1024) // kilobytes on Linux
	}
	// A timer that fired just as the child exited on its own killed nothing.
	if out.TimedOut && out.Signal != "SIGKILL" {
		out.TimedOut = false
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		out.StartErr = waitErr
	}
	return out
}

// Failure describes an unsuccessful outcome in words, or "" for success.
func (o *Outcome) Failure(timeout time.Duration) string {
	detail := func() string {
		if o.Stderr != "" {
			return ": " + oneLine(o.Stderr)
		}
		if o.Stdout != "" {
			// Not the program's error: what it printed last is labelled so
			// (a native crash quoted "start 149999997" as if its message).
			return " (nothing on stderr; its stdout: " + oneLine(dotnetbuild.LastLines(o.Stdout, 3)) + ")"
		}
		return ""
	}
	switch {
	case o.StartErr != nil:
		return "could not start: " + o.StartErr.Error()
	case o.TimedOut:
		return fmt.Sprintf("timed out after %s (process group killed)", timeout)
	case o.Signal == "SIGKILL":
		// vbench's own SIGKILLs are a timeout or an interruption, said
		// above or not a failure: this one came from outside, most often
		// the kernel's OOM killer or a memory limit, so its peak is said.
		peak := ""
		if o.MaxRSS > 0 {
			peak = fmt.Sprintf(", at a peak RSS of %.0f MB", float64(o.MaxRSS)/1e6)
		}
		return fmt.Sprintf("crashed: killed by SIGKILL, not by vbench (the OOM killer or a memory limit sends it)%s%s", peak, detail())
	case o.Signal != "":
		return "crashed: killed by " + o.Signal + detail()
	case o.ExitCode > 128 && o.ExitCode <= 128+64 && o.Wrapped && unix.SignalName(syscall.Signal(o.ExitCode-128)) != "":
		return fmt.Sprintf("exited with status %d: 128+%d, how a wrapper's shell reports its program killed by %s%s",
			o.ExitCode, o.ExitCode-128, unix.SignalName(syscall.Signal(o.ExitCode-128)), detail())
	case o.ExitCode != 0:
		return fmt.Sprintf("exited with status %d%s", o.ExitCode, detail())
	}
	return ""
}

func oneLine(s string) string {
	const max = 300
	b := []byte(s)
	for i, c := range b {
		if c == '\n' {
			b[i] = ' '
		}
	}
	if len(b) > max {
		b = append(b[:max], "…"...)
	}
	return string(b)
}

// monotonicNs is CLOCK_MONOTONIC in nanoseconds: the clock the startup hook
// reads in the process (Stopwatch.GetTimestamp on Linux), so the two are
// comparable.
func monotonicNs() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return ts.Nano()
}
