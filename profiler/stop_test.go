package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/testapp"
)

// stopped is a profiled run of a stop-* scenario, signalled once it said
// "ready".
type stopped struct {
	code   int
	stderr string
	dir    string
}

// runUntilReady starts `dotnet VbTestApp.dll scenario n` under engine (stdin
// an open pipe, as a terminal would be), waits for its "ready" line, calls
// during(pid), sends sig (0: none) and waits for it to end.
func runUntilReady(t *testing.T, engine modes.Engine, scenario string, n int, sig syscall.Signal, during func(pid int)) stopped {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("dotnet", testapp.DLL(t), scenario, strconv.Itoa(n))
	cmd.Env = append(attach.ScrubEnv(os.Environ()), attach.Env(lib(t), attach.Options{Engine: engine, ProfileDir: dir})...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := false
		for sc.Scan() {
			if sc.Text() == "ready" && !ok {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case ok := <-ready:
		if !ok {
			cmd.Wait()
			t.Fatalf("%s under %s ended before it was ready:\n%s", scenario, engine, se.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("%s under %s: not ready after 2 minutes", scenario, engine)
	}
	if during != nil {
		during(cmd.Process.Pid)
	}
	if sig != 0 {
		cmd.Process.Signal(sig)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("%s under %s: still running 2 minutes after %v", scenario, engine, sig)
	}
	code := 0
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	} else if err != nil {
		code = cmd.ProcessState.ExitCode()
	}
	return stopped{code: code, stderr: se.String(), dir: dir}
}

// A program stopped by Ctrl-C (SIGINT) or SIGTERM keeps its profile: asleep,
// reading stdin (System.Native's console signal handling in front of the
// runtime's) or spinning in managed code, under every engine. The process
// still dies of its signal (exit 128+n, as unprofiled); the profile says
// complete=false and names the signal, with every call made before it.
func TestStopSignalKeepsProfile(t *testing.T) {
	const n = 100
	for _, c := range []struct {
		engine   modes.Engine
		scenario string
		sig      syscall.Signal
	}{
		{modes.EngineTracing, "stop-sleep", syscall.SIGINT},
		{modes.EngineTracing, "stop-sleep", syscall.SIGTERM},
		{modes.EngineTracing, "stop-readline", syscall.SIGINT},
		{modes.EngineTracing, "stop-readline", syscall.SIGTERM},
		{modes.EngineTracing, "stop-busy", syscall.SIGINT},
		{modes.EngineTracing, "stop-busy", syscall.SIGQUIT},
		{modes.EngineInstrumentation, "stop-busy", syscall.SIGTERM},
		{modes.EngineSampling, "stop-busy", syscall.SIGINT},
		{modes.EngineNull, "stop-sleep", syscall.SIGINT},
		// Ctrl-C handled by the program: SIGTERM still reaches the runtime.
		{modes.EngineTracing, "stop-cancel", syscall.SIGTERM},
	} {
		name := fmt.Sprintf("%s under %s, %v", c.scenario, c.engine, c.sig)
		var spin func(int)
		if c.engine == modes.EngineSampling { // a second of spinning, for the sampler to see
			spin = func(int) { time.Sleep(time.Second) }
		}
		r := runUntilReady(t, c.engine, c.scenario, n, c.sig, spin)
		if r.code != 128+int(c.sig) {
			t.Errorf("%s: exit %d, want death by the signal (%d)\nstderr:\n%s", name, r.code, 128+int(c.sig), r.stderr)
			continue
		}
		p, err := profile.ReadFile(r.dir)
		if err != nil {
			t.Errorf("%s: %v\nstderr:\n%s", name, err, r.stderr)
			continue
		}
		want := "interrupted by " + unixName(c.sig)
		if p.Complete || p.Cause != want {
			t.Errorf("%s: complete %v cause %q, want false %q", name, p.Complete, p.Cause, want)
		}
		if c.engine.CountsCalls() {
			if f := p.Function("VbTest.Loop.Step"); f == nil || f.Calls != n {
				t.Errorf("%s: Loop.Step %+v, want %d calls", name, f, n)
			}
		}
		if c.engine == modes.EngineSampling && p.Function("VbTest.Stopper.Spin") == nil {
			t.Errorf("%s: the spinning function has no samples", name)
		}
	}
}

func unixName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return s.String()
}

// A program that handles Ctrl-C itself (Console.CancelKeyPress, e.Cancel)
// and then exits normally gets its complete profile at Shutdown, with the
// calls it made after the signal.
func TestHandledCtrlCKeepsCompleteProfile(t *testing.T) {
	const n = 100
	r := runUntilReady(t, modes.EngineTracing, "stop-cancel", n, syscall.SIGINT, nil)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
	}
	p, err := profile.ReadFile(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Complete || p.Cause != "" {
		t.Errorf("complete %v cause %q, want the complete profile", p.Complete, p.Cause)
	}
	if f := p.Function("VbTest.Loop.Step"); f == nil || f.Calls != 2*n {
		t.Errorf("Loop.Step %+v, want %d calls (before and after Ctrl-C)", f, 2*n)
	}
}

// SIGINT, SIGQUIT and SIGTERM go to the whole process, and the kernel runs
// the handler on any thread that does not block them, on whatever stack that
// thread is on: never one of the Go runtime's threads (whose stack may be a
// goroutine's). Go's threads are the ones waiting in a system call made from
// the library's own code (Go makes its own system calls).
func TestGoThreadsBlockStopSignals(t *testing.T) {
	runUntilReady(t, modes.EngineTracing, "stop-sleep", 1, syscall.SIGKILL, func(pid int) {
		lo, hi := libRange(t, pid)
		const stops = 1<<(syscall.SIGINT-1) | 1<<(syscall.SIGQUIT-1) | 1<<(syscall.SIGTERM-1)
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
		goThreads := 0
		for _, task := range tasks {
			sc, err1 := os.ReadFile(filepath.Join(task, "syscall"))
			st, err2 := os.ReadFile(filepath.Join(task, "status"))
			f := strings.Fields(string(sc))
			if err1 != nil || err2 != nil || len(f) < 9 || f[0] == "running" {
				continue
			}
			ip, _ := strconv.ParseUint(strings.TrimPrefix(f[8], "0x"), 16, 64)
			if ip < lo || ip >= hi {
				continue
			}
			goThreads++
			var blocked uint64
			for _, line := range strings.Split(string(st), "\n") {
				if v, ok := strings.CutPrefix(line, "SigBlk:"); ok {
					blocked, _ = strconv.ParseUint(strings.TrimSpace(v), 16, 64)
				}
			}
			if blocked&stops != stops {
				t.Errorf("thread %s (in a system call at %#x, in the library) blocks %#x: SIGINT/SIGQUIT/SIGTERM not all blocked", filepath.Base(task), ip, blocked)
			}
		}
		if goThreads == 0 {
			t.Errorf("no thread waits in the library's code: cannot tell Go's threads")
		}
	})
}

// libRange is the address range libvbenchprof.so (the copy this process
// loaded) is mapped at.
func libRange(t *testing.T, pid int) (lo, hi uint64) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || filepath.Base(f[5]) != filepath.Base(lib(t)) {
			continue
		}
		a, b, _ := strings.Cut(f[0], "-")
		l, _ := strconv.ParseUint(a, 16, 64)
		h, _ := strconv.ParseUint(b, 16, 64)
		if lo == 0 || l < lo {
			lo = l
		}
		if h > hi {
			hi = h
		}
	}
	if lo == 0 {
		t.Fatalf("pid %d has not mapped %s", pid, lib(t))
	}
	return lo, hi
}
