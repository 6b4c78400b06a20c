package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vbench/internal/results"
	"vbench/internal/testbin"
)

// A regressed pair's explain names the line where time grew when its
// profiles have lines: TwoWork 160 40 against 40 40 under the sampler with
// lines: true, Work.Hot grows fourfold, and its line is one of Hot's own
// loop lines (found in the source, not written here), shown after its
// figures in the text table.
func TestExplainNamesLine(t *testing.T) {
	t.Parallel() // exact line executions
	if testing.Short() {
		t.Skip("runs a program's two builds under the sampler")
	}
	proj := "cmd/vbench/cli/testdata/csharp/twowork/TwoWork.csproj"
	dll := testbin.Workload(t, proj)
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.yaml")
	os.WriteFile(suite, []byte(`name: explain-lines
runs: 3
warmup: 0
modes:
  - name: sampled
    engine: sampling
    interval: 1ms
    lines: true
workloads:
  - name: new
    command: [dotnet, `+dll+`, "160", "40"]
    against: old
  - name: old
    command: [dotnet, `+dll+`, "40", "40"]
`), 0o644)
	out := filepath.Join(dir, "r.json")
	stdout, stderr, code := runVbench(t, "run", suite, "--no-baseline", "--max-runs", "3", "--json", out)
	if code != 0 && code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	c := f.Find("new", "sampled")
	if c == nil || c.Compare == nil || len(c.Compare.Explain) == 0 {
		t.Fatalf("no explain for the pair:\n%s", stdout)
	}
	t.Logf("explain: %+v", c.Compare.Explain)
	hot := c.Compare.Explain[0]
	if hot.Function != "Work.Hot" || !(hot.Change > 0) {
		t.Fatalf("first %+v, want Work.Hot grown", hot)
	}
	own := hotLoopLines(t, filepath.Join(testbin.RepoRoot(), filepath.Dir(proj), "Program.cs"))
	if !own[hot.Line] {
		t.Errorf("Work.Hot's line %q is not one of its loop's lines %v", hot.Line, own)
	}
	// The table shows the explain of a pair judged changed.
	if c.Verdict == results.VerdictRegressed && !strings.Contains(stdout, ") — "+hot.Line) {
		t.Errorf("the table's why line does not name %s:\n%s", hot.Line, stdout)
	}
}

// hotLoopLines are Work.Hot's two loop lines ("Program.cs:N"): its for and
// its body.
func hotLoopLines(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	in := false
	for i, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.Contains(l, "ulong Hot("):
			in = true
		case in && (strings.HasPrefix(l, "for (") || strings.HasPrefix(l, "x = x *")):
			out["Program.cs:"+strconv.Itoa(i+1)] = true
		case in && strings.HasPrefix(l, "return"):
			in = false
		}
	}
	if len(out) != 2 {
		t.Fatalf("Work.Hot's loop lines in %s: %v", path, out)
	}
	return out
}
