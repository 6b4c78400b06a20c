package cli

import (
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
