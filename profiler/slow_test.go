package main

import (
	"bytes"
	"debug/elf"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
)

// stubCode returns the first n bytes of a hook stub's machine code in lib.
func stubCode(t *testing.T, lib, sym string, n int) []byte {
	t.Helper()
	f, err := elf.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Name != sym {
			continue
		}
		for _, sec := range f.Sections {
			if sec.Addr <= s.Value && s.Value+uint64(n) <= sec.Addr+sec.Size && sec.Type == elf.SHT_PROGBITS {
				b := make([]byte, n)
				if _, err := sec.ReadAt(b, int64(s.Value-sec.Addr)); err != nil {
					t.Fatal(err)
				}
				return b
			}
		}
	}
	t.Fatalf("%s: no symbol %s", lib, sym)
	return nil
}

// The slow build's enter hook rotates the active node it loaded (ror r10,
// 32: 49 c1 ca 20) before using it; the shipped library's has no rotation
// in its fast path. Both start with the same TLS load (mov r11, [rip+x]:
// 4c 8b 1d), and are the same profiler otherwise, so the slow one's call
// counts are exact too.
func TestSlowBuildOnlyInSlowLibrary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two libraries and runs dotnet")
	}
	ror := []byte{0x49, 0xc1, 0xca, 0x20}
	shipped, slow := testbin.ProfilerLib(t), testbin.SlowProfilerLib(t)
	for _, lib := range []struct {
		path   string
		rotate bool
	}{{shipped, false}, {slow, true}} {
		code := stubCode(t, lib.path, "vb_enter_stub", 40)
		if !bytes.HasPrefix(code, []byte{0x4c, 0x8b, 0x1d}) {
			t.Errorf("%s: enter hook starts % x, want the TLS load 4c 8b 1d", lib.path, code[:3])
		}
		if got := bytes.Contains(code, ror); got != lib.rotate {
			t.Errorf("%s: ror r10, 32 in the enter hook's first 40 bytes: %v, want %v\n% x", lib.path, got, lib.rotate, code)
		}
	}
	r := testapp.Profiled(t, slow, modes.EngineTracing, nil, "all")
	if r.Code != 0 {
		t.Fatalf("under the slow library: exit %d\nstderr:\n%s", r.Code, r.Stderr)
	}
	p := readProfile(t, r)
	for name, want := range testapp.Expectations(r.Stdout) {
		if f := p.Function(name); f == nil || f.Calls != want {
			t.Errorf("%s under the slow library: %v, want %d calls", name, f, want)
		}
	}
}
