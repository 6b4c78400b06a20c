package runner

import (
	"slices"
	"strings"
	"testing"

	"vbench/internal/instrprof"
)

// A why launch turns the runtime's perf map on, unless the launch's
// environment turned it off (issue 51): the user's word is kept, and the
// why says that no perf map named the JIT-compiled code, and why.
func TestWhyEnvKeepsAPerfMapTurnedOff(t *testing.T) {
	for _, c := range []struct {
		env []string
		off string
	}{
		{nil, ""},
		{[]string{"DOTNET_PerfMapEnabled=0"}, "its environment sets DOTNET_PerfMapEnabled=0"},
		{[]string{"DOTNET_PerfMapEnabled=0", "DOTNET_PerfMapEnabled=1"}, ""}, // the last entry is the one a process gets
		{[]string{"COMPlus_PerfMapEnabled=0"}, "its environment sets COMPlus_PerfMapEnabled=0"},
		{[]string{"COMPlus_PerfMapEnabled=0", "DOTNET_PerfMapEnabled=2"}, ""}, // DOTNET_ is read first
	} {
		add, off, _ := whyEnv(c.env, "/run")
		if off != c.off || (off == "") != slices.Contains(add, "DOTNET_PerfMapEnabled=3") {
			t.Errorf("%q: adds %q, off %q; want off %q", c.env, add, off, c.off)
		}
	}
	// Precompiled code goes off where no profiler loads and the
	// environment leaves it be: the perf map cannot name it.
	for _, c := range []struct {
		env    []string
		r2rOff bool
	}{
		{nil, true},
		{[]string{"CORECLR_ENABLE_PROFILING=1"}, false},
		{[]string{"CORECLR_ENABLE_PROFILING=1", "CORECLR_ENABLE_PROFILING=0"}, true},
		{[]string{"DOTNET_ReadyToRun=1"}, false},
		{[]string{"COMPlus_ReadyToRun=1"}, false},
		{[]string{"DOTNET_PerfMapEnabled=0"}, false}, // nothing to name it by
	} {
		add, _, r2rOff := whyEnv(c.env, "/run")
		if r2rOff != c.r2rOff || r2rOff != slices.Contains(add, "DOTNET_ReadyToRun=0") {
			t.Errorf("%q: adds %q, ReadyToRun off %v; want %v", c.env, add, r2rOff, c.r2rOff)
		}
	}
	jitted := &instrprof.Profile{Funcs: []instrprof.Func{{Name: instrprof.JittedCode, Self: 5, Unnamed: true}}}
	if got := noPerfMap(jitted, "its environment sets DOTNET_PerfMapEnabled=0"); !strings.Contains(got, "DOTNET_PerfMapEnabled=0") {
		t.Errorf("map turned off: %q", got)
	}
	if got := noPerfMap(jitted, ""); !strings.Contains(got, "the runtime wrote none") {
		t.Errorf("no map written: %q", got)
	}
	if jitted.PerfMaps = 1; noPerfMap(jitted, "") != "" {
		t.Errorf("a map was read")
	}
	native := &instrprof.Profile{Funcs: []instrprof.Func{{Name: "[libc.so.6]", Self: 5, Unnamed: true}}}
	if got := noPerfMap(native, ""); got != "" {
		t.Errorf("a native program wants no map: %q", got)
	}
}
