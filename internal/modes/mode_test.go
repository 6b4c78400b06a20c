package modes

import "testing"

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
		if !e.Valid() || e.CountsCalls() != w.counts || e.Samples() != (e == EngineSampling || e == EngineCPUSampling) {
			t.Errorf("%s: valid %v, counts calls %v (want %v), samples %v", e, e.Valid(), e.CountsCalls(), w.counts, e.Samples())
		}
	}
	// One engine per profiled built-in mode, and cpu-sampling, experimental,
	// which has no built-in mode of its own (a suite's mode names it).
	if len(Engines) != len(want)-1+1 || !EngineCPUSampling.Valid() || !EngineCPUSampling.Samples() || EngineCPUSampling.CountsCalls() {
		t.Errorf("Engines %v: one per profiled mode, and cpu-sampling", Engines)
	}
	if Mode("instrumented").Engine() != "" || Engine("instrumented").Valid() {
		t.Errorf("a misspelt mode is not an engine")
	}
}
