package results

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
)

// Mode names how a cell's workload was run: one of the built-in modes below,
// each a results file's, a suite's and a report's word for the same thing.
// Every package spells modes through these constants, never as literals.
type Mode string

// The built-in modes. ModeNone runs the workload without any profiler and is
// the reference every overhead multiple divides by.
const (
	ModeNone            Mode = "none"
	ModeNull            Mode = "null"
	ModeTracing         Mode = "tracing"
	ModeInstrumentation Mode = "instrumentation"
	ModeSampling        Mode = "sampling"
)

// BuiltinModes lists the built-in modes in the order reports show them: the
// two exact-count engines side by side (the enter/leave tracer, then IL
// instrumentation, which aims below it), the statistical one last.
var BuiltinModes = []Mode{ModeNone, ModeNull, ModeTracing, ModeInstrumentation, ModeSampling}

// Engine is one of the vbench profiler's engines: what VBENCH_MODE selects
// and what a profile's "mode" field records.
type Engine string

// The profiler's engines.
const (
	EngineNull            Engine = "null"            // the hooks, doing nothing: an enter/leave tracer's floor
	EngineTracing         Engine = "tracing"         // enter/leave hooks: exact call counts and times
	EngineInstrumentation Engine = "instrumentation" // rewritten IL counts and times each call itself
	EngineSampling        Engine = "sampling"        // periodic stack snapshots
)

// Engines lists the profiler's engines.
var Engines = []Engine{EngineTracing, EngineInstrumentation, EngineSampling, EngineNull}

// Engine is the profiler engine a built-in mode runs, and "" for ModeNone
// (no profiler) or a mode that is not built in.
func (m Mode) Engine() Engine {
	switch m {
	case ModeNull:
		return EngineNull
	case ModeTracing:
		return EngineTracing
	case ModeInstrumentation:
		return EngineInstrumentation
	case ModeSampling:
		return EngineSampling
	}
	return ""
}

// Builtin reports whether m is one of BuiltinModes.
func (m Mode) Builtin() bool {
	for _, b := range BuiltinModes {
		if m == b {
			return true
		}
	}
	return false
}

// Valid reports whether e is one of Engines.
func (e Engine) Valid() bool {
	for _, x := range Engines {
		if e == x {
			return true
		}
	}
	return false
}

// Samples reports whether the engine's profiles count samples rather than calls.
func (e Engine) Samples() bool { return e == EngineSampling }

// CountsCalls reports whether the engine's profiles hold exact call counts
// (and times) per call path, the figures a workload's expected calls are
// checked against.
func (e Engine) CountsCalls() bool { return e == EngineTracing || e == EngineInstrumentation }

// List is modes or engines as a message shows them: "none, null, tracing".
func List[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}

// OneOf is the choices a message offers: "tracing, sampling or null".
func OneOf[T ~string](xs []T) string {
	l := List(xs)
	if i := strings.LastIndex(l, ", "); i >= 0 {
		l = l[:i] + " or " + l[i+2:]
	}
	return l
}

// ProfilerSettings are the vbench profiler's settings a mode (or a suite's
// profiler block) may give; zero values leave the profiler's defaults.
type ProfilerSettings struct {
	Interval   Duration `json:"interval,omitempty"`    // sampling interval
	Include    []string `json:"include,omitempty"`     // assembly/namespace glob patterns
	Exclude    []string `json:"exclude,omitempty"`     //
	TimeSample int      `json:"time_sample,omitempty"` // tracing: time 1 in N calls of hot paths
	NoInline   bool     `json:"no_inline,omitempty"`   // sampling: keep user methods from being inlined
	MaxStack   int      `json:"max_stack,omitempty"`   // sampling: frames kept per stack
}

// IsZero reports whether no setting is given.
func (p ProfilerSettings) IsZero() bool {
	return p.Interval == 0 && len(p.Include) == 0 && len(p.Exclude) == 0 && p.TimeSample == 0 && !p.NoInline && p.MaxStack == 0
}

// ModeSpec defines a mode: what a cell of that mode loads into its workload.
// The built-in modes are ModeSpecs too (BuiltinSpec); a suite defines more,
// and a results file records every mode it ran (Settings.ModeSpecs), so
// reports, merge, compare and baselines know each mode without the suite.
//
// A mode with an Engine is vbench's profiler: the library at Profiler (or the
// run's library when empty) with the settings, and every run must leave a
// profile. A mode without one loads nothing of vbench's: only Env, which may
// load any profiler (or none), and its runs are measured only.
type ModeSpec struct {
	Name     Mode              `json:"name"`
	Engine   Engine            `json:"engine,omitempty"`
	Profiler string            `json:"profiler,omitempty"` // absolute path of another vbench build
	Env      map[string]string `json:"env,omitempty"`      // added to the child's environment; "{rundir}" expands
	// Against names the mode this one is judged against, cell by cell, in
	// the same run (an A/B comparison): a suite's `against:`, or the OLD
	// build's twin of an engine mode under `vbench run --against`.
	Against Mode `json:"against,omitempty"`
	ProfilerSettings
}

// OldBuild is the name of mode m measured with the OLD build of the
// profiler in an A/B run (`vbench run --against OLD.so`): "tracing@old".
// '@' is in no name a suite can give, so it names no other mode.
func OldBuild(m Mode) Mode { return m + oldBuildSuffix }

const oldBuildSuffix = "@old"

// IsOldBuild reports whether m is an engine mode's OLD-build twin.
func (m Mode) IsOldBuild() bool { return strings.HasSuffix(string(m), oldBuildSuffix) }

// BuiltinSpec is the definition of a built-in mode (with no settings: the
// profiler's defaults), or of an unknown mode: measured only, no engine.
func BuiltinSpec(m Mode) ModeSpec { return ModeSpec{Name: m, Engine: m.Engine()} }

// RunDir is what a mode's (or a workload's) environment values may contain
// to name the run's own directory: fresh for every run, removed after it
// unless the run's profiles are kept.
const RunDir = "{rundir}"

// EnvList is the mode's environment as KEY=VALUE, sorted by key.
func (s *ModeSpec) EnvList() []string {
	out := make([]string, 0, len(s.Env))
	for k, v := range s.Env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// Description is the mode in a few words for tables and reports: "vbench
// sampling, interval 1ms", "vbench tracing (/opt/base/libvbenchprof.so)",
// "env DOTNET_EnableEventPipe=1 …", "no profiler".
func (s *ModeSpec) Description() string {
	if s.Engine == "" {
		if len(s.Env) == 0 {
			return "no profiler"
		}
		return "env " + strings.Join(s.EnvList(), " ")
	}
	d := "vbench " + string(s.Engine)
	var set []string
	// Only the settings the engine reads: a suite's profiler block gives
	// every engine mode all of them.
	sampling, tracing := s.Engine.Samples(), s.Engine.CountsCalls()
	if s.Interval > 0 && sampling {
		set = append(set, "interval "+s.Interval.String())
	}
	if len(s.Include) > 0 {
		set = append(set, "include "+strings.Join(s.Include, ","))
	}
	if len(s.Exclude) > 0 {
		set = append(set, "exclude "+strings.Join(s.Exclude, ","))
	}
	if s.TimeSample > 0 && tracing {
		set = append(set, fmt.Sprintf("time_sample %d", s.TimeSample))
	}
	if s.NoInline && sampling {
		set = append(set, "no_inline")
	}
	if s.MaxStack > 0 && sampling {
		set = append(set, fmt.Sprintf("max_stack %d", s.MaxStack))
	}
	if len(s.Env) > 0 {
		set = append(set, "env "+strings.Join(s.EnvList(), " "))
	}
	if len(set) > 0 {
		d += ", " + strings.Join(set, ", ")
	}
	if s.Profiler != "" {
		d += " (" + s.Profiler + ")"
	}
	return d
}

// Equal reports whether two definitions load the same thing.
func (s *ModeSpec) Equal(o *ModeSpec) bool {
	return s.Name == o.Name && s.Engine == o.Engine && s.Profiler == o.Profiler && s.Against == o.Against &&
		maps.Equal(s.Env, o.Env) && s.Interval == o.Interval && slices.Equal(s.Include, o.Include) &&
		slices.Equal(s.Exclude, o.Exclude) && s.TimeSample == o.TimeSample && s.NoInline == o.NoInline && s.MaxStack == o.MaxStack
}

// OrderModes sorts modes into report order: the built-in modes in their
// order, then the others as they first appear in xs (a suite's definition order).
func OrderModes(xs []Mode) []Mode {
	var out []Mode
	for _, b := range BuiltinModes {
		if slices.Contains(xs, b) {
			out = append(out, b)
		}
	}
	for _, m := range xs {
		if !m.Builtin() && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// Duration is a time.Duration that a results file spells as Go does ("10ms").
type Duration time.Duration

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText writes "10ms".
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads what time.ParseDuration reads. (encoding/json gives
// its error no position; intervals are the only durations in the file.)
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("settings.mode_specs: interval %q is not a duration like 10ms", b)
	}
	*d = Duration(v)
	return nil
}

// Metric is what a cell's statistics are computed from: which number of
// each run is "the time". Every statistic, overhead, verdict and report of
// a cell uses its metric and names it.
type Metric string

// The metrics. MetricElapsed, the default, and MetricKernelCPU need the
// workload's VBENCH line.
const (
	MetricElapsed Metric = "elapsed" // the workload's own kernel time (elapsed_ns on its VBENCH line)
	MetricWall    Metric = "wall"    // the process's start to exit, as the harness saw it
	MetricCPU     Metric = "cpu"     // user + system CPU of the process and the children it waited for
	// MetricKernelCPU is the CPU time the process spent during the
	// workload's kernel (cpu_ns on its VBENCH line): what a shared machine
	// disturbs least (docs/harness.md, "Statistical quality").
	MetricKernelCPU Metric = "kernel-cpu"
)

// Metrics lists the metrics.
var Metrics = []Metric{MetricElapsed, MetricWall, MetricCPU, MetricKernelCPU}

// Valid reports whether m is one of Metrics.
func (m Metric) Valid() bool { return slices.Contains(Metrics, m) }

// OrDefault is m, or MetricElapsed for "" (results files written before
// cells recorded their metric measured elapsed time).
func (m Metric) OrDefault() Metric {
	if m == "" {
		return MetricElapsed
	}
	return m
}

// Phrase is the metric in a few words for a report's prose: "wall time".
func (m Metric) Phrase() string {
	switch m.OrDefault() {
	case MetricWall:
		return "wall time"
	case MetricCPU:
		return "CPU time"
	case MetricKernelCPU:
		return "kernel CPU time"
	}
	return "elapsed time"
}

// Meaning says what the metric measures.
func (m Metric) Meaning() string {
	switch m.OrDefault() {
	case MetricWall:
		return "the process's start to exit"
	case MetricCPU:
		return "user + system CPU of the process and the children it waited for"
	case MetricKernelCPU:
		return "the process's CPU time during the workload's own measurement, from its VBENCH line"
	}
	return "the workload's own measurement, from its VBENCH line"
}

// Of is run r's value of the metric, in nanoseconds.
func (m Metric) Of(r *Run) int64 {
	switch m.OrDefault() {
	case MetricWall:
		return r.WallNs
	case MetricCPU:
		return r.UserNs + r.SysNs
	case MetricKernelCPU:
		return r.CPUNs
	}
	return r.ElapsedNs
}
