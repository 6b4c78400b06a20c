package suite

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vbench/internal/modes"
)

const attachSvc = "workloads:\n  - name: web\n" +
	"    server: {command: [true], ready: \"http://127.0.0.1:{port}/ready\"}\n" +
	"    load: {url: \"http://127.0.0.1:{port}/w\"}\n"

// A mode's attach: true takes the defaults; a mapping its own, gap
// defaulting to at.
func TestAttachMode(t *testing.T) {
	p := write(t, t.TempDir(), "s.yaml", "name: s\nbaseline: b.json\nmodes:\n  - none\n"+
		"  - {name: at, engine: sampling, attach: true}\n"+
		"  - {name: twice, engine: allocation-sampling, attach: {at: 2s, duration: 3s, times: 2}}\n"+
		"  - {name: gap, engine: sampling, attach: {times: 3, gap: 1s}}\n"+attachSvc)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[modes.Mode]modes.AttachPlan{
		"at":    {At: modes.Duration(5 * time.Second), Duration: modes.Duration(5 * time.Second), Times: 1, Gap: modes.Duration(5 * time.Second)},
		"twice": {At: modes.Duration(2 * time.Second), Duration: modes.Duration(3 * time.Second), Times: 2, Gap: modes.Duration(2 * time.Second)},
		"gap":   {At: modes.Duration(5 * time.Second), Duration: modes.Duration(5 * time.Second), Times: 3, Gap: modes.Duration(time.Second)},
	}
	for m, w := range want {
		sp, _ := s.Spec(m)
		if sp.Attach == nil || *sp.Attach != w {
			t.Errorf("%s: attach %+v, want %+v", m, sp.Attach, w)
		}
	}
	if sp, _ := s.Spec("none"); sp.Attach != nil {
		t.Errorf("none attaches: %+v", sp.Attach)
	}
	if sp, _ := s.Spec("twice"); !strings.Contains(sp.Description(), "attached at 2s for 3s, 2 times 2s apart") {
		t.Errorf("description %q", sp.Description())
	}
}

// What cannot attach, each named by file, line and field: an engine whose
// events only a profiler loaded at start-up gets, a mode without engine or
// under a wrapper, a workload that is not a service.
func TestAttachModeRefused(t *testing.T) {
	head := "name: s\nbaseline: b.json\nmodes:\n"
	batch := "workloads:\n  - name: prog\n    command: [true]\n"
	for _, c := range []struct{ name, yaml, want string }{
		{"tracing", head + "  - {name: a, engine: tracing, attach: true}\n" + attachSvc, `s.yaml:4: modes[0](a).attach: engine tracing cannot attach to a running process: its enter/leave hooks can only be set when the runtime starts`},
		{"instrumentation", head + "  - {name: a, engine: instrumentation, attach: true}\n" + attachSvc, `s.yaml:4: modes[0](a).attach: engine instrumentation cannot attach to a running process: it rewrites each method's IL`},
		{"allocations", head + "  - {name: a, engine: allocations, attach: true}\n" + attachSvc, `s.yaml:4: modes[0](a).attach: engine allocations cannot attach to a running process: it needs the runtime's ObjectAllocated callback`},
		{"no engine", head + "  - {name: a, attach: true}\n" + attachSvc, `s.yaml:4: modes[0](a).attach: needs an engine: an attach loads vbench's profiler`},
		{"wrapped", head + "  - {name: a, engine: sampling, wrap: [env], attach: true}\n" + attachSvc, `s.yaml:4: modes[0](a).attach: cannot go with wrap`},
		{"times 0", head + "  - {name: a, engine: sampling, attach: {times: 0}}\n" + attachSvc, `s.yaml:4: modes[0].attach.times: must be >= 1, got 0`},
		{"bad duration", head + "  - {name: a, engine: sampling, attach: {duration: soon}}\n" + attachSvc, `s.yaml:4: modes[0].attach.duration: must be a duration like 30s`},
		{"unknown field", head + "  - {name: a, engine: sampling, attach: {every: 2s}}\n" + attachSvc, `s.yaml:4: modes[0].attach.every: unknown field`},
		{"too long", head + "  - {name: a, engine: sampling, attach: {duration: 5m, times: 3}}\n" + attachSvc, `s.yaml:4: modes[0].attach: plans a measured load of 15m20s`},
		{"a batch workload", head + "  - none\n  - name: a\n    engine: sampling\n    attach: true\n" + batch, `s.yaml:9: workloads[0](prog): mode a attaches to a running service (its attach:, line 7), and prog is not one`},
		{"a batch workload's modes", head + "  - none\n  - {name: a, engine: sampling, attach: true}\n" + batch + "    modes: [none, a]\n", `s.yaml:9: workloads[0](prog).modes[1]: mode a attaches to a running service (its attach:, line 5)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, t.TempDir(), "s.yaml", c.yaml)
			_, err := Load(p)
			if err == nil {
				t.Fatalf("accepted\n%s", c.yaml)
			}
			if got := strings.TrimPrefix(err.Error(), filepath.Dir(p)+"/"); !strings.HasPrefix(got, c.want) {
				t.Errorf("error\n  %s\nwant prefix\n  %s", got, c.want)
			}
		})
	}
}
