package cli

import (
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"vbench/baseline"
	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/ownfile"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/speedscope"
	"vbench/reports/profileview"
)

type profileFlags struct {
	mode      string
	settings  modes.ProfilerSettings // the settings table's flags; only those given are set
	out       string
	top       int
	format    string
	lib       string
	processes string
	jsonOut   string
	focus     []string
	allFrames bool
	output    string // -o: speedscope's file

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
  vbench profile --mode sampling --out prof/ -- dotnet app.dll   # with source lines: go tool pprof -list Render prof/profile.pb.gz
  vbench profile --mode sampling --lines=false -- dotnet app.dll   # without them (no PDB helper after the run)
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
	settingFlags(fl, &f.settings)
	fl.StringSliceVar(&f.focus, "focus", nil, "show only functions matching these `patterns` (namespace, type, method or assembly, glob '*'); everything is still profiled")
	fl.StringVar(&f.out, "out", "", "directory for the profiles, one <pid>/ per process (default: a new temporary directory)")
	fl.StringVar(&f.processes, "processes", "", "profile only processes whose command line matches this Go `regexp` (default: every .NET process)")
	fl.StringVar(&f.jsonOut, "json", "", "also write the JSON summary to `FILE`, atomically (stdout stays the program's own)")
	fl.IntVar(&f.top, "top", 20, "how many functions to show (at least 1; profile.json holds them all)")
	fl.StringVar(&f.format, "format", "table", "table (on stderr) | json (on stdout, after the program's output)")
	fl.StringVar(&f.lib, "profiler", "", "profiler library (default: libvbenchprof.so next to vbench)")
	fl.BoolVar(&f.allFrames, "all-frames", false, "dotnet test: also show framework and test-runner frames (folded by default)")
	fl.StringVarP(&f.output, "output", "o", "", "also write the profiles (and timelines) in speedscope's format to `FILE`.speedscope.json")
	fl.IntVar(&f.pid, "pid", 0, "attach to this running .NET process through its diagnostics port instead of starting one (--mode sampling or allocation-sampling), profile for --duration, detach")
	fl.DurationVar(&f.duration, "duration", 30*time.Second, "with --pid: how long to profile before detaching")
	fl.StringVar(&f.port, "port", "", "listen on this Unix socket `PATH` for a .NET process started with DOTNET_DiagnosticPorts=PATH (it waits, suspended) and load the profiler into it through the diagnostics protocol, without setting its environment; its profile is shown when it ends")
	registerCompletion(cmd, "mode", completeEngines)
	registerCompletion(cmd, "format", cobra.FixedCompletions([]string{"table\ton stderr", "json\ton stdout, after the program's output"}, cobra.ShellCompDirectiveNoFileComp))
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
	if f.format != "table" && f.format != "json" {
		return nil, usageErrf("--format %q: want table or json", f.format)
	}
	if err := checkSettingFlags(cmd.Flags(), &f.settings, engine, "--mode"); err != nil {
		return nil, err
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
		if err := ownfile.Check("--json", f.jsonOut, profileview.ProfileJSONKind); err != nil {
			return nil, usageErr(err)
		}
	}
	if f.output != "" && engine == modes.EngineNull {
		return nil, usageErrf("-o %s: the null engine's hooks record nothing: there is nothing to draw", f.output)
	}
	if f.output != "" {
		if !strings.HasSuffix(strings.ToLower(f.output), speedscope.Ext) {
			return nil, usageErrf("-o %s: vbench profile writes speedscope's format: name the file *%s (vbench show -o writes the other views)", f.output, speedscope.Ext)
		}
		if err := baseline.Guard("-o", f.output); err != nil {
			return nil, usageErr(err)
		}
		if err := results.CheckWritable(f.output); err != nil {
			return nil, usageErrf("-o %v", err)
		}
		if err := ownfile.Check("-o", f.output, profileview.FormatNamed("speedscope").Kind()); err != nil {
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

// linesByDefault: a launched program's sampled profile has its source lines
// unless --lines=false. They cost the process under 1 % at the default
// interval; the mapping after the run is one helper process, paid once by
// a person reading the profile. Instrumentation's lines count every basic
// block (dearer) and stay asked for; an attach reads no --lines.
func linesByDefault(e modes.Engine) bool {
	return e.Samples() && modes.FieldNamed("lines").Reads(e)
}

// settingFlags binds a flag to each setting of the settings table
// (modes.Fields), its default the profiler's.
func settingFlags(fl *pflag.FlagSet, ps *modes.ProfilerSettings) {
	for i := range modes.Fields {
		fd := &modes.Fields[i]
		switch p := fd.Ptr(ps).(type) {
		case *modes.Duration:
			def, _ := fd.Default().(time.Duration)
			fl.DurationVar((*time.Duration)(p), fd.Flag(), def, fd.Help)
		case *int:
			def, _ := fd.Default().(int)
			if fd.PerEngineDefault {
				def = 0
			}
			fl.IntVar(p, fd.Flag(), def, fd.Help)
		case *bool:
			fl.BoolVar(p, fd.Flag(), false, fd.Help)
		case *[]string:
			fl.StringSliceVar(p, fd.Flag(), nil, fd.Help)
		}
	}
}

// checkSettingFlags refuses a setting flag out of the profiler's range, one
// that does nothing without another, and one the engine would not read (it
// would silently do nothing); then clears every setting not given, so that
// the profiler's own default (and an engine's own) applies. A typed 0 is a
// value here: where the range holds 0 (--timeline-min 0: keep every call)
// it becomes the least duration, since a zero setting is one not given.
func checkSettingFlags(fl *pflag.FlagSet, ps *modes.ProfilerSettings, engine modes.Engine, modeFlag string) error {
	for i := range modes.Fields {
		fd := &modes.Fields[i]
		if !fl.Changed(fd.Flag()) {
			continue
		}
		var n int64
		switch p := fd.Ptr(ps).(type) {
		case *modes.Duration:
			n = int64(*p)
		case *int:
			n = int64(*p)
		}
		if fd.Bounds != nil && !fd.Accepts(n) && !(n == 0 && fd.PerEngineDefault) {
			return usageErrf("--%s %v: want %s", fd.Flag(), fl.Lookup(fd.Flag()).Value, fd.Want())
		}
		if p, ok := fd.Ptr(ps).(*modes.Duration); ok && *p == 0 {
			*p = modes.Duration(time.Nanosecond)
		}
	}
	for i := range modes.Fields {
		fd := &modes.Fields[i]
		if fd.Needs != "" && fl.Changed(fd.Flag()) && !modes.FieldNamed(fd.Needs).Given(ps) {
			return usageErrf("--%s does nothing without --%s", fd.Flag(), modes.FieldNamed(fd.Needs).Flag())
		}
	}
	for i := range modes.Fields {
		fd := &modes.Fields[i]
		if b, ok := fd.Ptr(ps).(*bool); ok && !*b {
			continue // --lines=false asks for nothing
		}
		if fl.Changed(fd.Flag()) && !fd.Reads(engine) {
			return usageErrf("--%s does nothing under %s %s: only %s read it", fd.Flag(), modeFlag, engine, modes.List(modes.UsedBy(fd.Key())))
		}
	}
	for i := range modes.Fields {
		if fd := &modes.Fields[i]; !fl.Changed(fd.Flag()) {
			reflectZero(fd.Ptr(ps))
		}
	}
	return nil
}

// reflectZero sets the setting p points to to its zero: not given.
func reflectZero(p any) {
	switch p := p.(type) {
	case *modes.Duration:
		*p = 0
	case *int:
		*p = 0
	case *bool:
		*p = false
	case *[]string:
		*p = nil
	}
}
