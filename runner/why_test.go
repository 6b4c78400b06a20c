package runner

import (
	"slices"
	"strings"
	"testing"

	"vbench/internal/instrprof"
	"vbench/internal/modes"
	"vbench/internal/suite"
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
		add, off, _ := whyEnv(c.env, "/run", false)
		if off != c.off || (off == "") != slices.Contains(add, "DOTNET_PerfMapEnabled=3") {
			t.Errorf("%q: adds %q, off %q; want off %q", c.env, add, off, c.off)
		}
	}
	// Precompiled code goes off where the pair's launches load nothing
	// (the perf map cannot name it), and never without a map.
	for _, c := range []struct {
		env           []string
		noR2R, r2rOff bool
	}{
		{nil, true, true},
		{nil, false, false},
		{[]string{"DOTNET_PerfMapEnabled=0"}, true, false},
	} {
		add, _, r2rOff := whyEnv(c.env, "/run", c.noR2R)
		if r2rOff != c.r2rOff || r2rOff != slices.Contains(add, "DOTNET_ReadyToRun=0") {
			t.Errorf("%q, noR2R %v: adds %q, ReadyToRun off %v; want %v", c.env, c.noR2R, add, r2rOff, c.r2rOff)
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
	// What loads nothing: a mode with no engine, env or wrapper, and an
	// environment that loads no profiler, session or preload and leaves
	// the runtime's code choices be. Both sides of a pair must (whySteps):
	// a plain workload against one whose env turns ReadyToRun on keeps
	// both launches' precompiled code.
	plain := func(spec modes.Spec, wenv ...string) *cellState {
		return &cellState{Cell: Cell{Spec: spec, Workload: &suite.Workload{Name: "w", Env: wenv}}}
	}
	for _, c := range []struct {
		cell *cellState
		env  []string
		want bool
	}{
		{plain(modes.BuiltinSpec(modes.None)), []string{"PATH=/bin", "DOTNET_ROOT=/usr/share/dotnet"}, true},
		{plain(modes.BuiltinSpec("tracing")), nil, false},
		{plain(modes.Spec{Name: "eventpipe", Env: map[string]string{"DOTNET_EnableEventPipe": "1"}}), nil, false},
		{plain(modes.Spec{Name: "perf", Wrap: []string{"perf", "stat"}}), nil, false},
		{plain(modes.BuiltinSpec(modes.None)), []string{"CORECLR_ENABLE_PROFILING=1"}, false}, // an agent in the shell
		{plain(modes.BuiltinSpec(modes.None)), []string{"LD_PRELOAD=/opt/agent.so"}, false},
		{plain(modes.BuiltinSpec(modes.None), "DOTNET_ReadyToRun=1"), nil, false},
		{plain(modes.BuiltinSpec(modes.None), "COMPlus_PerfMapEnabled=0"), nil, false},
		{plain(modes.BuiltinSpec(modes.None), "DOTNET_gcServer=1"), nil, true},
	} {
		if got := loadsNothing(c.cell, c.env); got != c.want {
			t.Errorf("mode %+v, workload env %q, env %q: loads nothing %v, want %v", c.cell.Spec, c.cell.Workload.Env, c.env, got, c.want)
		}
	}
	// A reference two pairs share is launched once, and precompiled code
	// goes off for pairs sharing cells only when every one loads nothing:
	// one pair's side that sets ReadyToRun keeps it on for both, so that
	// the shared base is compared alike from both.
	base, app1 := plain(modes.BuiltinSpec(modes.None)), plain(modes.BuiltinSpec(modes.None))
	for _, c := range []struct {
		app2 *cellState
		off  bool
	}{
		{plain(modes.BuiltinSpec(modes.None)), true},
		{plain(modes.BuiltinSpec(modes.None), "DOTNET_ReadyToRun=1"), false},
	} {
		// A profiled pair of the same run keeps its own precompiled code,
		// and does not take the plain pairs' away.
		tb, th := plain(modes.BuiltinSpec("tracing")), plain(modes.BuiltinSpec("tracing"))
		steps := whyStepsIn([]abPair{{new: app1, old: base}, {new: th, old: tb}, {new: c.app2, old: base}}, []string{"PATH=/bin"})
		if len(steps) != 5 || steps[0].cell != base || steps[1].cell != app1 || steps[2].cell != tb || steps[3].cell != th || steps[4].cell != c.app2 {
			t.Errorf("why launches %+v: want base, app1, the traced pair, app2 once each", steps)
		}
		for _, st := range steps {
			want := c.off && st.cell != tb && st.cell != th
			if !st.why || st.noR2R != want {
				t.Errorf("app2 env %q: %s's why launch with precompiled code off %v, want %v", c.app2.Workload.Env, st.cell.Spec.Name, st.noR2R, want)
			}
		}
	}
	native := &instrprof.Profile{Funcs: []instrprof.Func{{Name: "[libc.so.6]", Self: 5, Unnamed: true}}}
	if got := noPerfMap(native, ""); got != "" {
		t.Errorf("a native program wants no map: %q", got)
	}
}
