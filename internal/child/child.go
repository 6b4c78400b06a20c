// Package child runs the program a user hands vbench (`vbench profile --
// COMMAND`) in the foreground, as if vbench were not there: its stdin,
// stdout and stderr are its own, SIGINT and SIGTERM reach it, and its exit
// code comes back to be vbench's. Afterwards it tells whether a process of
// the program's tree is still running (/proc).
//
// runner.Exec is the other way vbench runs a program: a measured workload in
// a process group of its own, its output captured, what it leaves behind
// killed. COMMAND is the user's: what it leaves running keeps running.
package child

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// Run runs argv with env and waits for it. Its stderr reaches stderr through
// a pipe: what the program leaves running may hold that pipe open forever,
// so Run waits for its last lines at most two seconds after it exits. Run
// returns its exit code (128+n when signal n ended it); an error means it
// could not be run.
func Run(argv, env []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = env
	c.Stdin = stdin
	c.Stdout = stdout
	// The pipe is passed as a file so that waiting for the child does not
	// wait for the pipe: a process the program leaves running (a build
	// server, a daemon) holds it open.
	rd, wr, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	c.Stderr = wr
	copied := make(chan struct{})
	go func() { io.Copy(stderr, rd); close(copied) }()
	code, err := runForwardingSignals(c)
	wr.Close()
	if err != nil {
		return 0, fmt.Errorf("cannot run %s: %v", argv[0], err)
	}
	select { // the program's last lines, unless someone still holds the pipe
	case <-copied:
	case <-time.After(2 * time.Second):
	}
	return code, nil
}

// runForwardingSignals runs c, passing SIGINT and SIGTERM on to it, and
// returns its exit code (128+n when signal n ended it).
func runForwardingSignals(c *exec.Cmd) (int, error) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := c.Start(); err != nil {
		return 0, err
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				c.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := c.Wait()
	close(done)
	if err == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0, err
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return ee.ExitCode(), nil
}

// Running reports whether process pid is still alive: the pid exists and
// runs the same command line (a pid reused since would not).
func Running(pid int, command []string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && strings.TrimRight(string(b), "\x00") == strings.Join(command, "\x00")
}
