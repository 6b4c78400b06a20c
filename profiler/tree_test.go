package main

// Process trees: every .NET process the profiling environment reaches writes
// its own profile (testdata/app's "spawn" scenario starts .NET children).

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/testapp"
)

var childLine = regexp.MustCompile(`(?m)^child (\d+) (\S+) exited (-?\d+)$`)

// children maps each child spec of a spawn run ("loop:2000") to its pid and
// exit code, as the parent printed them.
func children(t *testing.T, stdout string) map[string][2]int {
	t.Helper()
	m := map[string][2]int{}
	for _, g := range childLine.FindAllStringSubmatch(stdout, -1) {
		pid, _ := strconv.Atoi(g[1])
		code, _ := strconv.Atoi(g[3])
		m[g[2]] = [2]int{pid, code}
	}
	return m
}

func readTree(t *testing.T, r testapp.Result) *profile.Tree {
	t.Helper()
	tr, err := profile.ReadTree(r.Dir)
	if err != nil {
		t.Fatalf("reading the profiles: %v\nstderr:\n%s", err, r.Stderr)
	}
	return tr
}

func byPID(t *testing.T, tr *profile.Tree, pid int) *profile.Profile {
	t.Helper()
	p, _, err := tr.Find(pid)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func calls(p *profile.Profile, name string) int64 {
	if f := p.Function(name); f != nil {
		return f.Calls
	}
	return 0
}

// A parent and two .NET children under tracing: one profile per process,
// each with its own exact counts; the parent's exit code is the program's.
func TestProcessTreeTracing(t *testing.T) {
	r := testapp.Profiled(t, lib(t), modes.EngineTracing, nil, "spawn", "5", "loop:2000", "recursion:15")
	if r.Code != 5 {
		t.Fatalf("exit %d, want the parent's 5\n%s", r.Code, r.Stderr)
	}
	kids := children(t, r.Stdout)
	loop, rec := kids["loop:2000"], kids["recursion:15"]
	if loop[1] != 0 || rec[1] != 0 || loop[0] == 0 || rec[0] == 0 {
		t.Fatalf("children: %v\n%s", kids, r.Stdout)
	}
	tr := readTree(t, r)
	if len(tr.Processes) != 3 || len(tr.Missing) != 0 {
		t.Fatalf("%d profiles, missing %v; want 3 and none", len(tr.Processes), tr.Missing)
	}
	parent := tr.Processes[0] // the first to start
	for _, c := range []int{loop[0], rec[0]} {
		if p := byPID(t, tr, c); p.ParentPID != parent.PID {
			t.Errorf("child %d: parent_pid %d, want %d", c, p.ParentPID, parent.PID)
		}
	}
	lp, rp := byPID(t, tr, loop[0]), byPID(t, tr, rec[0])
	for _, tc := range []struct {
		p          *profile.Profile
		fn         string
		want       int64
		args, role string
	}{
		{parent, "VbTest.Loop.Step", 500, "spawn 5 loop:2000 recursion:15", "parent"},
		{parent, "VbTest.Spawner.Run", 1, "", "parent"},
		{parent, "VbTest.Recursion.Fib", 0, "", "parent"},
		{lp, "VbTest.Loop.Step", 2000, "loop 2000", "loop child"},
		{lp, "VbTest.Recursion.Fib", 0, "", "loop child"},
		{rp, "VbTest.Recursion.Fib", 2*987 - 1, "recursion 15", "recursion child"},
		{rp, "VbTest.Loop.Step", 0, "", "recursion child"},
	} {
		if got := calls(tc.p, tc.fn); got != tc.want {
			t.Errorf("%s (pid %d): %s %d calls, want %d", tc.role, tc.p.PID, tc.fn, got, tc.want)
		}
		if tc.args != "" && !strings.HasSuffix(strings.Join(tc.p.Command, " "), "VbTestApp.dll "+tc.args) {
			t.Errorf("%s: command %q", tc.role, tc.p.Command)
		}
	}
	for i, p := range tr.Processes {
		if p.RuntimeVersion == "" || !p.End.After(p.Start) || !p.Complete || p.Mode != modes.EngineTracing {
			t.Errorf("pid %d: runtime %q, %v..%v, complete %v, mode %s", p.PID, p.RuntimeVersion, p.Start, p.End, p.Complete, p.Mode)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(tr.Paths[i]), profile.StartedFile)); err != nil {
			t.Errorf("pid %d: %v", p.PID, err)
		}
	}
	if m := tr.Merge(); calls(m, "VbTest.Loop.Step") != 2500 || calls(m, "VbTest.Recursion.Fib") != 1973 {
		t.Errorf("merged: Loop.Step %d, Fib %d; want 2500 and 1973", calls(m, "VbTest.Loop.Step"), calls(m, "VbTest.Recursion.Fib"))
	}
}

// Under sampling every process is sampled: the children spinning, the
// parent waiting for them.
func TestProcessTreeSampling(t *testing.T) {
	r := testapp.Profiled(t, lib(t), modes.EngineSampling, []string{modes.EnvVar("interval") + "=5ms"}, "spawn", "3", "cpu:400", "cpu:400")
	if r.Code != 3 {
		t.Fatalf("exit %d, want 3\n%s", r.Code, r.Stderr)
	}
	tr := readTree(t, r)
	if len(tr.Processes) != 3 || len(tr.Missing) != 0 {
		t.Fatalf("%d profiles, missing %v", len(tr.Processes), tr.Missing)
	}
	for i, p := range tr.Processes {
		if p.Samples <= 0 {
			t.Errorf("pid %d took no samples", p.PID)
		}
		fn := "VbTest.Hot.Spin"
		if i == 0 {
			fn = "VbTest.Spawner.Run"
		}
		if f := p.Function(fn); f == nil || f.InclusiveSamples <= 0 {
			t.Errorf("pid %d: %s has no samples: %+v", p.PID, fn, f)
		}
	}
}

// VBENCH_PROCESSES selects processes by command line; the others run as if
// no profiler were there: no profile, not a byte on stderr.
func TestProcessesPattern(t *testing.T) {
	l := lib(t)
	args := []string{"spawn", "0", "loop:300", "recursion:12"}
	plain := testapp.Run(t, nil, args...)
	r := testapp.Profiled(t, l, modes.EngineTracing, []string{attach.EnvProcesses + "=VbTestApp\\.dll recursion"}, args...)
	// The processes' lines interleave in any order, and the pids differ.
	lines := func(s string) string {
		ls := strings.Split(regexp.MustCompile(`child \d+ `).ReplaceAllString(s, "child "), "\n")
		sort.Strings(ls)
		return strings.Join(ls, "\n")
	}
	if r.Code != 0 || r.Stderr != plain.Stderr || lines(r.Stdout) != lines(plain.Stdout) {
		t.Fatalf("exit %d, stderr %q, stdout %q\nunprofiled: stderr %q, stdout %q", r.Code, r.Stderr, r.Stdout, plain.Stderr, plain.Stdout)
	}
	tr := readTree(t, r)
	if len(tr.Processes) != 1 || len(tr.Missing) != 0 {
		t.Fatalf("%d profiles, missing %v; want only the recursion child's", len(tr.Processes), tr.Missing)
	}
	if p := tr.Processes[0]; p.PID != children(t, r.Stdout)["recursion:12"][0] || calls(p, "VbTest.Recursion.Fib") != 2*233-1 {
		t.Errorf("profile of pid %d (%q), Fib %d calls", p.PID, p.Command, calls(p, "VbTest.Recursion.Fib"))
	}
	// Matching nothing: nothing profiled, nothing written, nothing said.
	r = testapp.Profiled(t, l, modes.EngineTracing, []string{attach.EnvProcesses + "=^no such process$"}, args...)
	if entries, _ := os.ReadDir(r.Dir); r.Code != 0 || r.Stderr != "" || len(entries) != 0 {
		t.Errorf("matching nothing: exit %d, stderr %q, wrote %v", r.Code, r.Stderr, entries)
	}
}

// A child killed before it could write: the others' profiles are there,
// and the killed one is known from its started.json.
func TestKilledChildIsMissing(t *testing.T) {
	r := testapp.Profiled(t, lib(t), modes.EngineTracing, nil, "spawn", "0", "loop:300", "hang")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	kids := children(t, r.Stdout)
	if kids["hang"][1] != 137 {
		t.Fatalf("the hanging child was not killed: %v", kids)
	}
	tr := readTree(t, r)
	if len(tr.Processes) != 2 || len(tr.Missing) != 1 {
		t.Fatalf("%d profiles, missing %v; want 2 and the killed child", len(tr.Processes), tr.Missing)
	}
	m := tr.Missing[0]
	if m.PID != kids["hang"][0] || m.ParentPID != tr.Processes[0].PID || !strings.HasSuffix(m.CommandLine(), "VbTestApp.dll hang") || m.Mode != modes.EngineTracing {
		t.Errorf("missing %+v, want the hang child (pid %d)", m, kids["hang"][0])
	}
	if calls(byPID(t, tr, kids["loop:300"][0]), "VbTest.Loop.Step") != 300 {
		t.Errorf("the surviving child's profile is wrong")
	}
}
