package modes

import (
	"slices"
	"strings"
)

// Mode names how a cell's workload was run: one of the built-in modes below,
// each a results file's, a suite's and a report's word for the same thing.
// Every package spells modes through these constants, never as literals.
type Mode string

// The built-in modes. None runs the workload without any profiler and is
// the reference every overhead multiple divides by.
const (
	None            Mode = "none"
	Null            Mode = "null"
	Tracing         Mode = "tracing"
	Instrumentation Mode = "instrumentation"
	Sampling        Mode = "sampling"
)

// Builtins lists the built-in modes in the order reports show them: the
// two exact-count engines side by side (the enter/leave tracer, then IL
// instrumentation, which aims below it), the statistical one last.
var Builtins = []Mode{None, Null, Tracing, Instrumentation, Sampling}

// Engine is one of the vbench profiler's engines: what VBENCH_MODE selects
// and what a profile's "mode" field records.
type Engine string

// The profiler's engines.
const (
	EngineNull            Engine = "null"            // the hooks, doing nothing: an enter/leave tracer's floor
	EngineTracing         Engine = "tracing"         // enter/leave hooks: exact call counts and times
	EngineInstrumentation Engine = "instrumentation" // rewritten IL counts and times each call itself
	// EngineSampling samples each thread every interval of its CPU time with
	// a signal to it alone that walks its frames, and each wait once,
	// weighed by the time waited: the runtime is never suspended.
	EngineSampling Engine = "sampling"
	// EngineSuspendSampling is the sampler before it: every interval it
	// suspends the runtime and snapshots every thread's stack
	// (DoStackSnapshot). Selectable, no longer the default.
	EngineSuspendSampling Engine = "suspend-sampling"
	// EngineCPUSampling is EngineSampling's name while it was experimental,
	// kept so that suites naming it still run.
	EngineCPUSampling Engine = "cpu-sampling"
	// EngineAllocations counts every allocated object, exactly, by type and
	// by the call path that allocated it (the runtime's ObjectAllocated
	// callback), and records each garbage collection.
	EngineAllocations Engine = "allocations"
	// EngineAllocationSampling receives the runtime's randomized allocation
	// samples (.NET 10's AllocationSampled event, one per ~100 KB allocated)
	// in-process and upscales them to estimated counts and bytes by type and
	// path; and records each garbage collection.
	EngineAllocationSampling Engine = "allocation-sampling"
)

// Engines lists the profiler's engines.
var Engines = []Engine{EngineTracing, EngineInstrumentation, EngineSampling, EngineSuspendSampling, EngineCPUSampling, EngineAllocations, EngineAllocationSampling, EngineNull}

// Engine is the profiler engine a built-in mode runs, and "" for None
// (no profiler) or a mode that is not built in.
func (m Mode) Engine() Engine {
	switch m {
	case Null:
		return EngineNull
	case Tracing:
		return EngineTracing
	case Instrumentation:
		return EngineInstrumentation
	case Sampling:
		return EngineSampling
	}
	return ""
}

// Builtin reports whether m is one of Builtins.
func (m Mode) Builtin() bool { return slices.Contains(Builtins, m) }

// Valid reports whether e is one of Engines.
func (e Engine) Valid() bool { return slices.Contains(Engines, e) }

// Samples reports whether the engine's profiles count samples rather than calls.
func (e Engine) Samples() bool {
	return e == EngineSampling || e == EngineSuspendSampling || e == EngineCPUSampling
}

// Allocates reports whether the engine's profiles hold allocations (by
// type and call path) and the garbage collections, rather than calls or
// time samples.
func (e Engine) Allocates() bool { return e == EngineAllocations || e == EngineAllocationSampling }

// CountsCalls reports whether the engine's profiles hold exact call counts
// (and times) per call path, the figures a workload's expected calls are
// checked against.
func (e Engine) CountsCalls() bool { return e == EngineTracing || e == EngineInstrumentation }

// Uses reports whether the engine reads a profiler setting (by its suite
// field name: interval, include, …; the table in settings.go says which). A
// setting the engine does not read would silently do nothing, so a mode's
// own setting or a flag must be one it reads.
func (e Engine) Uses(setting string) bool {
	if f := FieldNamed(setting); f != nil {
		return f.Reads(e)
	}
	return true
}

// UsedBy lists the engines that read setting, for messages (the experimental
// alias cpu-sampling left out).
func UsedBy(setting string) []Engine {
	var es []Engine
	for _, e := range Engines {
		if e != EngineCPUSampling && e.Uses(setting) {
			es = append(es, e)
		}
	}
	return es
}

// List is names (modes, engines, or any other ~string: metrics) as a
// message shows them: "none, null, tracing".
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

// OldBuild is the name of mode m measured with the OLD build of the
// profiler in an A/B run (`vbench run --against OLD.so`): "tracing@old".
// '@' is in no name a suite can give, so it names no other mode.
func OldBuild(m Mode) Mode { return m + oldBuildSuffix }

const oldBuildSuffix = "@old"

// IsOldBuild reports whether m is an engine mode's OLD-build twin.
func (m Mode) IsOldBuild() bool { return strings.HasSuffix(string(m), oldBuildSuffix) }

// Order sorts modes into report order: the built-in modes in their
// order, then the others as they first appear in xs (a suite's definition order).
func Order(xs []Mode) []Mode {
	var out []Mode
	for _, b := range Builtins {
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
