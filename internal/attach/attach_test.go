package attach

import (
	"strings"
	"testing"
	"time"

	"vbench/internal/modes"
)

func TestEnv(t *testing.T) {
	if env := Env("/x/lib.so", Options{}); env != nil {
		t.Errorf("mode none must not load the profiler: %v", env)
	}
	env := Env("/x/lib.so", Options{Engine: modes.EngineSampling, ProfileDir: "/out", Settings: modes.ProfilerSettings{Interval: modes.Duration(time.Millisecond),
		Include: []string{"A", "B.*"}, Exclude: []string{"C"}, TimeSample: 4}})
	have := map[string]bool{}
	for _, kv := range env {
		have[kv] = true
	}
	for _, want := range []string{"CORECLR_ENABLE_PROFILING=1", "CORECLR_PROFILER=" + CLSID, "CORECLR_PROFILER_PATH=/x/lib.so",
		"CORECLR_PROFILER_PATH_64=/x/lib.so", "VBENCH_MODE=sampling", "VBENCH_PROFILE_DIR=/out", "VBENCH_INTERVAL=1ms",
		"VBENCH_INCLUDE=A,B.*", "VBENCH_EXCLUDE=C"} {
		if !have[want] {
			t.Errorf("Env lacks %s: %v", want, env)
		}
	}
	// Only what the engine reads: the sampler times no calls.
	if have["VBENCH_TIME_SAMPLE=4"] {
		t.Errorf("Env gave the sampler time_sample: %v", env)
	}
}

func TestScrubEnv(t *testing.T) {
	got := ScrubEnv([]string{"PATH=/bin", "CORECLR_ENABLE_PROFILING=1", "CORECLR_PROFILER_PATH_64=x", "DOTNET_PROFILER=y", "VBENCH_MODE=tracing", "HOME=/root"})
	if strings.Join(got, " ") != "PATH=/bin HOME=/root" {
		t.Errorf("ScrubEnv kept %v", got)
	}
}
