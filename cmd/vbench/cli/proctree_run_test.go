package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
)

// vbench run with a command workload that is a process tree: the tracing
// cell's call counts are checked over all of its processes (the parent's
// VBENCH line counts the whole tree's), sampling coverage is computed, the
// kept profiles hold every process. A tree whose child is killed before it
// writes fails its profiled cells, naming the child.
func TestRunProcessTreeWorkload(t *testing.T) {
	t.Parallel() // exact call counts
	testbin.ProfilerLib(t)
	dll, dotnet := testapp.DLL(t), testbin.Dotnet(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: tree
runs: 2
warmup: 0
modes: [none, tracing, sampling]
baseline: none.json
workloads:
  - name: tree
    command: [`+dotnet+`, `+dll+`, spawnbench, "0", "loop:2000", "recursion:12", "cpu:200"]
  - name: killed
    command: [`+dotnet+`, `+dll+`, spawnbench, "0", "loop:10", hang]
`)
	os.Mkdir(filepath.Join(dir, "out"), 0o755)
	stdout, stderr, code := vbRun(t, dir, ciEnv(), "run", "suite.yaml", "--quiet", "--json", "out/r.json")
	if code != 3 {
		t.Fatalf("exit %d, want 3 (the killed tree)\n%s\n%s", code, stdout, stderr)
	}
	f, err := results.ReadFile(filepath.Join(dir, "out", "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	tr := f.Find("tree", modes.Tracing)
	if tr == nil || tr.Failed() || tr.Accuracy == nil || tr.Accuracy.Checked != 4 || tr.Accuracy.Exact != 4 {
		t.Fatalf("tree/tracing: %+v", tr)
	}
	if s := f.Find("tree", modes.Sampling); s == nil || s.Failed() || s.Coverage == nil || s.Coverage.Of == 0 {
		t.Errorf("tree/sampling: %+v", s)
	}
	kept, err := profile.ReadTree(filepath.Join(dir, "out", "r.profiles", "tree", "tracing"))
	if err != nil || len(kept.Processes) != 4 {
		t.Fatalf("kept profiles: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "r.profiles", "tree", "tracing", profile.PprofFile)); err != nil {
		t.Errorf("no merged pprof next to the kept profiles: %v", err)
	}
	for _, m := range []modes.Mode{modes.Tracing, modes.Sampling} {
		c := f.Find("killed", m)
		if c == nil || !c.Failed() || !strings.Contains(c.Failure, "1 of the workload's processes started profiling and wrote no profile (pid ") ||
			!strings.Contains(c.Failure, "VbTestApp.dll hang)") {
			t.Errorf("killed/%s: %+v", m, c)
		}
	}
	if c := f.Find("killed", modes.None); c == nil || c.Failed() {
		t.Errorf("killed/none (nothing profiled, nothing missing): %+v", c)
	}
}
