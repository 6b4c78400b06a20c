package runner

// A service workload's run: start the server (the cell's process, under the
// cell's mode) on a free loopback port, poll its ready URL, drive it with the
// load generator (a warm-up load, then the measured one), stop it (SIGTERM,
// SIGKILL after the grace period) and make sure nothing is left listening.
// The server's outcome then goes through the same checks as any run's
// (check.go): its profile, and its handler's calls against the requests
// the load generator completed.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"vbench/internal/results"
	"vbench/internal/suite"
)

// serve runs one launch of service cell c, whose server is spec. It records
// the load's numbers in r.Service and sets r.Error to the first problem of
// the service itself (the server not getting ready, dying under load, not
// stopping, a port still open, the load failing); the returned outcome is
// the server's, its requested SIGTERM not counted as a crash.
//
// Under a mode that attaches (modes.AttachPlan) the server starts
// unprofiled and the measured load is attachLoad's: the engine's library
// lib attached and detached during it, its profiles in runDir.
func (l *launch) serve(ctx context.Context, c *cellState, spec Spec, r *results.Run, lib, runDir string) Outcome {
	w := c.Workload
	port, err := freePort()
	if err != nil {
		r.Error = "cannot find a free loopback port for the server: " + err.Error()
		return Outcome{}
	}
	r.Service = &results.Service{Port: port}
	at := func(s string) string { return strings.ReplaceAll(s, suite.Port, strconv.Itoa(port)) }
	spec.Argv, spec.Env = mapAll(spec.Argv, at), mapAll(spec.Env, at)
	stop := make(chan struct{})
	spec.Stop, spec.Grace = stop, w.Server.StopGrace
	pid := make(chan int, 1)
	spec.Started = func(p int) { pid <- p }
	done := make(chan Outcome, 1)
	go func() { done <- Exec(ctx, spec) }()

	var ended *Outcome // the server's outcome, once it has ended
	exited := func() bool {
		if ended == nil {
			select {
			case out := <-done:
				ended = &out
			default:
			}
		}
		return ended != nil
	}
	finish := func() Outcome {
		if ended == nil {
			close(stop)
			out := <-done
			ended = &out
		}
		return *ended
	}

	ready := at(w.Server.Ready)
	msg := waitReady(ctx, ready, w.Server.ReadyTimeout, exited)
	readyMono := monotonicNs()
	if msg != "" {
		out := finish()
		if !out.Interrupted {
			r.Error = msg + serverSaid(out)
			if out.Stopped {
				r.Error = msg + " (then stopped)" + serverSaid(out)
			}
		}
		return out
	}
	server := 0
	select {
	case server = <-pid: // the server answered, so it has started
	case <-time.After(time.Second):
	}
	ld := w.Load
	target := at(ld.URL)
	phases := []struct {
		name string
		d    time.Duration
		n    *int64
	}{{"warm-up", ld.Warmup, &r.WarmupRequests}, {"measured", ld.Duration, &r.Requests}}
	for _, ph := range phases {
		if ph.d <= 0 {
			continue
		}
		cpu0 := treeCPU(server)
		var res *loadResult
		var err error
		if ph.n == &r.Requests && c.Spec.Attach != nil {
			res, r.Service.Attach, err = l.attachLoad(ctx, c, server, target, lib, runDir)
		} else {
			res, err = runLoad(ctx, ld.Generator, target, ld.Connections, ph.d, c.Workload.Cwd)
		}
		cpu1 := treeCPU(server)
		if ctx.Err() != nil {
			return finish()
		}
		if exited() {
			r.Error = fmt.Sprintf("server died under load (%s load of %s)", ph.name, target) + serverSaid(*ended)
			return *ended
		}
		if err == nil {
			err = res.ok()
		}
		if err != nil {
			finish()
			r.Error = fmt.Sprintf("%s load of %s: %v", ph.name, target, err)
			return *ended
		}
		*ph.n = res.completed
		if ph.n == &r.Requests {
			r.LoadNs, r.RPS = res.spanNs, res.rps()
			r.LatencyP50Ns, r.LatencyP99Ns = res.quantile(0.50), res.quantile(0.99)
			if used, ok := cpu1.since(cpu0); ok {
				r.ServerCPUNs = used
			}
		}
	}
	out := finish()
	out.ReadyMono = readyMono // its start-up: exec until ready first answered
	switch {
	case out.Interrupted:
		return out
	case out.Killed:
		r.Error = fmt.Sprintf("server did not stop within %s of SIGTERM and was killed", w.Server.StopGrace) + serverSaid(out)
	case out.Signal == "SIGTERM": // what we asked for: a server without a handler of its own
		out.Signal, out.ExitCode = "", 0
	}
	if r.Error == "" {
		if addr := stillListening(port); addr != "" {
			r.Error = fmt.Sprintf("%s still accepts connections after the server's process group ended (a process that left the group?)", addr)
		}
	}
	return out
}

// serverSaid is what the server's end showed: how it ended and its stderr.
func serverSaid(out Outcome) string {
	if out.Interrupted {
		return ""
	}
	msg := out.Failure(0)
	if msg == "" {
		msg = "exited with status 0"
		if out.Stderr != "" {
			msg += ": " + oneLine(out.Stderr)
		}
	}
	return "; the server " + msg
}

// waitReady polls url until it answers 200. It gives up when the server
// exits (exited reports that), after timeout, or when ctx is cancelled
// (then it returns "" and the caller sees the interruption).
func waitReady(ctx context.Context, url string, timeout time.Duration, exited func() bool) string {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := time.Now().Add(timeout)
	last := "no answer yet"
	for {
		if exited() {
			return fmt.Sprintf("server exited before it was ready (%s: %s)", url, last)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		switch {
		case ctx.Err() != nil:
			return ""
		case err != nil:
			last = err.Error()
			var op *net.OpError
			if errors.As(err, &op) {
				last = op.Err.Error()
			} else if errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err) {
				last = "no answer within " + client.Timeout.String()
			}
		default:
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return ""
			}
			last = "answered " + resp.Status
		}
		if time.Now().After(deadline) {
			return fmt.Sprintf("server not ready after %s (%s: %s)", timeout, url, last)
		}
		select {
		case <-ctx.Done():
			return ""
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// freePort is a loopback port nothing listens on now: the kernel's pick.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// stillListening is the loopback address of port when something accepts
// connections there, else "".
func stillListening(port int) string {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return ""
	}
	conn.Close()
	return addr
}

func mapAll(xs []string, f func(string) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// treeCPU is the CPU time so far of the server and each of its
// descendants, by pid. A mode's wrapper (a profiler that is a command, such
// as perf) runs the server as its child, so the process vbench started is
// the wrapper then, and the wrapper's helpers are the profiler's cost,
// which the server's machine pays too.
type treeTimes map[int]int64

func treeCPU(pid int) treeTimes {
	if pid <= 0 {
		return nil
	}
	g := treeTimes{}
	var buf bytes.Buffer
	walkTree(pid, &buf, func(p int) bool {
		if ns, ok := processCPU(p); ok {
			g[p] = ns
		}
		return false
	})
	return g
}

// since is the CPU the tree used from earlier to g: each process's gain,
// a process new since then counted whole. A process that ended in between
// is missed (its time is no longer readable); not ok when either reading
// found no process (the server gone).
func (g treeTimes) since(earlier treeTimes) (int64, bool) {
	if len(g) == 0 || len(earlier) == 0 {
		return 0, false
	}
	var used int64
	for pid, ns := range g {
		used += ns - earlier[pid]
	}
	return used, true
}

// processCPU is process pid's CPU time so far, every thread's, in ns: its
// CPUCLOCK_SCHED process clock (the kernel's sum_exec_runtime, not the
// 10 ms ticks of /proc/PID/stat). Not ok for pid 0 or a process gone.
func processCPU(pid int) (int64, bool) {
	if pid <= 0 {
		return 0, false
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(int32(^pid<<3|2), &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}
