package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"vbench/internal/attach"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/reports"
)

type profileFlags struct {
	mode     string
	interval time.Duration
	include  []string
	exclude  []string
	out      string
	top      int
	format   string
	lib      string
	timeSamp int
	noInline bool
	maxStack int
}

func newProfileCmd() *cobra.Command {
	f := &profileFlags{}
	cmd := &cobra.Command{
		Use:   "profile [flags] -- COMMAND [ARGS...]",
		Short: "Run a .NET program under the vbench profiler and show where its time goes",
		Long: `profile runs COMMAND (any command that starts a .NET 8+ process, e.g.
"dotnet app.dll") with the vbench profiler attached, writes profile.json and
profile.pb.gz (pprof) into --out, and shows the top functions: the table
vbench report PROFILE starts with.

Modes: tracing (every call of user code: exact counts, and wall times measured
on every call of rarely called paths and on a random sample of ~1 in 16 calls
of hot ones; --time-sample 1 times every call), sampling
(stack snapshots every --interval; the JIT's inlined methods count as their
caller unless --no-inline), null (the hooks, doing nothing: the floor of
any enter/leave tracer). By default only user code is reported; --include and
--exclude take assembly or namespace patterns (glob '*'); --include '*'
profiles everything. Explicit excludes win over includes, includes over the
default exclusion of framework code.

The program's stdin, stdout and stderr are its own: stdout is passed through
byte for byte. vbench prints its table and messages on stderr; with
--format json it prints one JSON object on stdout after the program exits:
  {"mode", "profile_dir", "exit_code", "duration_ns", "samples",
   "functions": [{"name", "module", "calls", "inclusive_ns", "exclusive_ns",
                  "inclusive_samples", "exclusive_samples",
                  "callers": [{"name", "calls"}]}]}
(the top --top functions, by exclusive time or exclusive samples; callers are
direct callers, "<root>" when the caller is not profiled). Every function is
in profile.json.

vbench exits with the program's own exit code (128+n if it died of signal n);
SIGINT and SIGTERM are forwarded to it. If the profiler library is missing or
unusable vbench exits 2 without running anything; if the program ran but no
profile was written (the runtime declined the profiler, or COMMAND is not a
.NET program) vbench says why and exits 3 (or the program's code, if non-zero).`,
		Example: `  vbench profile --mode tracing -- dotnet bin/app.dll
  vbench profile --mode sampling --interval 1ms --top 10 -- dotnet app.dll --size 100
  vbench profile --mode tracing --include 'MyLib.*' --format json -- dotnet app.dll > top.json
  vbench profile --mode tracing --include '*' --out prof/ -- dotnet csc.dll Hello.cs`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runProfile(cmd, f, args) },
	}
	fl := cmd.Flags()
	fl.SetInterspersed(false) // everything after COMMAND belongs to it
	fl.StringVar(&f.mode, "mode", string(results.EngineTracing), "tracing | sampling | null")
	fl.DurationVar(&f.interval, "interval", 10*time.Millisecond, "sampling interval, 1ms..1s")
	fl.StringSliceVar(&f.include, "include", nil, "assembly or namespace patterns to profile (repeatable, comma-separated)")
	fl.StringSliceVar(&f.exclude, "exclude", nil, "assembly or namespace patterns not to profile (repeatable, comma-separated)")
	fl.StringVar(&f.out, "out", "", "directory for profile.json and profile.pb.gz (default: a new temporary directory)")
	fl.IntVar(&f.top, "top", 20, "how many functions to show (at least 1; profile.json holds them all)")
	fl.StringVar(&f.format, "format", "table", "table (on stderr) | json (on stdout)")
	fl.StringVar(&f.lib, "profiler", "", "profiler library (default: libvbenchprof.so next to vbench)")
	fl.BoolVar(&f.noInline, "no-inline", false, "sampling: keep user methods (but tiny ones) from being inlined, so samples land on them")
	fl.IntVar(&f.maxStack, "max-stack", attach.DefaultMaxStack, fmt.Sprintf("sampling: frames kept per stack (%d..%d); deeper stacks keep both ends around one %q frame", attach.MinMaxStack, attach.MaxMaxStack, profile.ElidedFrames))
	fl.IntVar(&f.timeSamp, "time-sample", 0, "tracing: time ~1 in N calls of hot call paths (power of two; 1: every call; default 16)")
	return cmd
}

func runProfile(cmd *cobra.Command, f *profileFlags, args []string) error {
	engine := results.Engine(f.mode)
	if !engine.Valid() {
		return usageErrf("--mode %q: want %s (none means no profiler: run the program directly)", f.mode, results.OneOf(results.Engines))
	}
	if f.interval < attach.MinInterval || f.interval > attach.MaxInterval {
		return usageErrf("--interval %v: want %v..%v", f.interval, attach.MinInterval, attach.MaxInterval)
	}
	if f.format != "table" && f.format != "json" {
		return usageErrf("--format %q: want table or json", f.format)
	}
	if f.timeSamp < 0 || f.timeSamp > 1024 || (f.timeSamp > 0 && f.timeSamp&(f.timeSamp-1) != 0) {
		return usageErrf("--time-sample %d: want 1 or a power of two up to 1024", f.timeSamp)
	}
	if f.maxStack < attach.MinMaxStack || f.maxStack > attach.MaxMaxStack {
		return usageErrf("--max-stack %d: want %d..%d frames", f.maxStack, attach.MinMaxStack, attach.MaxMaxStack)
	}
	if err := checkTop(f.top); err != nil {
		return err
	}
	lib := f.lib
	if lib == "" {
		lib = attach.DefaultLibrary()
	}
	lib, err := attach.Check(lib)
	if err != nil {
		return usageErr(err)
	}
	dir, err := profileDir(f.out)
	if err != nil {
		return usageErr(err)
	}
	stderr := cmd.ErrOrStderr()

	opts := attach.Options{Engine: engine, ProfileDir: dir, Include: f.include, Exclude: f.exclude, TimeSample: f.timeSamp}
	if engine == results.EngineSampling {
		opts.Interval = f.interval
		opts.NoInline = f.noInline
		if f.maxStack != attach.DefaultMaxStack {
			opts.MaxStack = f.maxStack
		}
	}
	child := exec.Command(args[0], args[1:]...)
	child.Env = append(attach.ScrubEnv(os.Environ()), attach.Env(lib, opts)...)
	child.Stdin = os.Stdin
	child.Stdout = cmd.OutOrStdout()
	reasons := &profilerLines{w: stderr}
	child.Stderr = reasons
	started := time.Now()
	code, err := runForwardingSignals(child)
	if err != nil {
		return usageErrf("cannot run %s: %v", args[0], err)
	}

	p, perr := freshProfile(dir, started)
	if perr != nil {
		msg := fmt.Sprintf("no profile was written to %s: %v", dir, perr)
		if r := reasons.String(); r != "" {
			msg += "\nthe profiler said:\n" + r
		} else {
			msg += fmt.Sprintf("\n(the runtime did not load the profiler: is %q a .NET program? see `vbench doctor`)", args[0])
		}
		if code == 0 {
			code = ExitFailed
		}
		return withCode(code, errors.New(msg))
	}
	fmt.Fprintf(stderr, "vbench: %s profile of pid %d written to %s (%s, %s)\n", p.Mode, p.PID, dir, profile.JSONFile, profile.PprofFile)
	if f.format == "json" {
		err = writeProfileJSON(cmd.OutOrStdout(), p, dir, code, f.top)
	} else {
		err = reports.ProfileTop(stderr, p, f.top)
	}
	if err != nil {
		return err
	}
	if code != 0 {
		return withCode(code, nil)
	}
	return nil
}

// profileDir returns --out (created if needed) or a fresh temporary
// directory, after checking that a file can be created in it.
func profileDir(out string) (string, error) {
	if out == "" {
		return os.MkdirTemp("", "vbench-profile-")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("--out %s: %v", out, err)
	}
	probe, err := os.CreateTemp(out, ".vbench-probe-*")
	if err != nil {
		return "", fmt.Errorf("--out %s is not writable: %v", out, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return out, nil
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

// freshProfile reads the profile in dir, refusing one older than this run.
func freshProfile(dir string, started time.Time) (*profile.Profile, error) {
	p, err := profile.ReadFile(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("the program exited and no profile.json appeared")
		}
		return nil, err
	}
	if p.Start.Before(started.Add(-time.Second)) {
		return nil, fmt.Errorf("%s there is from an earlier run (%s)", profile.JSONFile, p.Start.Format(time.RFC3339))
	}
	return p, nil
}

// profilerLines passes the child's stderr through unchanged and keeps the
// lines the profiler library wrote ("vbench-profiler: ..."), to explain a
// missing profile.
type profilerLines struct {
	w       io.Writer
	mu      sync.Mutex
	partial []byte
	lines   []string
}

func (p *profilerLines) Write(b []byte) (int, error) {
	p.mu.Lock()
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		if line := string(p.partial[:i]); strings.Contains(line, "vbench-profiler:") {
			p.lines = append(p.lines, line)
		}
		p.partial = p.partial[i+1:]
	}
	p.mu.Unlock()
	return p.w.Write(b)
}

func (p *profilerLines) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// profileJSON is what --format json prints.
type profileJSON struct {
	Mode       results.Engine `json:"mode"`
	ProfileDir string         `json:"profile_dir"`
	ExitCode   int            `json:"exit_code"`
	DurationNs int64          `json:"duration_ns"`
	Samples    int64          `json:"samples,omitempty"`
	Complete   bool           `json:"complete"`
	Functions  []functionJSON `json:"functions"`
}

type functionJSON struct {
	Name             string           `json:"name"`
	Module           string           `json:"module"`
	Calls            int64            `json:"calls"`
	InclusiveNs      int64            `json:"inclusive_ns"`
	ExclusiveNs      int64            `json:"exclusive_ns"`
	InclusiveSamples int64            `json:"inclusive_samples"`
	ExclusiveSamples int64            `json:"exclusive_samples"`
	Callers          []profile.Caller `json:"callers"`
}

func writeProfileJSON(w io.Writer, p *profile.Profile, dir string, code, top int) error {
	out := profileJSON{Mode: p.Mode, ProfileDir: dir, ExitCode: code, DurationNs: p.DurationNs,
		Samples: p.Samples, Complete: p.Complete, Functions: []functionJSON{}}
	for _, f := range p.Top(top) {
		out.Functions = append(out.Functions, functionJSON{f.Name, f.Module, f.Calls, f.InclusiveNs,
			f.ExclusiveNs, f.InclusiveSamples, f.ExclusiveSamples, f.Callers})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// checkTop refuses a --top that shows no functions (report and profile).
func checkTop(top int) error {
	if top < 1 {
		return usageErrf("--top %d: must be >= 1", top)
	}
	return nil
}
