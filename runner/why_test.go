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
		add, off := whyEnv(c.env, "/run")
		if off != c.off || (off == "") != slices.Contains(add, "DOTNET_PerfMapEnabled=3") {
			t.Errorf("%q: adds %q, off %q; want off %q", c.env, add, off, c.off)
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
