package attach

import (
	"fmt"
	"strings"
	"time"

	"vbench/internal/modes"
)

// Variables an attach's client data carries besides the profiler's own
// (vbench profile --pid; profiler/attach.c): how long to profile before the
// profiler detaches itself, and the file its messages go to (the target's
// stderr stays the program's).
const (
	EnvAttachDuration = "VBENCH_ATTACH_DURATION"
	EnvAttachLog      = "VBENCH_ATTACH_LOG"
)

// AttachEngines are the engines that can start in a process already
// running: their event masks are within COR_PRF_ALLOWABLE_AFTER_ATTACH.
var AttachEngines = []modes.Engine{modes.EngineSampling, modes.EngineAllocationSampling}

// AfterAttach says why engine cannot profile a process it attaches to (nil
// when it can).
func AfterAttach(e modes.Engine) error {
	if !e.Valid() {
		return fmt.Errorf("%q is not an engine: want %s", e, modes.OneOf(AttachEngines))
	}
	if why := WhyNotAttach(e); why != "" {
		return fmt.Errorf("--mode %s cannot attach to a running process: %s (--pid takes %s)", e, why, modes.OneOf(AttachEngines))
	}
	return nil
}

// WhyNotAttach is why engine e cannot start after attach, "" when it can.
func WhyNotAttach(e modes.Engine) string {
	switch e {
	case modes.EngineTracing, modes.EngineNull:
		return "its enter/leave hooks can only be set when the runtime starts (COR_PRF_MONITOR_ENTERLEAVE is not allowed after attach)"
	case modes.EngineInstrumentation:
		return "it rewrites each method's IL at its first JIT compilation and keeps selected methods from precompiled code, which only a profiler loaded at startup may do (COR_PRF_MONITOR_CACHE_SEARCHES is not allowed after attach; methods compiled before the attach would never count)"
	case modes.EngineAllocations:
		return "it needs the runtime's ObjectAllocated callback for every object, which is enabled only at startup (COR_PRF_ENABLE_OBJECT_ALLOCATED is immutable after attach); allocation-sampling works after attach"
	case modes.EngineSuspendSampling:
		return "its wrapper in front of the runtime's suspension signal (SIGRTMIN) cannot be taken away at a detach; sampling works after attach"
	}
	return ""
}

// ClientData is the configuration an attach sends the profiler: the
// VBENCH_* variables Env would set for opts, the duration and the log
// file, one KEY=VALUE a line.
func ClientData(opts Options, d time.Duration, logFile string) []byte {
	var b strings.Builder
	for _, kv := range Env("", opts) {
		if strings.HasPrefix(kv, "VBENCH_") {
			b.WriteString(kv + "\n")
		}
	}
	fmt.Fprintf(&b, "%s=%s\n%s=%s\n", EnvAttachDuration, d, EnvAttachLog, logFile)
	return []byte(b.String())
}

// ParseClientData reads ClientData back: KEY=VALUE lines.
func ParseClientData(data []byte) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok && k != "" {
			m[k] = v
		}
	}
	return m
}
