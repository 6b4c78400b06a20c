package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	pprof "github.com/google/pprof/profile"

	"vbench/internal/profile"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
)

// treeDoc is the part of vbench profile's JSON these tests read.
type treeDoc struct {
	Mode      string
	ExitCode  int `json:"exit_code"`
	Functions []struct {
		Name             string
		Calls            int64
		InclusiveSamples int64 `json:"inclusive_samples"`
	}
	Processes []struct {
		PID       int
		ParentPID int `json:"parent_pid"`
		Command   []string
		Samples   int64
		Profile   string
		Functions []struct {
			Name             string
			Calls            int64
			InclusiveSamples int64 `json:"inclusive_samples"`
		}
	}
	Missing []struct {
		PID          int
		Command      []string
		StillRunning bool `json:"still_running"`
	}
}

func readDoc(t *testing.T, path string) treeDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d treeDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return d
}

// spawned maps a spawn run's child specs to their pids ("child PID SPEC exited N").
func spawned(t *testing.T, stdout string) map[string]int {
	t.Helper()
	m := map[string]int{}
	for _, g := range regexp.MustCompile(`(?m)^child (\d+) (\S+) exited -?\d+$`).FindAllStringSubmatch(stdout, -1) {
		m[g[2]], _ = strconv.Atoi(g[1])
	}
	return m
}

// sameOutput compares two runs' stdout line by line: the processes of a tree
// write in any interleaving, and the children's pids differ.
func sameOutput(a, b string) bool {
	norm := func(s string) string {
		ls := strings.Split(regexp.MustCompile(`(?m)^child \d+ `).ReplaceAllString(s, "child "), "\n")
		sort.Strings(ls)
		return strings.Join(ls, "\n")
	}
	return norm(a) == norm(b)
}

// A C# program that starts two .NET children (and a third that it kills
// before it can write), under vbench profile: the parent's exit code, its
// stdout untouched, every process's exact counts in the table, the JSON
// file and the merged pprof; the killed child named.
func TestProfileProcessTree(t *testing.T) {
	dll := testapp.DLL(t)
	args := []string{"spawn", "5", "loop:2000", "recursion:15", "hang"}
	plain := testapp.Run(t, nil, args...)
	dir := filepath.Join(t.TempDir(), "prof")
	js := filepath.Join(t.TempDir(), "top.json")
	stdout, stderr, code := runVbench(t, append([]string{"profile", "--mode", "tracing", "--out", dir, "--json", js, "--top", "50", "--", "dotnet", dll}, args...)...)
	if code != 5 {
		t.Fatalf("exit %d, want the parent's 5\n%s", code, stderr)
	}
	if !sameOutput(stdout, plain.Stdout) || strings.Contains(stdout, "{") {
		t.Fatalf("stdout is not the program's own:\n%s\nunprofiled:\n%s", stdout, plain.Stdout)
	}
	kids := spawned(t, stdout)
	loop, rec, hang := kids["loop:2000"], kids["recursion:15"], kids["hang"]

	d := readDoc(t, js)
	if d.ExitCode != 5 || d.Mode != "tracing" || len(d.Processes) != 3 {
		t.Fatalf("JSON: exit %d mode %s, %d processes", d.ExitCode, d.Mode, len(d.Processes))
	}
	parent := d.Processes[0].PID
	own := map[int]map[string]int64{}
	for _, p := range d.Processes {
		own[p.PID] = map[string]int64{}
		for _, f := range p.Functions {
			own[p.PID][f.Name] = f.Calls
		}
		if p.PID != parent && p.ParentPID != parent {
			t.Errorf("pid %d: parent %d, want %d", p.PID, p.ParentPID, parent)
		}
		if p.Profile != filepath.Join(dir, strconv.Itoa(p.PID), profile.JSONFile) {
			t.Errorf("pid %d: profile %s", p.PID, p.Profile)
		}
	}
	want := map[int]map[string]int64{
		parent: {"VbTest.Loop.Step": 500, "VbTest.Spawner.Run": 1},
		loop:   {"VbTest.Loop.Step": 2000},
		rec:    {"VbTest.Recursion.Fib": 1973},
	}
	for pid, fns := range want {
		for fn, n := range fns {
			if own[pid][fn] != n {
				t.Errorf("pid %d: %s %d calls, want %d (%v)", pid, fn, own[pid][fn], n, own[pid])
			}
		}
	}
	if own[loop]["VbTest.Recursion.Fib"] != 0 || own[rec]["VbTest.Loop.Step"] != 0 {
		t.Errorf("a child has the other's functions: %v", own)
	}
	merged := map[string]int64{}
	for _, f := range d.Functions {
		merged[f.Name] = f.Calls
	}
	if merged["VbTest.Loop.Step"] != 2500 || merged["VbTest.Recursion.Fib"] != 1973 {
		t.Errorf("merged functions: %v", merged)
	}
	if len(d.Missing) != 1 || d.Missing[0].PID != hang || d.Missing[0].StillRunning {
		t.Errorf("missing %+v, want the killed child %d", d.Missing, hang)
	}

	// The table: every process's rows, with a pid column.
	for _, row := range []string{
		`\s500\s+` + strconv.Itoa(parent) + `  VbTest\.Loop\.Step\n`,
		`\s2000\s+` + strconv.Itoa(loop) + `  VbTest\.Loop\.Step\n`,
		`\s1973\s+` + strconv.Itoa(rec) + `  VbTest\.Recursion\.Fib\n`,
		`incl%  calls +pid  function\n`,
		`total \S+ on 3 threads of 3 processes`,
		`vbench: pid ` + strconv.Itoa(hang) + ` \(\S+ \S+VbTestApp.dll hang\) started profiling and wrote no profile: it was killed`,
	} {
		if !regexp.MustCompile(row).MatchString(stderr) {
			t.Errorf("stderr lacks %s:\n%s", row, stderr)
		}
	}

	// The merged pprof file, read by pprof's own package: per pid label,
	// each process's own calls.
	pp := mergedPprof(t, dir)
	steps := map[int64]int64{}
	for _, s := range pp.Sample {
		if s.Location[0].Line[0].Function.Name == "VbTest.Loop.Step" {
			steps[s.NumLabel["pid"][0]] += s.Value[0]
		}
	}
	if steps[int64(parent)] != 500 || steps[int64(loop)] != 2000 || len(steps) != 2 {
		t.Errorf("Loop.Step calls by pid label: %v", steps)
	}
	// ... and go tool pprof splits it by pid, as docs/profiler.md says.
	top, err := exec.Command("go", "tool", "pprof", "-top", "-sample_index=calls", "-tagfocus", "pid="+strconv.Itoa(loop), filepath.Join(dir, profile.PprofFile)).CombinedOutput()
	if err != nil || !regexp.MustCompile(`(?m)^ +2000 .* VbTest\.Loop\.Step$`).Match(top) || strings.Contains(string(top), "Recursion") || strings.Contains(string(top), "Spawner") {
		t.Errorf("go tool pprof -tagfocus pid=%d: %v\n%s", loop, err, top)
	}

	// vbench report reads the directory: every process, the missing one named.
	text, rerr, rcode := runVbench(t, "report", dir, "--top", "50")
	if rcode != 0 {
		t.Fatalf("report: exit %d\n%s", rcode, rerr)
	}
	for _, w := range []string{
		dir + ": tracing profiles of 3 processes; 1 more started and wrote none\n",
		"=== process " + strconv.Itoa(loop) + " ===\n",
		"pid " + strconv.Itoa(hang) + " (parent " + strconv.Itoa(parent) + ") · started ",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("report lacks %q:\n%s", w, text)
		}
	}
	if !regexp.MustCompile(`\s2000\s+` + strconv.Itoa(loop) + `  VbTest\.Loop\.Step\n`).MatchString(text) {
		t.Errorf("report's top table lacks the loop child's row:\n%s", text)
	}
	one, _, rcode := runVbench(t, "report", dir, "--pid", strconv.Itoa(loop))
	if rcode != 0 || !strings.HasPrefix(one, filepath.Join(dir, strconv.Itoa(loop), profile.JSONFile)+": tracing profile of pid "+strconv.Itoa(loop)) ||
		strings.Contains(one, "Recursion") || strings.Contains(one, "=== process") {
		t.Errorf("report --pid %d: exit %d\n%s", loop, rcode, one)
	}
	_, rerr, rcode = runVbench(t, "report", dir, "--pid", strconv.Itoa(hang))
	if rcode != ExitUsage || !strings.Contains(rerr, "started and wrote no profile") {
		t.Errorf("report --pid of the killed child: exit %d %s", rcode, rerr)
	}
	svg := filepath.Join(t.TempDir(), "flame.svg")
	if _, rerr, rcode = runVbench(t, "report", dir, "-o", svg); rcode != 0 {
		t.Errorf("flame graph of the tree: exit %d %s", rcode, rerr)
	} else if b, _ := os.ReadFile(svg); !strings.Contains(string(b), "VbTest.Recursion.Run") || !strings.Contains(string(b), "VbTest.Spawner.Run") {
		t.Errorf("the merged flame graph lacks a child's functions")
	}

	// The same --out again: refused before anything runs, the first run's
	// profiles untouched.
	stdout, stderr, code = runVbench(t, "profile", "--mode", "tracing", "--out", dir, "--", "dotnet", dll, "exitcode", "7")
	if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "--out "+dir+" already holds profiles (") || !strings.Contains(stderr, "does not mix two runs' profiles") {
		t.Errorf("second run into the same --out: exit %d stdout %q stderr %s", code, stdout, stderr)
	}
	if tr, err := profile.ReadTree(dir); err != nil || len(tr.Processes) != 3 || len(tr.Missing) != 1 {
		t.Errorf("the first run's profiles after the refused run: %v", err)
	}
}

// Sampling a process tree: every process sampled; the JSON on stdout after
// the program's own output.
func TestProfileProcessTreeSampling(t *testing.T) {
	dll := testapp.DLL(t)
	stdout, stderr, code := runVbench(t, "profile", "--mode", "sampling", "--interval", "5ms", "--format", "json", "--top", "50", "--", "dotnet", dll, "spawn", "0", "cpu:300", "cpu:300")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	i := strings.Index(stdout, "{")
	var d treeDoc
	if i < 0 || json.Unmarshal([]byte(stdout[i:]), &d) != nil || len(d.Processes) != 3 {
		t.Fatalf("stdout:\n%s", stdout)
	}
	for j, p := range d.Processes {
		fn := "VbTest.Hot.Spin"
		if j == 0 {
			fn = "VbTest.Spawner.Run"
		}
		var samples int64
		for _, f := range p.Functions {
			if f.Name == fn {
				samples = f.InclusiveSamples
			}
		}
		if p.Samples <= 0 || samples <= 0 {
			t.Errorf("pid %d: %d ticks, %s %d samples", p.PID, p.Samples, fn, samples)
		}
	}
}

// --processes: only matching processes are profiled; the others run as
// they would unprofiled. A bad pattern is a usage error before anything
// runs; a pattern matching nothing is no profile (exit 3), said so.
func TestProfileProcessesFlag(t *testing.T) {
	dll := testapp.DLL(t)
	js := filepath.Join(t.TempDir(), "top.json")
	stdout, stderr, code := runVbench(t, "profile", "--mode", "tracing", "--processes", `VbTestApp\.dll loop`, "--json", js, "--", "dotnet", dll, "spawn", "4", "loop:700", "recursion:10")
	if code != 4 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	d := readDoc(t, js)
	if len(d.Processes) != 1 || d.Processes[0].PID != spawned(t, stdout)["loop:700"] || len(d.Missing) != 0 {
		t.Fatalf("processes %+v, want only the loop child", d.Processes)
	}
	if d.Functions[0].Name != "VbTest.Loop.Run" && d.Functions[0].Name != "VbTest.Program.Main" {
		t.Errorf("functions %+v", d.Functions)
	}
	if strings.Contains(stderr, "vbench-profiler") || strings.Contains(stderr, "pid  function") {
		t.Errorf("stderr: %s", stderr)
	}

	_, stderr, code = runVbench(t, "profile", "--processes", "a(b", "--", "dotnet", dll, "exitcode", "7")
	if code != ExitUsage || !strings.Contains(stderr, `--processes "a(b" is not a regular expression: missing closing )`) {
		t.Errorf("bad pattern: exit %d %s", code, stderr)
	}
	_, stderr, code = runVbench(t, "profile", "--processes", "^nothing$", "--", "dotnet", dll, "exitcode", "0")
	if code != ExitFailed || !strings.Contains(stderr, `(--processes "^nothing$" matched the command line of no process of `) {
		t.Errorf("nothing matched: exit %d %s", code, stderr)
	}
}

// A real `dotnet test` of a small xunit project (testdata/csharp/xunit):
// three .NET processes (the SDK's, vstest.console, the test host), the test
// method with its exact calls in the test host's profile. The table shows the
// test's own functions (runner frames folded, the test host first);
// --all-frames shows the runner's. With --processes testhost only the test
// host is profiled.
func TestProfileDotnetTest(t *testing.T) {
	t.Parallel() // exact calls only
	testbin.Dotnet(t)
	// Built (and restored) once, unprofiled, in place (Release, as every
	// test project here): a build's compiler server and MSBuild nodes
	// outlive it, and are no part of what this test profiles.
	testbin.Workload(t, "cmd/vbench/cli/testdata/csharp/xunit/XunitTree.csproj")
	proj := filepath.Join(testbin.RepoRoot(), "cmd/vbench/cli/testdata/csharp/xunit")
	testHost := func(t *testing.T, tr *profile.Tree) *profile.Profile {
		t.Helper()
		for _, p := range tr.Processes {
			if strings.Contains(strings.Join(p.Command, " "), "testhost.dll") {
				return p
			}
		}
		t.Fatalf("no test host among the profiled processes %v", tr.Processes)
		return nil
	}
	exact := func(t *testing.T, p *profile.Profile) {
		t.Helper()
		if f := p.Function("XunitTree.Tests.CountsSteps"); f == nil || f.Calls != 1 {
			t.Errorf("test host: CountsSteps %+v, want 1 call", f)
		}
		f := p.Function("XunitTree.Work.Step")
		if f == nil || f.Calls != 1000 || len(f.Callers) != 1 || f.Callers[0].Name != "XunitTree.Tests.CountsSteps" {
			t.Errorf("test host: Work.Step %+v, want 1000 calls from CountsSteps", f)
		}
	}

	prof := filepath.Join(t.TempDir(), "prof")
	stdout, stderr, code := runVbench(t, "profile", "--mode", "tracing", "--out", prof, "--", "dotnet", "test", proj, "--no-build", "-c", "Release")
	if code != 0 || !strings.Contains(stdout, "Passed!") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	tr, err := profile.ReadTree(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Processes) < 2 || len(tr.Missing) != 0 {
		t.Errorf("%d processes profiled, missing %v: want the SDK's and the test host at least", len(tr.Processes), tr.Missing)
	}
	exact(t, testHost(t, tr))
	// The default view: the test's own code, found in one look.
	host := strconv.Itoa(testHost(t, tr).PID)
	if !strings.Contains(stderr, "framework and test-runner frames") ||
		!regexp.MustCompile(`(?m)^ +\S+ +\S+ +\S+ +\S+ +1 +`+host+`  XunitTree.Tests.CountsSteps$`).MatchString(stderr) ||
		!regexp.MustCompile(`(?m) 1000 +`+host+`  XunitTree.Work.Step$`).MatchString(stderr) ||
		regexp.MustCompile(`(?m)  (Xunit|Newtonsoft|NuGet|System|Microsoft)\.`).MatchString(stderr) {
		t.Errorf("the table of dotnet test does not show the test's own functions alone:\n%s", stderr)
	}
	rep, _, code := runVbench(t, "report", prof, "--min-percent", "0")
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, rep)
	}
	first := regexp.MustCompile(`(?m)^=== process (\d+)`).FindStringSubmatch(rep)
	if first == nil || first[1] != host ||
		!regexp.MustCompile(`(?m)^[├└]─ XunitTree.Tests.CountsSteps  calls=1 .*\n[│ ]  └─ XunitTree.Work.Step  calls=1000 `).MatchString(rep) {
		t.Errorf("report: the test host (pid %s) is not first, or its tree does not start at the test:\n%s", host, rep)
	}
	all, _, _ := runVbench(t, "report", prof, "--all-frames")
	if !strings.Contains(all, "Xunit.") || strings.Contains(all, "framework and test-runner frames") {
		t.Errorf("report --all-frames folds the runner's frames:\n%s", all)
	}

	prof = filepath.Join(t.TempDir(), "prof")
	_, stderr, code = runVbench(t, "profile", "--mode", "tracing", "--processes", "testhost", "--out", prof, "--", "dotnet", "test", proj, "--no-build", "-c", "Release")
	if code != 0 {
		t.Fatalf("--processes testhost: exit %d\n%s", code, stderr)
	}
	if tr, err = profile.ReadTree(prof); err != nil || len(tr.Processes) != 1 {
		t.Fatalf("--processes testhost: %v, %d processes", err, len(tr.Processes))
	}
	exact(t, testHost(t, tr))
	if strings.Contains(stderr, "pid  function") || !strings.Contains(stderr, "profile of pid "+strconv.Itoa(tr.Processes[0].PID)) {
		t.Errorf("--processes testhost: stderr\n%s", stderr)
	}
}

// A child the program leaves running is named as still running, with where
// its profile will be; vbench does not wait for it (it holds the program's
// stderr).
func TestProfileChildStillRunning(t *testing.T) {
	dll := testapp.DLL(t)
	dir := filepath.Join(t.TempDir(), "prof")
	js := filepath.Join(t.TempDir(), "top.json")
	stdout, stderr, code := runVbench(t, "profile", "--mode", "tracing", "--out", dir, "--json", js, "--", "dotnet", dll, "spawn", "0", "orphan")
	m := regexp.MustCompile(`(?m)^child (\d+) orphan left running$`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	pid, _ := strconv.Atoi(m[1])
	defer syscall.Kill(pid, syscall.SIGKILL)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	d := readDoc(t, js)
	if len(d.Missing) != 1 || d.Missing[0].PID != pid || !d.Missing[0].StillRunning || len(d.Processes) != 1 {
		t.Errorf("JSON: processes %+v missing %+v", d.Processes, d.Missing)
	}
	want := regexp.MustCompile(`(?m)^vbench: pid ` + m[1] + ` \(\S+ ` + regexp.QuoteMeta(dll) + ` hang\) is still running: its profile will be in ` +
		regexp.QuoteMeta(filepath.Join(dir, m[1])) + ` when it exits$`)
	if !want.MatchString(stderr) {
		t.Errorf("stderr lacks %s:\n%s", want, stderr)
	}
}

// mergedPprof reads the merged pprof file vbench wrote into dir with
// google/pprof's own reader.
func mergedPprof(t *testing.T, dir string) *pprof.Profile {
	return testbin.ReadPprof(t, filepath.Join(dir, profile.PprofFile))
}
