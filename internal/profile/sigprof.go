package profile

import (
	"fmt"
	"strings"
	"syscall"

	"vbench/internal/modes"
)

// The sampling engine's signal is SIGPROF (profiler/sampling.c). A
// program that takes it (ignores it, gives it a handler of its own) blinds
// the sampler: the profiler stops its ticks and marks the profile
// incomplete with SamplingStoppedCause, which the harness fails a run on
// (issue 48).

const samplingStopped = "sampling stopped "

// SamplingStoppedCause is a profile's cause when the program took SIGPROF
// afterNs into the run, what being what the signal does now ("ignored
// (SIG_IGN)", "a handler of its own (…)").
func SamplingStoppedCause(what string, afterNs int64) string {
	return fmt.Sprintf("%s%.2f s in: the program took SIGPROF, the sampling engine's signal; it is now %s, so the samples cover only the time before", samplingStopped, float64(afterNs)/1e9, what)
}

// SamplingStopped reports whether p's sampler lost its signal before the
// end: its samples are a part of the run, not the run.
func (p *Profile) SamplingStopped() bool {
	return !p.Complete && strings.HasPrefix(p.Cause, samplingStopped)
}

// UsesSIGPROF reports whether engine e samples with SIGPROF.
func UsesSIGPROF(e modes.Engine) bool {
	return e == modes.EngineSampling || e == modes.EngineCPUSampling
}

// SIGPROFDeath is what a process of engine e killed by signal sig (its
// exit status 128+sig) most likely did: reset SIGPROF to its default
// action, which ends it at the sampler's next tick, before the profiler
// can see the change. "" for any other signal or engine.
func SIGPROFDeath(e modes.Engine, sig int) string {
	if !UsesSIGPROF(e) || syscall.Signal(sig) != syscall.SIGPROF {
		return ""
	}
	return "SIGPROF is the sampling engine's signal: the program most likely reset it to its default action (signal(SIGPROF, SIG_DFL)), which ends the process at the sampler's next tick; profile it with another engine (tracing), or leave SIGPROF alone"
}
