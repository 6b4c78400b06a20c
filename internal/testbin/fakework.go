package testbin

import "testing"

var (
	fakeWork = build{}
	fakeProf = build{}
)

// Fakework returns the path of internal/fakework, a real process that prints
// a VBENCH line with the elapsed time its flags ask for (see its doc).
func Fakework(t testing.TB) string { return fakeWork.get(t, "fakework", "./internal/fakework") }

// FakeProfiler returns a library that passes attach.Check but is no profiler,
// for profiled-mode tests of the harness with fakework.
func FakeProfiler(t testing.TB) string {
	return fakeProf.get(t, "libfakeprof.so", "-buildmode=c-shared", "./internal/fakework/fakeprof")
}
