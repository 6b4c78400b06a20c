package modes

import (
	"testing"
	"time"
)

// Every built-in mode but none runs one of the profiler's engines, and the
// harness checks exact call counts for exactly the engines that count calls.
func TestModesAndEngines(t *testing.T) {
	want := map[Mode]struct {
		engine Engine
		counts bool
	}{
		None:            {"", false},
		Null:            {EngineNull, false},
		Tracing:         {EngineTracing, true},
		Instrumentation: {EngineInstrumentation, true},
		Sampling:        {EngineSampling, false},
	}
	if len(Builtins) != len(want) {
		t.Fatalf("Builtins %v, want the %d modes below", Builtins, len(want))
	}
	for _, m := range Builtins {
		w, ok := want[m]
		if !ok {
			t.Fatalf("unexpected built-in mode %q", m)
		}
		e := m.Engine()
		if e != w.engine {
			t.Errorf("%s.Engine() = %q, want %q", m, e, w.engine)
		}
		if m == None {
			continue
		}
		if !e.Valid() || e.CountsCalls() != w.counts || e.Samples() != (e == EngineSampling) {
			t.Errorf("%s: valid %v, counts calls %v (want %v), samples %v", e, e.Valid(), e.CountsCalls(), w.counts, e.Samples())
		}
	}
	// One engine per profiled built-in mode, and two samplers without a
	// built-in mode of their own (a suite's mode names them): the suspending
	// one, and cpu-sampling, the default sampler's former name.
	if len(Engines) != len(want)-1+4 {
		t.Errorf("Engines %v: one per profiled mode, suspend-sampling, cpu-sampling and the two allocation engines", Engines)
	}
	// The allocation engines count neither calls nor time samples.
	for _, e := range []Engine{EngineAllocations, EngineAllocationSampling} {
		if !e.Valid() || !e.Allocates() || e.Samples() || e.CountsCalls() {
			t.Errorf("%s: valid %v, allocates %v, samples %v, counts calls %v", e, e.Valid(), e.Allocates(), e.Samples(), e.CountsCalls())
		}
	}
	if EngineSampling.Allocates() || EngineTracing.Allocates() {
		t.Error("only the allocation engines allocate")
	}
	for _, e := range []Engine{EngineSuspendSampling, EngineCPUSampling} {
		if !e.Valid() || !e.Samples() || e.CountsCalls() {
			t.Errorf("%s: valid %v, samples %v, counts calls %v", e, e.Valid(), e.Samples(), e.CountsCalls())
		}
	}
	if Mode("instrumented").Engine() != "" || Engine("instrumented").Valid() {
		t.Errorf("a misspelt mode is not an engine")
	}
}

// Which engine reads which setting, as the profiler does (profiler/config.go,
// profiler.c): a mode describes, and a suite or a flag may set, only those.
func TestEngineUsesSettings(t *testing.T) {
	want := map[string][]Engine{
		"interval":    {EngineSampling, EngineSuspendSampling},
		"no_inline":   {EngineSampling, EngineSuspendSampling},
		"max_stack":   {EngineSuspendSampling},
		"time_sample": {EngineTracing, EngineInstrumentation},
		"include":     {EngineTracing, EngineInstrumentation, EngineSampling, EngineSuspendSampling, EngineAllocations, EngineAllocationSampling, EngineNull},
	}
	for setting, engines := range want {
		if got := List(UsedBy(setting)); got != List(engines) {
			t.Errorf("UsedBy(%s) = %s, want %s", setting, got, List(engines))
		}
	}
	if !EngineCPUSampling.Uses("interval") || EngineCPUSampling.Uses("max_stack") {
		t.Error("cpu-sampling, sampling's old name, reads what sampling reads")
	}
	all := ProfilerSettings{Interval: Duration(time.Millisecond), TimeSample: 4, NoInline: true, MaxStack: 64}
	for e, d := range map[Engine]string{
		EngineSampling:        "vbench sampling, interval 1ms, no_inline",
		EngineSuspendSampling: "vbench suspend-sampling, interval 1ms, no_inline, max_stack 64",
		EngineTracing:         "vbench tracing, time_sample 4",
		EngineNull:            "vbench null",
	} {
		if got := (&Spec{Engine: e, ProfilerSettings: all}).Description(); got != d {
			t.Errorf("%s with every setting: %q, want %q", e, got, d)
		}
	}
}
