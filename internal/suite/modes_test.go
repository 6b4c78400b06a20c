package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/internal/testbin"
)

// The example: built-in modes by name, an engine mode with its own
// interval, another build of the profiler, the runtime's EventPipe sampler
// and someone else's profiler through plain CORECLR_* variables.
func TestModesDefinedInTheSuite(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "base", "libvbenchprof.so")
	os.MkdirAll(filepath.Dir(lib), 0o755)
	b, err := os.ReadFile(testbin.FakeProfiler(t))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(lib, b, 0o755)
	p := write(t, dir, "s.yaml", `name: peers
metric: wall
profiler: {include: [Fib], interval: 10ms}
modes:
  - none
  - tracing
  - name: sampling-1ms
    engine: sampling
    interval: 1ms
  - {name: hooks, engine: null}
  - name: tracing-base
    engine: tracing
    profiler: base/libvbenchprof.so
    time_sample: 1
  - name: eventpipe
    env: {DOTNET_EnableEventPipe: "1", DOTNET_EventPipeOutputPath: "{rundir}/trace.nettrace",
          DOTNET_EventPipeConfig: "Microsoft-DotNETCore-SampleProfiler:0:5,Microsoft-Windows-DotNETRuntime:4c14fccbd:5"}
  - name: other-profiler
    env: {CORECLR_ENABLE_PROFILING: "1", CORECLR_PROFILER: "{11111111-2222-3333-4444-555555555555}", CORECLR_PROFILER_PATH: `+lib+`}
workloads:
  - name: fib
    command: [true]
    metric: cpu
    modes: [none, sampling-1ms, eventpipe]
  - name: other
    command: [true]
`)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := modes.List(s.Modes); got != "none, tracing, sampling-1ms, hooks, tracing-base, eventpipe, other-profiler" {
		t.Errorf("modes %s", got)
	}
	want := []modes.Spec{
		{Name: modes.None},
		{Name: modes.Tracing, Engine: modes.EngineTracing, ProfilerSettings: modes.ProfilerSettings{Include: []string{"Fib"}, Interval: modes.Duration(10 * time.Millisecond)}},
		{Name: "sampling-1ms", Engine: modes.EngineSampling, ProfilerSettings: modes.ProfilerSettings{Include: []string{"Fib"}, Interval: modes.Duration(time.Millisecond)}},
		{Name: "hooks", Engine: modes.EngineNull, ProfilerSettings: modes.ProfilerSettings{Include: []string{"Fib"}, Interval: modes.Duration(10 * time.Millisecond)}},
		{Name: "tracing-base", Engine: modes.EngineTracing, Profiler: lib, ProfilerSettings: modes.ProfilerSettings{Include: []string{"Fib"}, Interval: modes.Duration(10 * time.Millisecond), TimeSample: 1}},
		{Name: "eventpipe", Env: map[string]string{"DOTNET_EnableEventPipe": "1", "DOTNET_EventPipeOutputPath": "{rundir}/trace.nettrace",
			"DOTNET_EventPipeConfig": "Microsoft-DotNETCore-SampleProfiler:0:5,Microsoft-Windows-DotNETRuntime:4c14fccbd:5"}},
		{Name: "other-profiler", Env: map[string]string{"CORECLR_ENABLE_PROFILING": "1", "CORECLR_PROFILER": "{11111111-2222-3333-4444-555555555555}", "CORECLR_PROFILER_PATH": lib}},
	}
	if d := cmp.Diff(want, s.Specs); d != "" {
		t.Errorf("definitions (-want +got):\n%s", d)
	}
	if s.Metric != results.MetricWall || s.Workloads[0].Metric != results.MetricCPU || s.Workloads[1].Metric != results.MetricWall {
		t.Errorf("metrics: suite %s, fib %s, other %s", s.Metric, s.Workloads[0].Metric, s.Workloads[1].Metric)
	}
	if got := modes.List(s.Workloads[0].EffectiveModes(s)); got != "none, sampling-1ms, eventpipe" {
		t.Errorf("fib's modes %s", got)
	}
	// A built-in mode the suite does not list is still known (--modes), with
	// the suite's settings; a name the suite never defined is not.
	if sp, ok := s.Spec(modes.Sampling); !ok || sp.Engine != modes.EngineSampling || sp.Interval != modes.Duration(10*time.Millisecond) {
		t.Errorf("Spec(sampling) = %+v, %v", sp, ok)
	}
	if _, ok := s.Spec("sampling-2ms"); ok {
		t.Errorf("Spec knows a mode the suite never defined")
	}
	if got := modes.List(s.KnownModes()); got != "none, null, tracing, instrumentation, sampling, sampling-1ms, hooks, tracing-base, eventpipe, other-profiler" {
		t.Errorf("known modes %s", got)
	}
}

// Without metric or modes a suite is what it always was: elapsed, the four
// built-in modes.
func TestModesDefaults(t *testing.T) {
	s, err := Load(write(t, t.TempDir(), "s.yaml", "name: s\nbaseline: b.json\nworkloads:\n  - name: a\n    command: [true]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if modes.List(s.Modes) != "none, null, tracing, instrumentation, sampling" || len(s.Specs) != 5 || s.Metric != results.MetricElapsed || s.Workloads[0].Metric != results.MetricElapsed {
		t.Errorf("defaults: modes %v, specs %v, metric %s/%s", s.Modes, s.Specs, s.Metric, s.Workloads[0].Metric)
	}
	for _, sp := range s.Specs {
		if sp.Engine != sp.Name.Engine() {
			t.Errorf("built-in %s runs engine %q", sp.Name, sp.Engine)
		}
	}
}

// Every refusal the issue lists, and the ones that keep a mode from doing
// silently less than it says, with file, line and field.
func TestModesRefused(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "text.so", "not a library\n")
	const head = "name: s\nbaseline: b.json\n"
	const tail = "workloads:\n  - name: a\n    command: [true]\n"
	cases := []struct{ name, yaml, want string }{
		{"unknown engine", head + "modes:\n  - name: x\n    engine: sampler\n" + tail, `s.yaml:5: modes[0](x).engine: unknown engine "sampler" (known: tracing, instrumentation, sampling, suspend-sampling, cpu-sampling, allocations, allocation-sampling, null)`},
		{"engine none", head + "modes: [{name: x, engine: none}]\n" + tail, `s.yaml:3: modes[0](x).engine: "none" is not an engine`},
		{"name twice", head + "modes: [{name: x, engine: null}, {name: x}]\n" + tail, `s.yaml:3: modes[1]: mode "x" listed twice (first at line 3)`},
		{"built-in twice", head + "modes: [none, tracing, none]\n" + tail, `s.yaml:3: modes[2]: mode "none" listed twice`},
		{"name of a built-in", head + "modes: [{name: sampling, engine: sampling, interval: 1ms}]\n" + tail, `s.yaml:3: modes[0].name: "sampling" is a built-in mode`},
		{"unnamed", head + "modes: [{engine: sampling}]\n" + tail, `s.yaml:3: modes[0].name: missing`},
		{"bad name", head + "modes: [{name: ../x}]\n" + tail, `s.yaml:3: modes[0].name: invalid name "../x"`},
		{"setting without engine", head + "modes:\n  - name: x\n    include: [A]\n" + tail, `s.yaml:5: modes[0](x).include: a profiler setting needs an engine`},
		{"profiler without engine", head + "modes:\n  - name: x\n    profiler: text.so\n" + tail, `s.yaml:5: modes[0](x).profiler: needs an engine`},
		{"profiler missing", head + "modes:\n  - name: x\n    engine: tracing\n    profiler: gone/lib.so\n" + tail, `s.yaml:6: modes[0](x).profiler: ` + dir + `/gone/lib.so does not exist`},
		{"profiler not a library", head + "modes:\n  - name: x\n    engine: tracing\n    profiler: text.so\n" + tail, `s.yaml:6: modes[0](x).profiler: profiler library unusable: ` + dir + `/text.so is not an ELF shared library`},
		{"interval out of range", head + "modes: [{name: x, engine: sampling, interval: 2s}]\n" + tail, `s.yaml:3: modes[0].interval: must be between 1ms and 1s`},
		{"time_sample", head + "modes: [{name: x, engine: tracing, time_sample: 3}]\n" + tail, `s.yaml:3: modes[0].time_sample: must be 1 or a power of two up to 1024`},
		{"interval on tracing", head + "modes:\n  - name: x\n    engine: tracing\n    interval: 1ms\n" + tail, `s.yaml:6: modes[0](x).interval: does nothing under engine tracing: only sampling, suspend-sampling read it`},
		{"max_stack on sampling", head + "modes:\n  - name: x\n    engine: sampling\n    include: [A]\n    max_stack: 64\n" + tail, `s.yaml:7: modes[0](x).max_stack: does nothing under engine sampling: only suspend-sampling read it`},
		{"time_sample on null", head + "modes: [{name: x, engine: null, time_sample: 4}]\n" + tail, `s.yaml:3: modes[0](x).time_sample: does nothing under engine null: only tracing, instrumentation read it`},
		{"max_stack", head + "profiler: {max_stack: 8}\n" + tail, `s.yaml:3: profiler.max_stack: must be >= 16, got 8`},
		{"timeline_cap 0", head + "modes:\n  - name: x\n    engine: tracing\n    timeline: true\n    timeline_cap: 0\n" + tail, `s.yaml:7: modes[0].timeline_cap: must be >= 1, got 0`},
		{"timeline_min negative", head + "profiler: {timeline: true, timeline_min: -1ms}\n" + tail, `s.yaml:3: profiler.timeline_min: must be > 0, got -1ms`},
		{"timeline on instrumentation", head + "modes:\n  - name: x\n    engine: instrumentation\n    timeline: true\n" + tail, `s.yaml:6: modes[0](x).timeline: does nothing under engine instrumentation: only tracing, sampling, suspend-sampling, allocations, allocation-sampling read it`},
		{"no_inline", head + "modes: [{name: x, engine: sampling, no_inline: yes}]\n" + tail, `s.yaml:3: modes[0].no_inline: must be true or false`},
		{"engine env", head + "modes:\n  - name: x\n    engine: sampling\n    env: {VBENCH_INTERVAL: 1ms}\n" + tail, `s.yaml:6: modes[0](x).env.VBENCH_INTERVAL: set by vbench for a mode with an engine`},
		{"unknown field", head + "modes: [{name: x, engines: tracing}]\n" + tail, `s.yaml:3: modes[0](x).engines: unknown field (known: name, engine, profiler, env, against, profile, wrap, attach, interval, include, exclude, time_sample, no_inline, max_stack, lines, timeline, timeline_min, timeline_cap)`},
		{"workload mode undefined", head + "modes: [none]\n" + "workloads:\n  - name: a\n    command: [true]\n    modes: [eventpipe]\n", `s.yaml:7: workloads[0](a).modes[0]: mode "eventpipe" is not among the suite's modes [none]`},
		{"unknown metric", head + "metric: cycles\n" + tail, `s.yaml:3: metric: unknown metric "cycles" (known: elapsed, wall, cpu, kernel-cpu, rps, latency-p50, latency-p99, cpu-per-request, instructions, kernel-instructions)`},
		{"workload metric", head + "workloads:\n  - name: a\n    command: [true]\n    metric: [wall]\n", `s.yaml:6: workloads[0].metric: must be a string, got a list`},
		{"empty modes", head + "modes: []\n" + tail, `s.yaml:3: modes: must list at least one mode`},
		{"wrap empty", head + "modes:\n  - name: x\n    wrap: []\n" + tail, `s.yaml:5: modes[0](x).wrap: must not be empty: give the wrapper and its arguments as a list`},
		{"wrap not a list", head + "modes:\n  - name: x\n    wrap: perf record\n" + tail, `s.yaml:5: modes[0].wrap: must be a list, got "perf record"`},
		{"wrapper not in PATH", head + "modes:\n  - name: x\n    wrap: [no-such-wrapper-xyz, -q]\n" + tail, `s.yaml:5: modes[0](x).wrap[0]: command "no-such-wrapper-xyz" not found in PATH`},
		{"wrapper missing", head + "modes:\n  - name: x\n    wrap: [scripts/gone.sh]\n" + tail, `s.yaml:5: modes[0](x).wrap[0]: command ` + dir + `/scripts/gone.sh not found`},
		{"wrapper not executable", head + "modes:\n  - name: x\n    wrap: [./text.so]\n" + tail, `s.yaml:5: modes[0](x).wrap[0]: command ` + dir + `/text.so is not an executable file`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, dir, "s.yaml", c.yaml)
			err := loadOrLack(p)
			if err == nil {
				t.Fatalf("accepted\n%s", c.yaml)
			}
			if got := strings.TrimPrefix(err.Error(), dir+"/"); !strings.HasPrefix(got, c.want) {
				t.Errorf("error\n  %s\nwant prefix\n  %s", got, c.want)
			}
		})
	}
}

// Profiler-loading variables are what an engine-less mode is for: someone
// else's profiler. VBENCH_* variables too (vbench's library loaded by hand).
func TestModeEnvMayLoadAProfiler(t *testing.T) {
	lib := testbin.FakeProfiler(t)
	p := write(t, t.TempDir(), "s.yaml", `name: s
baseline: b.json
modes:
  - none
  - name: by-hand
    env: {CORECLR_ENABLE_PROFILING: "1", CORECLR_PROFILER: "{11111111-2222-3333-4444-555555555555}", CORECLR_PROFILER_PATH: `+lib+`, VBENCH_PROFILE_DIR: "{rundir}", DOTNET_gcServer: "1"}
  - name: from-rundir
    env: {CORECLR_ENABLE_PROFILING: "1", CORECLR_PROFILER: "{11111111-2222-3333-4444-555555555555}", CORECLR_PROFILER_PATH_64: "{rundir}/lib.so"}
  - name: switched-off
    env: {CORECLR_ENABLE_PROFILING: "0"}
workloads:
  - name: a
    command: [true]
`)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	sp, _ := s.Spec("by-hand")
	if got := strings.Join(sp.EnvList(), " "); got != "CORECLR_ENABLE_PROFILING=1 CORECLR_PROFILER={11111111-2222-3333-4444-555555555555} CORECLR_PROFILER_PATH="+lib+" DOTNET_gcServer=1 VBENCH_PROFILE_DIR={rundir}" {
		t.Errorf("env %s", got)
	}
}

// A mode's env naming a profiler library the runtime could not load is
// refused when the suite is read: the runtime would silently run without
// it, and the mode would print an overhead of nothing. Both variables
// CoreCLR reads are checked; a placeholder is left to the run.
func TestModeEnvProfilerRefused(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "text.so", "not a library\n")
	os.Mkdir(filepath.Join(dir, "libdir.so"), 0o755)
	exe := testbin.Fakework(t) // an ELF executable, not a shared object
	lib, vb := testbin.FakeProfiler(t), testbin.ProfilerLib(t)
	const clsid = "{11111111-2222-3333-4444-555555555555}"
	const head = "name: s\nbaseline: b.json\nmodes:\n  - none\n  - name: other\n    env:\n      CORECLR_ENABLE_PROFILING: \"1\"\n"
	const tail = "workloads:\n  - name: a\n    command: [true]\n"
	cases := []struct{ name, env, want string }{
		{"missing", "CORECLR_PROFILER_PATH: " + dir + "/gone.so", `s.yaml:8: modes[1](other).env.CORECLR_PROFILER_PATH: ` + dir + `/gone.so: no such file: the runtime would silently run without the profiler, and the mode would measure nothing`},
		{"missing 64", "CORECLR_PROFILER_PATH_64: /nowhere/lib.so", `s.yaml:8: modes[1](other).env.CORECLR_PROFILER_PATH_64: /nowhere/lib.so: no such file`},
		{"not ELF", "CORECLR_PROFILER_PATH: " + dir + "/text.so", `s.yaml:8: modes[1](other).env.CORECLR_PROFILER_PATH: profiler library unusable: ` + dir + `/text.so is not an ELF shared library (no ELF header)`},
		{"directory", "CORECLR_PROFILER_PATH: " + dir + "/libdir.so", `s.yaml:8: modes[1](other).env.CORECLR_PROFILER_PATH: profiler library unusable: ` + dir + `/libdir.so is a directory, not a shared library`},
		{"executable", "CORECLR_PROFILER_PATH: " + exe, `s.yaml:8: modes[1](other).env.CORECLR_PROFILER_PATH: profiler library unusable: ` + exe + ` is ET_EXEC, not a shared object`},
		{"relative", "CORECLR_PROFILER_PATH: lib/x.so", `s.yaml:8: modes[1](other).env.CORECLR_PROFILER_PATH: "lib/x.so" is a relative path: give the profiler library's absolute path`},
		{"empty", `CORECLR_PROFILER_PATH: ""`, `s.yaml:8: modes[1](other).env.CORECLR_PROFILER_PATH: must name the profiler library`},
		// The set as a whole: what makes the runtime start without the
		// profiler, silently (each ran and printed an overhead of nothing).
		{"misspelt variable", "CORECLR_PROFILER: \"" + clsid + "\"\n      CORECLR_PROFILR_PATH: " + lib, `s.yaml:9: modes[1](other).env.CORECLR_PROFILR_PATH: unknown CoreCLR variable: the runtime ignores it`},
		{"no path", "CORECLR_PROFILER: \"" + clsid + "\"", `s.yaml:7: modes[1](other).env: sets CORECLR_ENABLE_PROFILING=1 without CORECLR_PROFILER_PATH (or _64)`},
		{"no CLSID", "CORECLR_PROFILER_PATH: " + lib, `s.yaml:7: modes[1](other).env: sets CORECLR_ENABLE_PROFILING=1 without CORECLR_PROFILER (the profiler's CLSID)`},
		{"not a CLSID", "CORECLR_PROFILER: \"8C2F5D8A\"\n      CORECLR_PROFILER_PATH: " + lib, `s.yaml:8: modes[1](other).env.CORECLR_PROFILER: "8C2F5D8A" is not a CLSID`},
		{"vbench under another CLSID", "CORECLR_PROFILER: \"" + clsid + "\"\n      CORECLR_PROFILER_PATH: " + vb, `s.yaml:8: modes[1](other).env.CORECLR_PROFILER: ` + vb + ` is vbench's profiler, whose CLSID is {8C2F5D8A-6C1E-4B7A-9A57-3F0E2B1D7C41}, not ` + clsid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			y := head + "      " + c.env + "\n" + tail
			_, err := Load(write(t, dir, "s.yaml", y))
			if err == nil {
				t.Fatalf("accepted\n%s", y)
			}
			if got := strings.TrimPrefix(err.Error(), dir+"/"); !strings.HasPrefix(got, c.want) {
				t.Errorf("error\n  %s\nwant prefix\n  %s", got, c.want)
			}
		})
	}
}

// Every engine mode the suite lists takes from the profiler block each
// setting it leaves out (the settings table's Inherit): lines once stayed
// behind, so `profiler: {lines: true}` reached no mode the suite listed,
// built-in or its own.
func TestOwnModeInheritsEverySetting(t *testing.T) {
	s, err := Parse("s.yaml", []byte(`name: s
profiler: {lines: true, interval: 2ms}
modes: [sampling, {name: fast, engine: sampling, interval: 1ms}]
workloads: [{name: w, command: [true]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []modes.Mode{modes.Sampling, "fast"} {
		sp, _ := s.Spec(m)
		if !sp.Lines {
			t.Errorf("%s: lines not inherited from the profiler block: %+v", m, sp.ProfilerSettings)
		}
	}
	if sp, _ := s.Spec("fast"); sp.Interval != modes.Duration(time.Millisecond) {
		t.Errorf("fast: its own interval lost: %v", sp.Interval)
	}
}
