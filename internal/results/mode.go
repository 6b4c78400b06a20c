package results

import "strings"

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
