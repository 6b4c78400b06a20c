package cli_test

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"vbench/internal/atomicfile"

	"vbench/internal/results"
	"vbench/internal/testbin"
)

// writeFile and exitCode: the command tests' helpers (internal/testbin,
// shared with valgrindtest).
func writeFile(t *testing.T, path, content string) { t.Helper(); testbin.WriteFile(t, path, content) }

func exitCode(t *testing.T, err error) int { t.Helper(); return testbin.ExitCode(t, err) }

// Ctrl-C mid-suite: the running workload and its child are killed, the
// results so far are saved marked partial (results, JUnit, job summary), no
// temp file is left, exit 130.
func TestInterruptSavesPartialResults(t *testing.T) {
	vb, fw := testbin.Vbench(t), testbin.Fakework(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: interrupt
runs: 3
warmup: 0
modes: [none]
baseline: none.json
timeout: 10m
workloads:
  - name: good
    command: [`+fw+`]
  - name: stuck
    command: [`+fw+`, -counter, count.txt, -hang-at, "2", -pidfile, pids.txt]
`)
	out := filepath.Join(dir, "out", "r.json")
	os.MkdirAll(filepath.Dir(out), 0o755)
	junit, summary := filepath.Join(dir, "out", "junit.xml"), filepath.Join(dir, "summary.md")
	cmd := exec.Command(vb, "run", "suite.yaml", "--json", out, "--junit", junit, "--quiet")
	cmd.Dir = dir
	cmd.Env = ciEnv("GITHUB_STEP_SUMMARY=" + summary)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pidfile := filepath.Join(dir, "pids.txt")
	waitForPids(t, pidfile, cmd)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, cmd.Wait()); code != 130 {
		t.Errorf("exit %d, want 130; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted; partial results saved to") {
		t.Errorf("stderr does not say the results were saved:\n%s", stderr.String())
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Partial {
		t.Errorf("results not marked partial")
	}
	good, stuck := f.Find("good", "none"), f.Find("stuck", "none")
	if good == nil || stuck == nil || len(good.Samples) < 1 || len(stuck.Samples) != 1 || stuck.Failed() {
		t.Errorf("want the runs before the interrupt (good >= 1, stuck 1 successful, the interrupted one dropped): %+v %+v", good, stuck)
	}
	assertPidsGone(t, pidfile)
	j := readJUnit(t, junit)
	partial := false
	for _, p := range j.Suites[0].Properties {
		partial = partial || p.Name == "partial" && p.Value == "true"
	}
	if cases := j.failures(); !partial || len(cases) != 2 {
		t.Errorf("JUnit of the interrupted run: partial=%v, cases %v; want partial, good/none and stuck/none", partial, cases)
	}
	if b, err := os.ReadFile(summary); err != nil || !strings.Contains(string(b), "partial run") {
		t.Errorf("job summary of the interrupted run: %v\n%s", err, b)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	for _, e := range entries {
		if e.Name() != "r.json" && e.Name() != "junit.xml" {
			t.Errorf("left behind in the output directory: %s", e.Name())
		}
	}
}

// Two baseline updates never interleave: the second waits for the first's
// lock and writes only after it is released.
func TestBaselineUpdateWaitsForLock(t *testing.T) {
	vb, fw := testbin.Vbench(t), testbin.Fakework(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "bench", "suite.yaml"), `name: locked
runs: 2
warmup: 0
modes: [none]
workloads:
  - name: a
    command: [`+fw+`]
`)
	run := exec.Command(vb, "run", "bench/suite.yaml", "--json", "r.json", "--quiet")
	run.Dir = dir
	run.Env = ciEnv()
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	basePath := filepath.Join(dir, "bench", "baselines", "locked.json")
	unlock, err := atomicfile.LockDir(basePath, nil) // what a concurrent update holds
	if err != nil {
		t.Fatal(err)
	}
	upd := exec.Command(vb, "baseline", "update", "bench/suite.yaml", "--from", "r.json")
	upd.Dir = dir
	pr, err := upd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := upd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(pr)
	waiting := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), "waiting for another baseline update") {
			waiting = true
			break
		}
	}
	if !waiting {
		unlock()
		upd.Wait()
		t.Fatalf("baseline update did not wait for the lock")
	}
	if _, err := os.Stat(basePath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("baseline written while another update held the lock")
	}
	unlock()
	rest, _ := io.ReadAll(pr)
	if code := exitCode(t, upd.Wait()); code != 0 {
		t.Fatalf("exit %d: %s", code, rest)
	}
	if f, err := results.ReadFile(basePath); err != nil || f.Suite.Name != "locked" {
		t.Fatalf("baseline after the lock was released: %v", err)
	}
}

// tinyProject copies testdata/csharp/tiny into a fresh directory's tiny/,
// unbuilt, and returns the directory.
func tinyProject(t *testing.T) string {
	dir := t.TempDir()
	for _, name := range []string{"Tiny.csproj", "Program.cs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "csharp", "tiny", name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "tiny", name), string(b))
	}
	return dir
}

// A real C# project: the harness builds it in Release, runs it with dotnet,
// and parses its VBENCH line.
func TestCSharpProject(t *testing.T) {
	t.Parallel() // asserts what was recorded, not how fast
	vb := testbin.Vbench(t)
	testbin.Dotnet(t)
	dir := tinyProject(t)
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: csharp
runs: 3
warmup: 1
modes: [none]
baseline: none.json
workloads:
  - name: tiny
    project: tiny/Tiny.csproj
    args: ["100000"]
    checksum: "5000050000"
`)
	cmd := exec.Command(vb, "run", "suite.yaml", "--json", "r.json")
	cmd.Dir = dir
	cmd.Env = ciEnv()
	out, err := cmd.CombinedOutput()
	if code := exitCode(t, err); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	f, err := results.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Find("tiny", "none")
	if c == nil || c.Runs != 3 || c.MedianNs <= 0 || c.Samples[1].Checksum != "5000050000" || c.Samples[1].MaxRSS <= 0 {
		t.Fatalf("cell: %+v\n%s", c, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "tiny", "bin", "Release")); err != nil {
		t.Errorf("no Release build: %v", err)
	}
	// Every run is dotnet running the built assembly; its wall time includes
	// runtime startup, which the workload's own elapsed time excludes.
	if c.WallMedianNs <= c.MedianNs {
		t.Errorf("wall %v <= elapsed %v", c.WallMedianNs, c.MedianNs)
	}
}

// A project that does not compile fails its cells (exit 3) with the
// compiler's message; other workloads still run.
func TestCSharpBuildFailure(t *testing.T) {
	t.Parallel() // a build error, no time
	vb, fw := testbin.Vbench(t), testbin.Fakework(t)
	testbin.Dotnet(t)
	dir := t.TempDir()
	b, _ := os.ReadFile(filepath.Join("testdata", "csharp", "tiny", "Tiny.csproj"))
	writeFile(t, filepath.Join(dir, "broken", "Broken.csproj"), string(b))
	writeFile(t, filepath.Join(dir, "broken", "Program.cs"), "this is not C#\n")
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: broken
runs: 2
warmup: 0
modes: [none]
baseline: none.json
workloads:
  - name: broken
    project: broken
  - name: fine
    command: [`+fw+`]
`)
	cmd := exec.Command(vb, "run", "suite.yaml", "--quiet")
	cmd.Dir = dir
	cmd.Env = ciEnv()
	out, err := cmd.CombinedOutput()
	if code := exitCode(t, err); code != 3 {
		t.Fatalf("exit %d, want 3:\n%s", code, out)
	}
	s := string(out)
	// The compiler's error right after "failed", once; no blank line, no
	// path of the .dll that was not built.
	if !regexp.MustCompile(`FAILED broken/none: build failed: dotnet build \S+ failed \(exit status 1\):\n\S+Program\.cs\(1,\d+\): error CS\d+: `).MatchString(s) ||
		strings.Contains(s, "Broken.dll") || regexp.MustCompile(`\n\n\S+Program\.cs`).MatchString(s) {
		t.Errorf("no build failure with the compiler's error right after it:\n%s", s)
	}
	if !strings.Contains(s, "fine ") || !strings.Contains(s, "1 failed, 1 new") {
		t.Errorf("the other workload was not measured:\n%s", s)
	}
}

// Every command documents itself with an example; the root lists exit codes.
func TestHelp(t *testing.T) {
	vb := testbin.Vbench(t)
	out, err := exec.Command(vb, "--help").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Exit codes:", "0  no regression", "1  a cell regressed", "2  usage or configuration error", "3  a workload failed"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("vbench --help lacks %q", want)
		}
	}
	for _, c := range [][]string{{"run"}, {"compare"}, {"merge"}, {"list"}, {"baseline", "update"}} {
		out, err := exec.Command(vb, append(c, "--help")...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Examples:") || !strings.Contains(string(out), "vbench "+strings.Join(c, " ")) {
			t.Errorf("vbench %s --help: %v\n%s", strings.Join(c, " "), err, out)
		}
	}
	// Where the default baseline lives: in the suite's own folder.
	for _, c := range [][]string{{"run"}, {"baseline", "update"}} {
		out, _ := exec.Command(vb, append(c, "--help")...).CombinedOutput()
		for _, want := range []string{"baselines/<suite name>.json in the suite's folder", "benchmarks/baselines/default.json"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("vbench %s --help does not say where the default baseline is (%q):\n%s", strings.Join(c, " "), want, out)
			}
		}
	}
}

// Ctrl-C while a workload's project builds: the build the interrupt killed
// fails no cell. Every cell is `not run` (it used to be `failed: build
// failed … signal: killed`), the exit is 130, the results are saved.
func TestInterruptDuringBuild(t *testing.T) {
	vb := testbin.Vbench(t)
	testbin.Dotnet(t)
	dir := tinyProject(t)
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: csharp
runs: 3
warmup: 0
modes: [none]
baseline: none.json
workloads:
  - name: tiny
    project: tiny/Tiny.csproj
    args: ["100000"]
`)
	cmd := exec.Command(vb, "run", "suite.yaml", "--json", "r.json")
	cmd.Dir = dir
	cmd.Env = ciEnv()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var said strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		said.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "building ") {
			time.Sleep(300 * time.Millisecond) // dotnet build under way
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	rest, _ := io.ReadAll(stderr)
	said.Write(rest)
	if code := exitCode(t, cmd.Wait()); code != 130 {
		t.Fatalf("exit %d, want 130\n%s", code, said.String())
	}
	f, err := results.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Find("tiny", "none")
	if !f.Partial || c == nil || c.Verdict != results.VerdictNotRun || c.Failure != "" || strings.Contains(said.String(), "build failed") {
		t.Errorf("partial %v, cell %+v\nstderr:\n%s", f.Partial, c, said.String())
	}
}

// Each command's help lists the exit codes it can return and no other:
// list judges nothing and is never interrupted mid-run, compare and merge
// run nothing (no 130, and no --json to save partial results to), baseline
// update judges no regression. They all used to copy run's list.
func TestHelpListsOnlyItsExitCodes(t *testing.T) {
	vb := testbin.Vbench(t)
	codes := map[string]string{"0": "0  ", "1": "1  a cell regressed", "2": "2  ", "3": "3  a workload failed", "130": "130 interrupted"}
	for cmd, want := range map[string][]string{
		"run":             {"0", "1", "2", "3", "130"},
		"compare":         {"0", "1", "2", "3"},
		"merge":           {"0", "1", "2", "3"},
		"baseline update": {"0", "2", "3", "130"},
		"list":            {"0", "2"},
	} {
		out, err := exec.Command(vb, append(strings.Fields(cmd), "--help")...).CombinedOutput()
		if err != nil {
			t.Fatalf("vbench %s --help: %v\n%s", cmd, err, out)
		}
		_, block, ok := strings.Cut(string(out), "Exit codes:\n")
		if !ok {
			t.Errorf("vbench %s --help has no exit codes", cmd)
			continue
		}
		block, _, _ = strings.Cut(block, "\n\n")
		for code, line := range codes {
			if has := strings.Contains(block, "\n  "+line) || strings.HasPrefix(block, "  "+line); has != slices.Contains(want, code) {
				t.Errorf("vbench %s --help: exit code %s listed %v, want %v:\n%s", cmd, code, has, !has, block)
			}
		}
	}
}
