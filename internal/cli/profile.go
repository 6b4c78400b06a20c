package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"vbench/baseline"
	"vbench/internal/atomicfile"
	"vbench/internal/attach"
	"vbench/internal/child"
	"vbench/internal/machine"
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
	focus     []string
	allFrames bool
}

func newProfileCmd() *cobra.Command {
	f := &profileFlags{}
	cmd := &cobra.Command{
		Use:   "profile [flags] -- COMMAND [ARGS...]",
		Short: "Run a .NET program under the vbench profiler and show where its time goes",
		Long:  profileLong,
		Example: `  vbench profile --mode tracing -- dotnet bin/app.dll
  vbench profile --mode sampling --interval 1ms --top 10 -- dotnet app.dll --size 100
  vbench profile --mode tracing --focus 'MyLib.*' --json top.json -- dotnet app.dll
  vbench profile --mode tracing --include System.Text.Json -- dotnet app.dll
  vbench profile --mode tracing --processes testhost --out prof/ -- dotnet test
  vbench profile --mode tracing --include '*' --out prof/ -- dotnet csc.dll Hello.cs`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runProfile(cmd, f, args) },
	}
	fl := cmd.Flags()
	fl.SetInterspersed(false) // everything after COMMAND belongs to it
	fl.StringVar(&f.mode, "mode", string(modes.EngineTracing), "tracing | instrumentation | sampling | suspend-sampling | allocations | allocation-sampling | null")
	fl.DurationVar(&f.interval, "interval", modes.Interval.Default, "sampling interval, "+modes.Interval.Want())
	fl.StringSliceVar(&f.include, "include", nil, "also profile framework code matching these assembly or namespace `patterns` (user code is by default; repeatable, comma-separated)")
	fl.StringSliceVar(&f.exclude, "exclude", nil, "assembly or namespace `patterns` not to profile (repeatable, comma-separated)")
	fl.StringSliceVar(&f.focus, "focus", nil, "show only functions matching these `patterns` (namespace, type, method or assembly, glob '*'); everything is still profiled")
	fl.StringVar(&f.out, "out", "", "directory for the profiles, one <pid>/ per process (default: a new temporary directory)")
	fl.StringVar(&f.processes, "processes", "", "profile only processes whose command line matches this Go `regexp` (default: every .NET process)")
	fl.StringVar(&f.jsonOut, "json", "", "also write the JSON summary to `FILE`, atomically (stdout stays the program's own)")
	fl.IntVar(&f.top, "top", 20, "how many functions to show (at least 1; profile.json holds them all)")
	fl.StringVar(&f.format, "format", "table", "table (on stderr) | json (on stdout, after the program's output)")
	fl.StringVar(&f.lib, "profiler", "", "profiler library (default: libvbenchprof.so next to vbench)")
	fl.BoolVar(&f.noInline, "no-inline", false, "sampling: keep user methods (but tiny ones) from being inlined, so samples land on them")
	fl.IntVar(&f.maxStack, "max-stack", modes.MaxStack.Default, fmt.Sprintf("suspend-sampling: frames kept per stack (%s); deeper stacks keep both ends around one %q frame", modes.MaxStack.Want(), profile.ElidedFrames))
	fl.BoolVar(&f.allFrames, "all-frames", false, "dotnet test: also show framework and test-runner frames (folded by default)")
	registerCompletion(cmd, "mode", completeEngines)
	registerCompletion(cmd, "format", cobra.FixedCompletions([]string{"table\ton stderr", "json\ton stdout, after the program's output"}, cobra.ShellCompDirectiveNoFileComp))
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
	// A flag the engine does not read would silently do nothing.
	for _, fs := range [][2]string{{"interval", modes.Interval.Name}, {"no-inline", "no_inline"}, {"max-stack", modes.MaxStack.Name}, {"time-sample", modes.TimeSample.Name}} {
		flag, setting := fs[0], fs[1]
		if flag == "no-inline" && !f.noInline {
			continue // --no-inline=false asks for nothing
		}
		if cmd.Flags().Changed(flag) && !engine.Uses(setting) {
			return usageErrf("--%s does nothing under --mode %s: only %s read it", flag, engine, modes.List(modes.UsedBy(setting)))
		}
	}
	if err := checkTop(f.top); err != nil {
		return err
	}
	focus, err := focusFlag(cmd, f.focus)
	if err != nil {
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
	lib, err = attach.Check(lib)
	if err != nil {
		return usageErr(err)
	}
	dir, err := profile.RunDir("--out", f.out)
	if err != nil {
		return usageErr(err)
	}
	stderr := cmd.ErrOrStderr()

	opts := attach.Options{Engine: engine, ProfileDir: dir, Include: f.include, Exclude: f.exclude, TimeSample: f.timeSamp, Processes: f.processes}
	if engine.Samples() {
		opts.Interval = f.interval
		opts.NoInline = f.noInline
		if f.maxStack != modes.MaxStack.Default {
			opts.MaxStack = f.maxStack
		}
	}
	env := append(append(slices.Clone(attach.ProfiledDefaults), attach.ScrubEnv(os.Environ())...), attach.Env(lib, opts)...)
	reasons := attach.NewProfilerLines(stderr)
	mark := machine.MarkBusy()
	code, err := child.Run(args, env, os.Stdin, cmd.OutOrStdout(), reasons)
	if err != nil {
		return usageErr(err)
	}
	busy := busyWarning(mark)

	tree, perr := profile.ReadTree(dir)
	if perr == nil {
		recordEnd(tree, code, stderr)
	}
	if perr == nil && len(tree.Processes) == 0 {
		perr = fmt.Errorf("no process wrote its profile: %s", reports.NoneWritten(tree))
	}
	if perr != nil {
		msg := fmt.Sprintf("no profile was written to %s: %v", dir, perr)
		if r := reasons.String(); r != "" {
			msg += "\nthe profiler said:\n" + r
		} else if tree != nil && len(tree.Missing) > 0 && tree.Missing[0].Ended != nil {
			// NoneWritten said how it ended: started.json proves the profiler loaded.
		} else if tree != nil && len(tree.Missing) > 0 {
			// started.json proves the profiler loaded: say how the program ended.
			msg += fmt.Sprintf("\n(the profiler started (%s), then the program %s before writing its profile)", profile.StartedFile, childEnd(code))
		} else if f.processes != "" {
			msg += fmt.Sprintf("\n(--processes %q matched the command line of no process of %s: each declined the profiler; leave --processes out to profile every .NET process, or match the command line of the one you want)", f.processes, programName(args))
		} else {
			msg += fmt.Sprintf("\n(the runtime did not load the profiler: is %s a .NET program? see `vbench doctor`)", programName(args))
		}
		if code == 0 {
			code = ExitFailed
		}
		return withCode(code, errors.New(msg))
	}
	if err := tree.WritePprofFile(filepath.Join(dir, profile.PprofFile)); err != nil {
		return fmt.Errorf("writing the merged pprof profile: %w", err)
	}
	fmt.Fprintf(stderr, "vbench: %s\n", reports.ProfilesWritten(tree, dir))
	for _, w := range reports.ProfileWarnings(tree) {
		fmt.Fprintf(stderr, "vbench: warning: %s\n", w)
	}
	if busy != "" {
		fmt.Fprintf(stderr, "vbench: warning: %s\n", busy)
	}
	// The view narrows; the profiles and the merged pprof file keep everything.
	if tree = testView(tree, f.allFrames); tree.Processes[0].FoldedBy != nil && f.format == "table" {
		fmt.Fprintf(stderr, "vbench: %s\n", reports.FoldedNote)
	}
	if tree, err = tree.Focused(focus); err != nil {
		if code == 0 {
			code = ExitUsage
		}
		return withCode(code, fmt.Errorf("%v\n(the profiles are in %s: vbench report %s --top 30 shows what they hold)", err, dir, dir))
	}
	if f.format == "table" {
		if err := reports.TreeTop(stderr, tree, f.top); err != nil {
			return err
		}
	}
	var missing []reports.MissingProcess
	for _, m := range tree.Missing {
		missing = append(missing, reports.MissingProcess{Process: m.Process, Dir: m.Dir, StillRunning: child.Running(m.PID, m.Command)})
	}
	for _, m := range missing {
		fmt.Fprintf(stderr, "vbench: %s\n", m.Note())
	}
	doc := reports.ProfileSummary(tree, dir, code, f.top, missing)
	if f.format == "json" {
		if err := reports.WriteProfileJSON(cmd.OutOrStdout(), doc); err != nil {
			return err
		}
	}
	if f.jsonOut != "" {
		if err := atomicfile.Write(f.jsonOut, 0o644, func(w io.Writer) error { return reports.WriteProfileJSON(w, doc) }); err != nil {
			return err
		}
	}
	if code != 0 {
		return withCode(code, nil)
	}
	return nil
}

// busyWarning is `vbench run`'s warning about a busy machine, for the span
// the program ran since mark: its times are wall-clock, so other processes'
// CPU shows in them. A short program is judged by the load average when it
// started (the tick-based figure would be noise); "" when the machine was
// quiet or nothing can be read.
func busyWarning(mark machine.Mark) string {
	cores, measured := mark.Others()
	n := runtime.NumCPU()
	switch {
	case measured && cores > machine.BusyWarnCores:
		return fmt.Sprintf("the machine was busy: other processes kept %.1f of its %d cores busy while the program ran, so its wall-clock times are noisier than usual", cores, n)
	case !measured && cores >= 1:
		return fmt.Sprintf("the machine was busy: its load average was %.1f on %d cores when the program started, so its wall-clock times are noisier than usual", cores, n)
	}
	return ""
}

// programName is what a person calls the program argv runs: the assembly of
// `dotnet X.dll …` (dotnet itself surely is .NET), else the command.
func programName(argv []string) string {
	if filepath.Base(argv[0]) == "dotnet" && len(argv) > 1 && strings.HasSuffix(argv[1], ".dll") {
		return strconv.Quote(filepath.Base(argv[1]))
	}
	return strconv.Quote(argv[0])
}

// recordEnd writes how the program ended (code, its exit status) into the
// directory of its own process when that process wrote no profile, so that
// `vbench report DIR` can say it later; the profiler records its parent pid,
// which is vbench's for the program itself.
func recordEnd(tree *profile.Tree, code int, stderr io.Writer) {
	for i := range tree.Missing {
		m := &tree.Missing[i]
		if m.ParentPID != os.Getpid() || m.Ended != nil {
			continue
		}
		e := profile.Ended{ExitCode: code}
		if err := profile.WriteEnded(m.Dir, e); err != nil {
			fmt.Fprintf(stderr, "vbench: warning: cannot record how pid %d ended: %v\n", m.PID, err)
			continue
		}
		m.Ended = &e
	}
}
