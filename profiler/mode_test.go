//go:build vbenchtest

package main

import (
	"testing"

	"vbench/internal/attach"
	"vbench/internal/modes"
)

// TestEachEngineReachesItsCMode: vb.h numbers the modes once and Go reads
// those numbers through cgo (config.go), so every engine VBENCH_MODE
// accepts must land on the C mode C itself calls by the engine's name
// (state.c vb_mode_name), and the C modes must be exactly the engines.
// Numbers kept by hand in Go once sent one engine's name to another's mode.
func TestEachEngineReachesItsCMode(t *testing.T) {
	byMode := map[int]modes.Engine{}
	for _, e := range modes.Engines {
		cfg, err := configFromEnv(func(k string) (string, bool) {
			if k == attach.EnvMode {
				return string(e), true
			}
			return "", false
		})
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		want := e
		if e == modes.EngineCPUSampling { // the old name of sampling
			want = modes.EngineSampling
		}
		if got := cModeName(cfg.mode); got != string(want) {
			t.Errorf("VBENCH_MODE=%s runs C mode %d, which C calls %q, want %q", e, cfg.mode, got, want)
		}
		if prev, ok := byMode[cfg.mode]; ok && prev != want {
			t.Errorf("%s and %s share C mode %d", prev, want, cfg.mode)
		}
		byMode[cfg.mode] = want
	}
	for m := -1; m < 64; m++ {
		if name := cModeName(m); name != "" && byMode[m] != modes.Engine(name) {
			t.Errorf("C mode %d (%q) is no engine's (Go sends %q there)", m, name, byMode[m])
		}
	}
}
