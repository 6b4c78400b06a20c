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
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"vbench/baseline"
	"vbench/internal/atomicfile"
	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/reports"
)

type profileFlags struct {
	mode      string
	interval  time.Duration
	include   []string
	exclude   []string
	out       string
	top       int
	format    string
	lib       string
	timeSamp  int
	noInline  bool
	maxStack  int
	processes string
	jsonOut   string
}

func newProfileCmd() *cobra.Command {
	f := &profileFlags{}
	cmd := &cobra.Command{
		Use:   "profile [flags] -- COMMAND [ARGS...]",
		Short: "Run a .NET program under the vbench profiler and show where its time goes",
		Long: `profile runs COMMAND (any command that starts a .NET 8+ process, e.g.
"dotnet app.dll", or "dotnet test") with the vbench profiler attached and
shows the top functions: the table vbench report PROFILE starts with.

Every .NET process COMMAND starts loads the profiler (dotnet test: the SDK's
processes, then the test host; an application's workers) and writes its own
profile into --out: <pid>/profile.json and <pid>/profile.pb.gz per process.
vbench then writes profile.pb.gz there, every process merged (each sample
labelled with its pid: go tool pprof -tagfocus pid=N for one). --processes
REGEXP profiles only the processes whose command line matches it (unanchored
Go regexp, on the arguments joined by spaces: --processes testhost for a test
run's test host only); the others run unprofiled, without a word.

Modes: tracing (every call of user code: exact counts, and wall times measured
on every call of rarely called paths and on a random sample of ~1 in 16 calls
of hot ones; --time-sample 1 times every call), instrumentation (the same
exact counts and times, counted by rewriting the IL of the selected methods
instead of enter/leave hooks, so framework code keeps its precompiled code;
methods it cannot rewrite are listed in the profile as skipped), sampling
(stack snapshots every --interval; the JIT's inlined methods count as their
caller unless --no-inline), null (the hooks, doing nothing: the floor of
any enter/leave tracer). By default only user code is reported; --include and
--exclude take assembly or namespace patterns (glob '*'); --include '*'
profiles everything. Explicit excludes win over includes, includes over the
default exclusion of framework code.

The program's stdin, stdout and stderr are its own: stdout is passed through
byte for byte. vbench prints its table and messages on stderr (the table has a
pid column when several processes were profiled). --json FILE writes one JSON
object to FILE (atomically); --format json prints it on stdout after the
program's own output:
  {"mode", "profile_dir", "exit_code", "duration_ns", "samples", "complete",
   "functions": [{"name", "module", "calls", "inclusive_ns", "exclusive_ns",
                  "inclusive_samples", "exclusive_samples",
                  "callers": [{"name", "calls"}]}],
   "processes": [{"pid", "parent_pid", "command", "runtime_version", "start",
                  "end", "duration_ns", "samples", "complete", "profile",
                  "functions": [...]}],
   "missing": [{"pid", "parent_pid", "command", "mode", "start", "dir",
                "still_running"}]}
"functions" is summed over every process (same name and module), each
process's own list is under "processes"; both hold the top --top functions,
by exclusive time or exclusive samples (callers are direct callers, "<root>"
when the caller is not profiled). Every function is in profile.json.
"missing" names the processes that started profiling and wrote no profile
(killed before they could, or still running when COMMAND exited).

--out must not hold another run's profiles (vbench refuses it: two runs never
mix); without --out a new temporary directory is used.

vbench exits with the program's own exit code (128+n if it died of signal n);
SIGINT and SIGTERM are forwarded to it. If the profiler library is missing or
unusable vbench exits 2 without running anything; if the program ran but no
process wrote a profile (the runtime declined the profiler, COMMAND is not a
.NET program, or --processes matched nothing) vbench says why and exits 3 (or
the program's code, if non-zero).`,
		Example: `  vbench profile --mode tracing -- dotnet bin/app.dll
  vbench profile --mode sampling --interval 1ms --top 10 -- dotnet app.dll --size 100
  vbench profile --mode tracing --include 'MyLib.*' --json top.json -- dotnet app.dll
  vbench profile --mode tracing --processes testhost --out prof/ -- dotnet test
  vbench profile --mode tracing --include '*' --out prof/ -- dotnet csc.dll Hello.cs`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runProfile(cmd, f, args) },
	}
	fl := cmd.Flags()
	fl.SetInterspersed(false) // everything after COMMAND belongs to it
	fl.StringVar(&f.mode, "mode", string(modes.EngineTracing), "tracing | instrumentation | sampling | null")
	fl.DurationVar(&f.interval, "interval", modes.Interval.Default, "sampling interval, "+modes.Interval.Want())
	fl.StringSliceVar(&f.include, "include", nil, "assembly or namespace patterns to profile (repeatable, comma-separated)")
	fl.StringSliceVar(&f.exclude, "exclude", nil, "assembly or namespace patterns not to profile (repeatable, comma-separated)")
	fl.StringVar(&f.out, "out", "", "directory for the profiles, one <pid>/ per process (default: a new temporary directory)")
	fl.StringVar(&f.processes, "processes", "", "profile only processes whose command line matches this Go `regexp` (default: every .NET process)")
	fl.StringVar(&f.jsonOut, "json", "", "also write the JSON summary to `FILE`, atomically (stdout stays the program's own)")
	fl.IntVar(&f.top, "top", 20, "how many functions to show (at least 1; profile.json holds them all)")
	fl.StringVar(&f.format, "format", "table", "table (on stderr) | json (on stdout, after the program's output)")
	fl.StringVar(&f.lib, "profiler", "", "profiler library (default: libvbenchprof.so next to vbench)")
	fl.BoolVar(&f.noInline, "no-inline", false, "sampling: keep user methods (but tiny ones) from being inlined, so samples land on them")
	fl.IntVar(&f.maxStack, "max-stack", modes.MaxStack.Default, fmt.Sprintf("sampling: frames kept per stack (%s); deeper stacks keep both ends around one %q frame", modes.MaxStack.Want(), profile.ElidedFrames))
	fl.IntVar(&f.timeSamp, "time-sample", 0, "tracing, instrumentation: time ~1 in N calls of hot call paths (power of two; 1: every call; default 16, instrumentation 256)")
	return cmd
}

func runProfile(cmd *cobra.Command, f *profileFlags, args []string) error {
	engine := modes.Engine(f.mode)
	if !engine.Valid() {
		return usageErrf("--mode %q: want %s (none means no profiler: run the program directly)", f.mode, modes.OneOf(modes.Engines))
	}
	// A typed 0 is a value here, not the default it is in modes.ProfilerSettings
	// (--time-sample's own default is 0: the engine's).
	if f.interval == 0 || modes.Validate(modes.ProfilerSettings{Interval: modes.Duration(f.interval)}) != nil {
		return usageErrf("--interval %v: want %s", f.interval, modes.Interval.Want())
	}
	if f.format != "table" && f.format != "json" {
		return usageErrf("--format %q: want table or json", f.format)
	}
	if modes.Validate(modes.ProfilerSettings{TimeSample: f.timeSamp}) != nil {
		return usageErrf("--time-sample %d: want %s", f.timeSamp, modes.TimeSample.Want())
	}
	if f.maxStack == 0 || modes.Validate(modes.ProfilerSettings{MaxStack: f.maxStack}) != nil {
		return usageErrf("--max-stack %d: want %s frames", f.maxStack, modes.MaxStack.Want())
	}
	if err := checkTop(f.top); err != nil {
		return err
	}
	if f.processes != "" {
		if _, err := attach.CheckProcesses(f.processes); err != nil {
			return usageErrf("--processes %v", err)
		}
	}
	if f.jsonOut != "" {
		if err := baseline.Guard("--json", f.jsonOut); err != nil {
			return usageErr(err)
		}
		if err := results.CheckWritable(f.jsonOut); err != nil {
			return usageErrf("--json %v", err)
		}
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

	opts := attach.Options{Engine: engine, ProfileDir: dir, Include: f.include, Exclude: f.exclude, TimeSample: f.timeSamp, Processes: f.processes}
	if engine == modes.EngineSampling {
		opts.Interval = f.interval
		opts.NoInline = f.noInline
		if f.maxStack != modes.MaxStack.Default {
			opts.MaxStack = f.maxStack
		}
	}
	child := exec.Command(args[0], args[1:]...)
	child.Env = append(append(slices.Clone(attach.ProfiledDefaults), attach.ScrubEnv(os.Environ())...), attach.Env(lib, opts)...)
	child.Stdin = os.Stdin
	child.Stdout = cmd.OutOrStdout()
	reasons := &profilerLines{w: stderr}
	// The child's stderr goes through a pipe vbench reads, passed as a file
	// so that waiting for the child does not wait for the pipe: a process
	// the program leaves running (a build server, a daemon) holds it open.
	rd, wr, err := os.Pipe()
	if err != nil {
		return err
	}
	child.Stderr = wr
	copied := make(chan struct{})
	go func() { io.Copy(reasons, rd); close(copied) }()
	code, err := runForwardingSignals(child)
	wr.Close()
	if err != nil {
		return usageErrf("cannot run %s: %v", args[0], err)
	}
	select { // the program's last lines, unless someone still holds the pipe
	case <-copied:
	case <-time.After(2 * time.Second):
	}

	tree, perr := profile.ReadTree(dir)
	if perr == nil && len(tree.Processes) == 0 {
		perr = fmt.Errorf("no process wrote its profile: %s", missingList(tree))
	}
	if perr != nil {
		msg := fmt.Sprintf("no profile was written to %s: %v", dir, perr)
		if r := reasons.String(); r != "" {
			msg += "\nthe profiler said:\n" + r
		} else if f.processes != "" {
			msg += fmt.Sprintf("\n(no process's command line matched --processes %q, or the runtime did not load the profiler: is %q a .NET program? see `vbench doctor`)", f.processes, args[0])
		} else {
			msg += fmt.Sprintf("\n(the runtime did not load the profiler: is %q a .NET program? see `vbench doctor`)", args[0])
		}
		if code == 0 {
			code = ExitFailed
		}
		return withCode(code, errors.New(msg))
	}
	if err := tree.WritePprofFile(filepath.Join(dir, profile.PprofFile)); err != nil {
		return fmt.Errorf("writing the merged pprof profile: %w", err)
	}
	if p := tree.Processes; len(p) == 1 {
		fmt.Fprintf(stderr, "vbench: %s profile of pid %d written to %s (%s, and %s for pprof)\n", p[0].Mode, p[0].PID,
			dir, relTo(dir, tree.Paths[0]), profile.PprofFile)
	} else {
		fmt.Fprintf(stderr, "vbench: %s profiles of %d processes written to %s (<pid>/%s each, and %s for pprof: all merged, a pid label on every sample)\n",
			tree.Mode(), len(p), dir, profile.JSONFile, profile.PprofFile)
	}
	// What limits a profile (methods left uninstrumented, a full arena, cut
	// stacks) is said here too, not only inside profile.json.
	for _, p := range tree.Processes {
		for _, w := range p.Warnings {
			if len(tree.Processes) > 1 {
				w = fmt.Sprintf("pid %d: %s", p.PID, w)
			}
			fmt.Fprintf(stderr, "vbench: warning: %s\n", w)
		}
	}
	if f.format == "table" {
		if err := reports.TreeTop(stderr, tree, f.top); err != nil {
			return err
		}
	}
	missing := describeMissing(tree)
	for _, m := range missing {
		if m.StillRunning {
			fmt.Fprintf(stderr, "vbench: %v is still running: its profile will be in %s when it exits\n", m.Process, m.Dir)
		} else {
			fmt.Fprintf(stderr, "vbench: %v started profiling and wrote no profile: it was killed or crashed before it exited\n", m.Process)
		}
	}
	doc := summary(tree, dir, code, f.top, missing)
	if f.format == "json" {
		if err := writeJSON(cmd.OutOrStdout(), doc); err != nil {
			return err
		}
	}
	if f.jsonOut != "" {
		if err := atomicfile.Write(f.jsonOut, 0o644, func(w io.Writer) error { return writeJSON(w, doc) }); err != nil {
			return err
		}
	}
	if code != 0 {
		return withCode(code, nil)
	}
	return nil
}

// profileDir returns --out (created if needed) or a fresh temporary
// directory, after checking that a file can be created in it. An --out that
// already holds profiles is refused: the new run's processes would be read
// together with the old run's.
func profileDir(out string) (string, error) {
	if out == "" {
		return os.MkdirTemp("", "vbench-profile-")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("--out %s: %v", out, err)
	}
	old, err := profile.Entries(out)
	if err != nil {
		return "", fmt.Errorf("--out %s: %v", out, err)
	}
	if len(old) > 0 {
		if len(old) > 3 {
			old = append(old[:3], "...")
		}
		return "", fmt.Errorf("--out %s already holds profiles (%s): vbench does not mix two runs' profiles; remove them or choose another directory",
			out, strings.Join(old, ", "))
	}
	probe, err := os.CreateTemp(out, ".vbench-probe-*")
	if err != nil {
		return "", fmt.Errorf("--out %s is not writable: %v", out, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return out, nil
}

// relTo is path relative to dir, when it is inside it.
func relTo(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
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

// missingProcess is a process that started profiling and wrote no profile.
type missingProcess struct {
	profile.Process
	Dir string `json:"dir"` // where its profile goes
	// StillRunning: alive when COMMAND exited (a daemon, a build server);
	// otherwise it was killed or crashed before it could write.
	StillRunning bool `json:"still_running"`
}

func describeMissing(t *profile.Tree) []missingProcess {
	var out []missingProcess
	for _, m := range t.Missing {
		out = append(out, missingProcess{m.Process, m.Dir, running(m.Process)})
	}
	return out
}

// running reports whether the process is still alive: its pid exists and
// runs the same command line (a pid reused since would not).
func running(pr profile.Process) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pr.PID))
	return err == nil && strings.TrimRight(string(b), "\x00") == strings.Join(pr.Command, "\x00")
}

func missingList(t *profile.Tree) string {
	var s []string
	for _, m := range t.Missing {
		s = append(s, m.Process.String()+" started and wrote none")
	}
	return strings.Join(s, "; ")
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

// profileJSON is what --format json prints and --json writes.
type profileJSON struct {
	Mode       modes.Engine     `json:"mode"`
	ProfileDir string           `json:"profile_dir"`
	ExitCode   int              `json:"exit_code"`
	DurationNs int64            `json:"duration_ns"`
	Samples    int64            `json:"samples,omitempty"`
	Complete   bool             `json:"complete"`
	Functions  []functionJSON   `json:"functions"` // every process's, summed by name and module
	Processes  []processJSON    `json:"processes"`
	Missing    []missingProcess `json:"missing,omitempty"`
}

type processJSON struct {
	PID            int            `json:"pid"`
	ParentPID      int            `json:"parent_pid"`
	Command        []string       `json:"command"`
	RuntimeVersion string         `json:"runtime_version"`
	Start          time.Time      `json:"start"`
	End            time.Time      `json:"end"`
	DurationNs     int64          `json:"duration_ns"`
	Samples        int64          `json:"samples,omitempty"`
	Complete       bool           `json:"complete"`
	Profile        string         `json:"profile"` // its profile.json
	Functions      []functionJSON `json:"functions"`
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

func topFunctions(p *profile.Profile, top int) []functionJSON {
	out := []functionJSON{}
	for _, f := range p.Top(top) {
		out = append(out, functionJSON{f.Name, f.Module, f.Calls, f.InclusiveNs,
			f.ExclusiveNs, f.InclusiveSamples, f.ExclusiveSamples, f.Callers})
	}
	return out
}

// summary is the JSON document of a profiled run: the merged top functions,
// each process's, and the processes that wrote nothing.
func summary(t *profile.Tree, dir string, code, top int, missing []missingProcess) profileJSON {
	m := t.Merge()
	out := profileJSON{Mode: m.Mode, ProfileDir: dir, ExitCode: code, DurationNs: m.DurationNs,
		Samples: m.Samples, Complete: m.Complete, Functions: topFunctions(m, top), Processes: []processJSON{}, Missing: missing}
	for i, p := range t.Processes {
		out.Processes = append(out.Processes, processJSON{PID: p.PID, ParentPID: p.ParentPID, Command: p.Command,
			RuntimeVersion: p.RuntimeVersion, Start: p.Start, End: p.End, DurationNs: p.DurationNs, Samples: p.Samples,
			Complete: p.Complete, Profile: t.Paths[i], Functions: topFunctions(p, top)})
	}
	return out
}

func writeJSON(w io.Writer, doc profileJSON) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// checkTop refuses a --top that shows no functions (report and profile).
func checkTop(top int) error {
	if top < 1 {
		return usageErrf("--top %d: must be >= 1", top)
	}
	return nil
}
