package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"vbench/baseline"
	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/ownfile"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/speedscope"
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
	lines     bool

	timeline    bool
	timelineMin time.Duration
	timelineCap int
	output      string // -o: speedscope's file

	pid      int           // --pid: attach to this running process
	duration time.Duration // --pid: how long
	port     string        // --port: load the profiler at start-up through this diagnostic port
}

func newProfileCmd() *cobra.Command {
	f := &profileFlags{}
	cmd := &cobra.Command{
		Use:   "profile [flags] -- COMMAND [ARGS...] | profile --pid PID --mode sampling [--duration 30s]",
		Short: "Run a .NET program under the vbench profiler and show where its time goes",
		Long:  profileLong,
		Example: `  vbench profile --mode tracing -- dotnet bin/app.dll
  vbench profile --mode sampling --interval 1ms --top 10 -- dotnet app.dll --size 100
  vbench profile --mode sampling --lines --out prof/ -- dotnet app.dll   # then: go tool pprof -list Render prof/profile.pb.gz
  vbench profile --mode tracing --focus 'MyLib.*' --json top.json -- dotnet app.dll
  vbench profile --mode tracing --include System.Text.Json -- dotnet app.dll
  vbench profile --mode tracing --processes testhost --out prof/ -- dotnet test
  vbench profile --mode tracing --include '*' --out prof/ -- dotnet csc.dll Hello.cs
  vbench profile --pid 4242 --mode sampling --duration 30s   # a running process: attach, profile, detach (docs/attach.md)
  vbench profile --port /tmp/vb.sock --mode tracing          # then: DOTNET_DiagnosticPorts=/tmp/vb.sock dotnet app.dll`,
		Args: func(cmd *cobra.Command, args []string) error {
			if f.pid != 0 || f.port != "" {
				return nil // runAttach refuses a COMMAND
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("pid") {
				return runAttach(cmd, f, args)
			}
			if cmd.Flags().Changed("port") {
				return runPort(cmd, f, args)
			}
			if cmd.Flags().Changed("duration") {
				return usageErrf("--duration is how long an attach (--pid) profiles: a launched program is profiled until it ends")
			}
			return runProfile(cmd, f, args)
		},
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
	fl.BoolVar(&f.lines, "lines", false, "sampling: each sample's source line (from the program's PDBs); instrumentation: count every line's executions")
	fl.BoolVar(&f.allFrames, "all-frames", false, "dotnet test: also show framework and test-runner frames (folded by default)")
	fl.BoolVar(&f.timeline, "timeline", false, "tracing: also write <pid>/timeline.json, every thread's calls, GCs, JIT compilations and exceptions in time order; allocations, allocation-sampling: every allocation (or sample) with its type, bytes and path, and the GCs (Chrome trace-event JSON: Perfetto, speedscope)")
	fl.DurationVar(&f.timelineMin, "timeline-min", modes.TimelineMin.Default, "with --timeline, tracing: calls shorter than this fold into their caller (0: keep every call)")
	fl.IntVar(&f.timelineCap, "timeline-cap", modes.TimelineCap.Default, "with --timeline: events a process keeps at most ("+modes.TimelineCap.Want()+"); calls past it are counted and said")
	fl.StringVarP(&f.output, "output", "o", "", "also write the profiles (and timelines) in speedscope's format to `FILE`.speedscope.json")
	fl.IntVar(&f.pid, "pid", 0, "attach to this running .NET process through its diagnostics port instead of starting one (--mode sampling or allocation-sampling), profile for --duration, detach")
	fl.DurationVar(&f.duration, "duration", 30*time.Second, "with --pid: how long to profile before detaching")
	fl.StringVar(&f.port, "port", "", "listen on this Unix socket `PATH` for a .NET process started with DOTNET_DiagnosticPorts=PATH (it waits, suspended) and load the profiler into it through the diagnostics protocol, without setting its environment; its profile is shown when it ends")
	registerCompletion(cmd, "mode", completeEngines)
	registerCompletion(cmd, "format", cobra.FixedCompletions([]string{"table\ton stderr", "json\ton stdout, after the program's output"}, cobra.ShellCompDirectiveNoFileComp))
	fl.IntVar(&f.timeSamp, "time-sample", 0, "tracing, instrumentation: time ~1 in N calls of hot call paths (power of two; 1: every call; default 16, instrumentation 256)")
	return cmd
}

// profileRun is what the flags of a valid `vbench profile` resolve to.
type profileRun struct {
	engine modes.Engine
	focus  *profile.Focus
	lib    string // checked, absolute
}

// check refuses flags that are out of range or that the engine would not
// read (they would silently do nothing), before anything runs.
func (f *profileFlags) check(cmd *cobra.Command) (*profileRun, error) {
	engine := modes.Engine(f.mode)
	if !engine.Valid() {
		return nil, usageErrf("--mode %q: want %s (none means no profiler: run the program directly)", f.mode, modes.OneOf(modes.Engines))
	}
	// A typed 0 is a value here, not the default it is in modes.ProfilerSettings
	// (--time-sample's own default is 0: the engine's).
	if f.interval == 0 || modes.Validate(modes.ProfilerSettings{Interval: modes.Duration(f.interval)}) != nil {
		return nil, usageErrf("--interval %v: want %s", f.interval, modes.Interval.Want())
	}
	if f.format != "table" && f.format != "json" {
		return nil, usageErrf("--format %q: want table or json", f.format)
	}
	if modes.Validate(modes.ProfilerSettings{TimeSample: f.timeSamp}) != nil {
		return nil, usageErrf("--time-sample %d: want %s", f.timeSamp, modes.TimeSample.Want())
	}
	if f.maxStack == 0 || modes.Validate(modes.ProfilerSettings{MaxStack: f.maxStack}) != nil {
		return nil, usageErrf("--max-stack %d: want %s frames", f.maxStack, modes.MaxStack.Want())
	}
	if f.timelineCap <= 0 || modes.Validate(modes.ProfilerSettings{TimelineCap: f.timelineCap}) != nil {
		return nil, usageErrf("--timeline-cap %d: want %s events", f.timelineCap, modes.TimelineCap.Want())
	}
	if modes.Validate(modes.ProfilerSettings{TimelineMin: modes.Duration(f.timelineMin)}) != nil {
		return nil, usageErrf("--timeline-min %v: want a duration in %v..%v (0 keeps every call)", f.timelineMin, modes.TimelineMin.Min, modes.TimelineMin.Max)
	}
	for _, flag := range []string{"timeline-min", "timeline-cap"} {
		if cmd.Flags().Changed(flag) && !f.timeline {
			return nil, usageErrf("--%s does nothing without --timeline", flag)
		}
	}
	// A flag the engine does not read would silently do nothing.
	for _, fs := range [][2]string{{"interval", modes.Interval.Name}, {"no-inline", "no_inline"}, {"max-stack", modes.MaxStack.Name}, {"time-sample", modes.TimeSample.Name}, {"lines", "lines"}, {"timeline", "timeline"}, {"timeline-min", modes.TimelineMin.Name}} {
		flag, setting := fs[0], fs[1]
		if (flag == "no-inline" && !f.noInline) || (flag == "lines" && !f.lines) || (flag == "timeline" && !f.timeline) {
			continue // --no-inline=false, --lines=false ask for nothing
		}
		if cmd.Flags().Changed(flag) && !engine.Uses(setting) {
			return nil, usageErrf("--%s does nothing under --mode %s: only %s read it", flag, engine, modes.List(modes.UsedBy(setting)))
		}
	}
	if err := checkTop(f.top); err != nil {
		return nil, err
	}
	focus, err := focusFlag(cmd, f.focus)
	if err != nil {
		return nil, err
	}
	if f.processes != "" {
		if _, err := attach.CheckProcesses(f.processes); err != nil {
			return nil, usageErrf("--processes %v", err)
		}
	}
	if f.jsonOut != "" {
		if err := baseline.Guard("--json", f.jsonOut); err != nil {
			return nil, usageErr(err)
		}
		if err := results.CheckWritable(f.jsonOut); err != nil {
			return nil, usageErrf("--json %v", err)
		}
		if err := ownfile.Check("--json", f.jsonOut, reports.ProfileJSONKind); err != nil {
			return nil, usageErr(err)
		}
	}
	if f.output != "" && engine == modes.EngineNull {
		return nil, usageErrf("-o %s: the null engine's hooks record nothing: there is nothing to draw", f.output)
	}
	if f.output != "" {
		if !strings.HasSuffix(strings.ToLower(f.output), speedscope.Ext) {
			return nil, usageErrf("-o %s: vbench profile writes speedscope's format: name the file *%s (vbench report -o writes the other formats)", f.output, speedscope.Ext)
		}
		if err := baseline.Guard("-o", f.output); err != nil {
			return nil, usageErr(err)
		}
		if err := results.CheckWritable(f.output); err != nil {
			return nil, usageErrf("-o %v", err)
		}
		if err := ownfile.Check("-o", f.output, reports.FormatNamed("speedscope").Kind()); err != nil {
			return nil, usageErr(err)
		}
	}
	lib := f.lib
	if lib == "" {
		lib = attach.DefaultLibrary()
	}
	lib, err = attach.Check(lib)
	if err != nil {
		return nil, usageErr(err)
	}
	return &profileRun{engine: engine, focus: focus, lib: lib}, nil
}
