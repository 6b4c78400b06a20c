package runner

import (
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/suite"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
)

// A workload that is a process tree (the test program's parent, a child
// looping and a child spinning, all profiled by the real library): the
// call-count check and the coverage sets are over the merged profile of all
// of its processes.
func TestChecksOverTheProcessTree(t *testing.T) {
	lib := testbin.ProfilerLib(t)
	args := []string{"spawn", "0", "loop:2000", "cpu:300"}
	tr := testapp.Profiled(t, lib, modes.EngineTracing, nil, args...)
	sa := testapp.Profiled(t, lib, modes.EngineSampling, nil, args...)

	tree, merged, msg := readProfile(tr.Dir, modes.EngineTracing, nil)
	if msg != "" || len(tree.Processes) != 3 {
		t.Fatalf("tracing: %s\n%s", msg, tr.Stderr)
	}
	if _, _, msg := readProfile(tr.Dir, modes.EngineSampling, nil); !strings.Contains(msg, `profile says mode "tracing"`) {
		t.Errorf("a tracing tree read as sampling: %q", msg)
	}
	c := &cellState{Cell: Cell{Workload: &suite.Workload{Name: "tree"}, Mode: modes.Tracing}}
	// The parent calls Loop.Step 500 times, the loop child 2000: only the
	// whole tree has 2500.
	checkCalls(c, 0, merged, map[string]int64{"VbTest.Loop.Step": 2500, "VbTest.Hot.Spin": 1})
	if a := c.accuracy; a.Checked != 2 || a.Exact != 2 {
		t.Errorf("call counts over the tree: %+v", a)
	}
	c.cover.addTracing(merged)
	if !c.cover.hot["VbTest.Hot.Spin"] || !c.cover.hot["VbTest.Spawner.Run"] {
		t.Errorf("hot set %v lacks the spinning child's or the parent's function", c.cover.hot)
	}

	_, sampled, msg := readProfile(sa.Dir, modes.EngineSampling, nil)
	if msg != "" {
		t.Fatalf("sampling: %s\n%s", msg, sa.Stderr)
	}
	s := &cellState{Cell: Cell{Workload: c.Workload, Mode: modes.Sampling}}
	s.cover.addSampling(sampled)
	if !s.cover.sampled["VbTest.Hot.Spin"] || !s.cover.sampled["VbTest.Spawner.Run"] {
		t.Errorf("sampled set %v lacks the spinning child's or the parent's function", s.cover.sampled)
	}
	if cov := coverage(&c.cover, &s.cover); cov == nil || cov.Of != len(c.cover.hot) {
		t.Errorf("coverage %+v", cov)
	}
}

// A process of the tree killed before it wrote its profile fails the run,
// named: its calls would be missing from every check.
func TestKilledProcessFailsTheRun(t *testing.T) {
	r := testapp.Profiled(t, testbin.ProfilerLib(t), modes.EngineTracing, nil, "spawn", "0", "loop:100", "hang")
	_, _, msg := readProfile(r.Dir, modes.EngineTracing, nil)
	if !strings.HasPrefix(msg, "1 of the workload's processes started profiling and wrote no profile (pid ") ||
		!strings.Contains(msg, "VbTestApp.dll hang)") {
		t.Errorf("message %q", msg)
	}
}
