package results

import "testing"

// Every built-in mode but none runs one of the profiler's engines, and the
// harness checks exact call counts for exactly the engines that count calls.
func TestModesAndEngines(t *testing.T) {
	want := map[Mode]struct {
		engine Engine
		counts bool
	}{
		ModeNone:            {"", false},
		ModeNull:            {EngineNull, false},
		ModeTracing:         {EngineTracing, true},
		ModeInstrumentation: {EngineInstrumentation, true},
		ModeSampling:        {EngineSampling, false},
	}
	if len(BuiltinModes) != len(want) {
		t.Fatalf("BuiltinModes %v, want the %d modes below", BuiltinModes, len(want))
	}
	for _, m := range BuiltinModes {
		w, ok := want[m]
		if !ok {
			t.Fatalf("unexpected built-in mode %q", m)
		}
		e := m.Engine()
		if e != w.engine {
			t.Errorf("%s.Engine() = %q, want %q", m, e, w.engine)
		}
		if m == ModeNone {
			continue
		}
		if !e.Valid() || e.CountsCalls() != w.counts || e.Samples() != (e == EngineSampling) {
			t.Errorf("%s: valid %v, counts calls %v (want %v), samples %v", e, e.Valid(), e.CountsCalls(), w.counts, e.Samples())
		}
	}
	if len(Engines) != len(want)-1 {
		t.Errorf("Engines %v: one per profiled mode", Engines)
	}
	if Mode("instrumented").Engine() != "" || Engine("instrumented").Valid() {
		t.Errorf("a misspelt mode is not an engine")
	}
}
