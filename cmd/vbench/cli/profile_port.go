package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"vbench/internal/attach"
	"vbench/internal/diagipc"
	"vbench/internal/modes"
	"vbench/internal/numfmt"
	"vbench/internal/profile"
)

// runPort is `vbench profile --port PATH`: the profiler loaded at start-up
// into a process vbench did not start, through a diagnostic port, with
// nothing in its environment. The process, started with
// DOTNET_DiagnosticPorts=PATH (suspend is the default), connects and
// waits; vbench sends the settings (SetEnvironmentVariable, the runtime's
// own environment), the profiler (StartupProfiler) and ResumeRuntime, one
// command per connection as the protocol asks, then waits for the process
// to end and shows its profile. Any engine works: the profiler loads as
// it would from CORECLR_* variables.
func runPort(cmd *cobra.Command, f *profileFlags, args []string) error {
	if len(args) > 0 {
		return usageErrf("--port %s waits for a process started elsewhere: give no COMMAND (got %q)", f.port, strings.Join(args, " "))
	}
	if cmd.Flags().Changed("duration") {
		return usageErrf("--duration is how long an attach (--pid) profiles: a process loaded through --port is profiled until it ends")
	}
	pr, err := f.check(cmd)
	if err != nil {
		return err
	}
	if _, err := os.Stat(f.port); err == nil {
		return usageErrf("--port %s: the file exists: name a path for a new socket (vbench removes it at the end)", f.port)
	}
	l, err := net.Listen("unix", f.port)
	if err != nil {
		return usageErrf("--port %s: %v", f.port, errors.Unwrap(err))
	}
	defer os.Remove(f.port)
	defer l.Close()
	dir, unlock, err := profile.RunDir("--out", f.out)
	if err != nil {
		return usageErr(err)
	}
	defer unlock()
	stderr := cmd.ErrOrStderr()
	abs, _ := filepath.Abs(f.port)
	fmt.Fprintf(stderr, "vbench: waiting for a .NET process started with DOTNET_DiagnosticPorts=%s\n", abs)
	launch := attach.Launch{Spec: modes.Spec{Name: modes.Mode(pr.engine), Engine: pr.engine, ProfilerSettings: f.settings}, Library: pr.lib, RunDir: dir, Processes: f.processes}
	var settings [][2]string
	for _, kv := range launch.Env(nil) {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "VBENCH_") {
			settings = append(settings, [2]string{k, v})
		}
	}
	clsid, err := diagipc.ParseGUID(attach.CLSID)
	if err != nil {
		return err
	}
	// Each command on a connection of its own: the runtime connects again
	// after each answer. steps is what happened, for an error to tell.
	pid := 0
	t0 := time.Now()
	var steps []string
	step := func(what string) { steps = append(steps, fmt.Sprintf("%s at %.3fs", what, time.Since(t0).Seconds())) }
	send := func(what string, do func(net.Conn) error) error {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		defer c.Close()
		adv, err := diagipc.ReadAdvertise(c, 30*time.Second)
		if err != nil {
			return fmt.Errorf("%w (%s)", err, strings.Join(steps, "; "))
		}
		if pid == 0 {
			pid = int(adv.PID)
			step(fmt.Sprintf("pid %d connected", pid))
		} else if int(adv.PID) != pid {
			return fmt.Errorf("pid %d connected while vbench was setting up pid %d: one process at a time on --port", adv.PID, pid)
		}
		if err := do(c); err != nil {
			return fmt.Errorf("pid %d: %s: %w (%s)", pid, what, err, strings.Join(steps, "; "))
		}
		step(what + " answered")
		return nil
	}
	for _, kv := range settings {
		if err := send("setting "+kv[0], func(c net.Conn) error { return diagipc.SetEnvironmentVariable(c, kv[0], kv[1]) }); err != nil {
			return usageErr(err)
		}
	}
	// The runtime's diagnostics server connects before its main thread
	// reaches the start-up pause, and takes StartupProfiler only once
	// paused (ds_server_is_paused_in_startup): before, the answer is
	// E_INVALIDARG. On a busy machine the settings could all be sent in
	// that gap; vbench then stopped, and the process waited for ever.
	// Asked again on the next connection, for a while.
	for tries := 1; ; tries++ {
		err := send("StartupProfiler", func(c net.Conn) error { return diagipc.StartupProfiler(c, clsid, pr.lib) })
		var he *diagipc.HRESULTError
		if errors.As(err, &he) && he.HR == diagipc.InvalidArg && tries < 200 {
			step("StartupProfiler refused (not paused yet)")
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if err != nil {
			return usageErr(err)
		}
		if tries > 1 {
			fmt.Fprintf(stderr, "vbench: pid %d refused StartupProfiler %s before its runtime reached the start-up pause\n", pid, numfmt.Count(tries-1, "time", "times"))
		}
		break
	}
	if err := send("ResumeRuntime", diagipc.ResumeRuntime); err != nil {
		return usageErr(err)
	}
	l.Close()
	fmt.Fprintf(stderr, "vbench: pid %d resumed with the profiler (%s); its profile is shown when it ends\n", pid, pr.engine)
	for syscall.Kill(pid, 0) == nil {
		time.Sleep(100 * time.Millisecond)
	}
	tree, err := profile.ReadTree(dir)
	if err == nil && len(tree.Processes) == 0 {
		err = fmt.Errorf("no process wrote its profile: %s", strconv.Quote(dir))
	}
	if err != nil {
		return withCode(ExitFailed, fmt.Errorf("pid %d ended: %v", pid, err))
	}
	resolveLines(cmd.Context(), tree, stderr) // --lines: IL offsets to source lines, as for a launched program
	return showProfile(cmd, f, tree, dir, 0, "", pr.focus)
}
