package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/results"
	"vbench/internal/testbin"
)

// A workload's declared line shares (lineshare.Program.cs:N=F on its
// VBENCH line) are checked under a sampling mode with lines: true, as
// share.* are: profiler/testdata/lines splits Work.Split's work 3:1 between
// two lines and says which.
func TestLineSharesChecked(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a program under the sampler")
	}
	dll := testbin.Workload(t, "profiler/testdata/lines/Lines.csproj")
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.yaml")
	os.WriteFile(suite, []byte(`name: lines
runs: 2
warmup: 0
modes:
  - name: sampled
    engine: sampling
    interval: 1ms
    lines: true
workloads:
  - name: split
    command: [dotnet, `+dll+`, "1000"]
`), 0o644)
	out := filepath.Join(dir, "r.json")
	stdout, stderr, code := runVbench(t, "run", suite, "--no-baseline", "--json", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	c := f.Find("split", "sampled")
	if c == nil {
		t.Fatalf("no cell:\n%s", stdout)
	}
	t.Logf("checks: %+v", c.Shares)
	n := 0
	for _, s := range c.Shares {
		if strings.HasPrefix(s.Function, "Program.cs:") {
			n++
			if !s.Pass || s.Samples < 100 {
				t.Errorf("line share %+v: want a pass on at least 100 samples", s)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d line share checks, want 2: %+v", n, c.Shares)
	}
}

// A workload's declared exact line counts (line.Program.cs:N=C on its
// VBENCH line) are checked under instrumentation with lines: true, as
// calls.* are: profiler/testdata/lines runs its HALF line (n+1)/2 times and
// says so, and a run told to declare one fewer fails its cell naming the
// line and both counts.
func TestLineCountsChecked(t *testing.T) {
	t.Parallel() // exact line executions
	if testing.Short() {
		t.Skip("runs a program under instrumentation")
	}
	dll := testbin.Workload(t, "profiler/testdata/lines/Lines.csproj")
	dir := t.TempDir()
	const n = 1001
	suite := filepath.Join(dir, "suite.yaml")
	os.WriteFile(suite, []byte(fmt.Sprintf(`name: linecounts
runs: 2
warmup: 0
modes:
  - name: counted
    engine: instrumentation
    lines: true
workloads:
  - name: right
    command: [dotnet, %[1]s, "20", "%[2]d"]
  - name: wrong
    command: [dotnet, %[1]s, "20", "%[2]d", "%[3]d"]
`, dll, n, (n+1)/2-1)), 0o644)
	out := filepath.Join(dir, "r.json")
	stdout, stderr, code := runVbench(t, "run", suite, "--no-baseline", "--json", out)
	if code == 0 {
		t.Fatalf("exit 0 with a wrong line count declared\n%s\n%s", stdout, stderr)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, stdout, stderr)
	}
	right, wrong := f.Find("right", "counted"), f.Find("wrong", "counted")
	if right == nil || wrong == nil {
		t.Fatalf("cells missing:\n%s", stdout)
	}
	if a := right.Accuracy; right.Failed() || a == nil || a.Checked != 2 || a.Exact != 2 {
		t.Errorf("right: failure %q, accuracy %+v: want 2/2 exact (one line, two runs)", right.Failure, a)
	}
	half := linesSource(t, "HALF")
	want := fmt.Sprintf("line Program.cs:%d: expected %d executions, profile says %d", half, (n+1)/2-1, (n+1)/2)
	if !wrong.Failed() || !strings.Contains(wrong.Failure, want) {
		t.Errorf("wrong: failure %q, want it to say %q", wrong.Failure, want)
	}
}
