package modes

import (
	"maps"
	"slices"
	"strings"
)

// Spec defines a mode: what a cell of that mode loads into its workload.
// The built-in modes are ModeSpecs too (BuiltinSpec); a suite defines more,
// and a results file records every mode it ran (Settings.ModeSpecs), so
// reports, merge, compare and baselines know each mode without the suite.
//
// A mode with an Engine is vbench's profiler: the library at Profiler (or the
// run's library when empty) with the settings, and every run must leave a
// profile. A mode without one loads nothing of vbench's: only Env, which may
// load any profiler (or none), and its runs are measured only.
type Spec struct {
	Name     Mode              `json:"name"`
	Engine   Engine            `json:"engine,omitempty"`
	Profiler string            `json:"profiler,omitempty"` // absolute path of another vbench build
	Env      map[string]string `json:"env,omitempty"`      // added to the child's environment; "{rundir}" expands
	// Against names the mode this one is judged against, cell by cell, in
	// the same run (an A/B comparison): a suite's `against:`, or the OLD
	// build's twin of an engine mode under `vbench run --against`.
	Against Mode `json:"against,omitempty"`
	// Profile is the profile the mode's own profiler writes in each run (a
	// mode without an engine: EventPipe's trace, another CoreCLR profiler's
	// pprof), read and scored after the run; nil when it names none.
	Profile *ProfileFile `json:"profile,omitempty"`
	// Wrap is a command the workload runs under: its argv goes before the
	// workload's ("{rundir}" expands), as `perf record … --` or `strace -f`
	// would; the wrapper must run the rest of its arguments as the program
	// and exit with its status. Its own time and memory count as the
	// program's (the process vbench waits for is the wrapper).
	Wrap []string `json:"wrap,omitempty"`
	// Attach, on a service workload, loads the engine into the running
	// server during the measured load instead of at its start; nil: at start.
	Attach *AttachPlan `json:"attach,omitempty"`
	ProfilerSettings
}

// BuiltinSpec is the definition of a built-in mode (with no settings: the
// profiler's defaults), or of an unknown mode: measured only, no engine.
func BuiltinSpec(m Mode) Spec { return Spec{Name: m, Engine: m.Engine()} }

// RunDir is what a mode's (or a workload's) environment values may contain
// to name the run's own directory: fresh for every run, removed after it
// unless the run's profiles are kept.
const RunDir = "{rundir}"

// EnvList is the mode's environment as KEY=VALUE, sorted by key.
func (s *Spec) EnvList() []string {
	out := make([]string, 0, len(s.Env))
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		out = append(out, k+"="+s.Env[k])
	}
	return out
}

// Description is the mode in a few words for tables and reports: "vbench
// sampling, interval 1ms", "vbench tracing (/opt/base/libvbenchprof.so)",
// "env DOTNET_EnableEventPipe=1 …", "no profiler".
func (s *Spec) Description() string {
	if s.Engine == "" {
		var d []string
		if len(s.Wrap) > 0 {
			d = append(d, "under "+strings.Join(s.Wrap, " "))
		}
		if len(s.Env) > 0 {
			d = append(d, "env "+strings.Join(s.EnvList(), " "))
		}
		if len(d) == 0 {
			return "no profiler"
		}
		return strings.Join(d, ", ")
	}
	d := "vbench " + string(s.Engine)
	// Only the settings the engine reads: a suite's profiler block gives
	// every engine mode all of them.
	set := s.ProfilerSettings.describe(s.Engine)
	if len(s.Env) > 0 {
		set = append(set, "env "+strings.Join(s.EnvList(), " "))
	}
	if len(set) > 0 {
		d += ", " + strings.Join(set, ", ")
	}
	if s.Profiler != "" {
		d += " (" + s.Profiler + ")"
	}
	if len(s.Wrap) > 0 {
		d += ", under " + strings.Join(s.Wrap, " ")
	}
	if s.Attach != nil {
		d += ", " + s.Attach.String()
	}
	return d
}

// Equal reports whether two definitions load the same thing.
func (s *Spec) Equal(o *Spec) bool {
	return s.Name == o.Name && s.Engine == o.Engine && s.Profiler == o.Profiler && s.Against == o.Against &&
		(s.Profile == nil) == (o.Profile == nil) && (s.Profile == nil || *s.Profile == *o.Profile) &&
		maps.Equal(s.Env, o.Env) && s.ProfilerSettings.equal(o.ProfilerSettings) && slices.Equal(s.Wrap, o.Wrap) &&
		(s.Attach == nil) == (o.Attach == nil) && (s.Attach == nil || *s.Attach == *o.Attach)
}
