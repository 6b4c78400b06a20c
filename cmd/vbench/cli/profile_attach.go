package cli

import (
	"errors"
	"fmt"
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
	"vbench/internal/profile"
)

// detachSlack is how long after --duration vbench waits for the profile:
// the detach (the runtime waits for callbacks in flight) and the writing.
const detachSlack = 60 * time.Second

// runAttach is `vbench profile --pid PID`: the profiler loaded into a
// running process through its diagnostics port, for --duration, then
// detached; the profile is shown as a launched program's is. Every refusal
// (no such process, not .NET, its port disabled, a mode that cannot start
// after attach, a profiler already there) is exit 2 and leaves the process
// as it was.
func runAttach(cmd *cobra.Command, f *profileFlags, args []string) error {
	if len(args) > 0 {
		return usageErrf("--pid %d attaches to a running process: give no COMMAND (got %q)", f.pid, strings.Join(args, " "))
	}
	engine := modes.Engine(f.mode)
	if !cmd.Flags().Changed("mode") {
		return usageErrf("--pid needs --mode: %s (the engines that can start in a running process)", modes.OneOf(attach.AttachEngines))
	}
	if engine.Valid() {
		if err := attach.AfterAttach(engine); err != nil {
			return usageErr(err)
		}
	}
	if f.duration <= 0 {
		return usageErrf("--duration %v: want how long to profile before detaching, like 30s", f.duration)
	}
	for _, flag := range []string{"processes", "lines", "no-inline", "timeline", "timeline-min", "timeline-cap", "all-frames"} {
		if cmd.Flags().Changed(flag) {
			return usageErrf("--%s does nothing with --pid: an attached profiler reads only --mode, --interval, --include and --exclude", flag)
		}
	}
	pr, err := f.check(cmd)
	if err != nil {
		return err
	}
	if _, err := diagipc.Socket(f.pid); err != nil { // refused before --out is touched
		return usageErr(err)
	}
	dir, unlock, err := profile.RunDir("--out", f.out)
	if err != nil {
		return usageErr(err)
	}
	defer unlock()
	logf, err := os.CreateTemp("", "vbench-attach-*.log")
	if err != nil {
		return err
	}
	logf.Close()
	defer os.Remove(logf.Name())
	opts := attach.Options{Engine: engine, ProfileDir: dir, Settings: f.settings}
	stderr := cmd.ErrOrStderr()
	err = attach.Live(f.pid, pr.lib, attach.ClientData(opts, f.duration, logf.Name()))
	var de *attach.DialError
	if errors.As(err, &de) {
		return usageErr(de.Err)
	}
	if err != nil {
		return usageErr(attachRefused(f.pid, err, logf.Name()))
	}
	fmt.Fprintf(stderr, "vbench: attached to pid %d (%s): profiling for %v, then detaching\n", f.pid, engine, f.duration)
	pdir := filepath.Join(dir, strconv.Itoa(f.pid))
	if err := waitProfile(f.pid, filepath.Join(pdir, profile.JSONFile), f.duration+detachSlack); err != nil {
		msg := fmt.Sprintf("no profile was written to %s: %v", pdir, err)
		if said := logText(logf.Name()); said != "" {
			msg += "\nthe profiler said:\n" + said
		}
		return withCode(ExitFailed, errors.New(msg))
	}
	fmt.Fprintf(stderr, "vbench: detached from pid %d\n", f.pid)
	tree, err := profile.ReadTree(dir)
	if err != nil {
		return withCode(ExitFailed, fmt.Errorf("reading the profile in %s: %v", dir, err))
	}
	return showProfile(cmd, f, tree, dir, 0, "", pr.focus)
}

// attachRefused says why the runtime did not load the profiler.
func attachRefused(pid int, err error, logFile string) error {
	var he *diagipc.HRESULTError
	if !errors.As(err, &he) {
		return fmt.Errorf("pid %d: attaching: %v", pid, err)
	}
	switch {
	case he.HR == diagipc.ProfilerAlreadyActive:
		return fmt.Errorf("pid %d already has a profiler loaded (the runtime takes one at a time; was it started with CORECLR_ENABLE_PROFILING=1, or is another attach running?): nothing was changed", pid)
	case he.Server && he.HR == diagipc.UnknownCommand:
		return fmt.Errorf("pid %d: its runtime does not know the AttachProfiler command (.NET Core 3.0 or later attaches profilers): nothing was changed", pid)
	}
	msg := fmt.Sprintf("pid %d: the runtime did not attach the profiler (HRESULT 0x%08X)", pid, he.HR)
	if said := logText(logFile); said != "" {
		msg += "; the profiler said:\n" + said
	}
	return errors.New(msg + "\nthe process runs on, unprofiled")
}

// logText is what the profiler wrote to the attach's log file.
func logText(path string) string {
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b))
}

// waitProfile waits for the profile file the profiler writes at the
// detach (or at the process's exit, should it come first).
func waitProfile(pid int, path string, within time.Duration) error {
	end := time.Now().Add(within)
	for time.Now().Before(end) {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			time.Sleep(500 * time.Millisecond) // its exit path may be writing
			if _, err := os.Stat(path); err == nil {
				return nil
			}
			return fmt.Errorf("pid %d ended before the profiler wrote its profile", pid)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("pid %d: no profile %v after the attach's %v ended", pid, within, within-detachSlack)
}
