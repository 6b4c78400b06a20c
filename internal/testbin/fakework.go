package testbin

import (
	"path/filepath"
	"sync"
	"testing"
)

var (
	fakeOnce sync.Once
	fakeWork string
	fakeProf string
	fakeErr  error
	fakeOut  []byte
)

func buildFakes() {
	d, err := tempDir()
	if err != nil {
		fakeErr = err
		return
	}
	fakeWork = filepath.Join(d, "fakework")
	fakeProf = filepath.Join(d, "libfakeprof.so")
	if fakeOut, fakeErr = goBuild("-o", fakeWork, "./internal/fakework"); fakeErr != nil {
		return
	}
	fakeOut, fakeErr = goBuild("-buildmode=c-shared", "-o", fakeProf, "./internal/fakework/fakeprof")
}

func getFakes(t testing.TB) {
	t.Helper()
	fakeOnce.Do(buildFakes)
	if fakeErr != nil {
		t.Fatalf("building the fake workload: %v\n%s", fakeErr, fakeOut)
	}
}

// Fakework returns the path of internal/fakework, a real process that prints
// a VBENCH line with the elapsed time its flags ask for (see its doc).
func Fakework(t testing.TB) string { getFakes(t); return fakeWork }

// FakeProfiler returns a library that passes attach.Check but is no profiler,
// for profiled-mode tests of the harness with fakework.
func FakeProfiler(t testing.TB) string { getFakes(t); return fakeProf }
