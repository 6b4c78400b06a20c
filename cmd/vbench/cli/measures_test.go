package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/results"
	"vbench/internal/testbin"
)

// A mode whose only difference is a larger GC gen-0 budget holds about
// 100 MB more on an allocating program: judged against the same program
// without it, its rss is regressed and the run exits 1 though nothing
// was slower; the same mode against an unchanged twin is judged same.
func TestRSSRegressionFailsTheRun(t *testing.T) {
	t.Parallel() // memory, not time
	testbin.Dotnet(t)
	dll := testbin.Workload(t, "benchmarks/binarytrees/BinaryTrees.csproj")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: rss-ab
runs: 12
warmup: 1
metric: wall
baseline: none.json
modes:
  - none
  - name: gen0-big
    env: {DOTNET_GCgen0size: "0x10000000"}
    against: none
  - name: twin
    env: {VBENCH_TEST_TWIN: "1"}
    against: none
workloads:
  - name: trees
    command: [dotnet, `+dll+`, --depth, "16"]
`)
	os.MkdirAll(filepath.Join(dir, "out"), 0o755)
	_, stderr, code := vbRun(t, dir, ciEnv(), "run", "suite.yaml", "--quiet", "--json", "out/r.json")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (an RSS regression):\n%s", code, stderr)
	}
	f, err := results.ReadFile(filepath.Join(dir, "out", "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	big, twin := f.Find("trees", "gen0-big"), f.Find("trees", "twin")
	rss := big.Metrics[results.MeasureRSS]
	if big.Verdict != results.VerdictRegressed || rss == nil || rss.Verdict != results.VerdictRegressed {
		t.Fatalf("gen0-big: verdict %q, rss %+v; want both regressed", big.Verdict, rss)
	}
	// The measures that regressed lead the reason; a larger gen-0 budget
	// may lengthen the GC's pauses too (gc_pause then comes first).
	if lead, _, _ := strings.Cut(big.Compare.Reason, "wall vs none"); !strings.HasPrefix(lead, "regressed: ") || !strings.Contains(lead, "regressed: rss +") {
		t.Errorf("the reason does not lead with the measures that regressed, rss among them: %q", big.Compare.Reason)
	}
	if d := rss.Compare.Ratio; d < 1.2 {
		t.Errorf("rss ratio %.2f: the gen-0 budget should hold far more memory", d)
	}
	if trss := twin.Metrics[results.MeasureRSS]; twin.Verdict == results.VerdictRegressed || trss == nil || trss.Verdict == results.VerdictRegressed {
		t.Errorf("twin: verdict %q, rss %+v; an unchanged mode must not regress", twin.Verdict, trss)
	}
	if !strings.Contains(stderr+readFileString(t, filepath.Join(dir, "out", "r.json")), "rss") {
		t.Errorf("nothing names rss")
	}
}

func readFileString(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A pair whose new side allocates twice the notes (benchmarks/allocs with
// --notes doubled), both under the exact allocations engine: its
// alloc_bytes regresses, and its explain names what it allocates more of
// and where: the Note type, on the path root → … → Audit.Record.
func TestAllocBytesRegressionExplainsItself(t *testing.T) {
	t.Parallel() // exact allocation counts
	testbin.Dotnet(t)
	testbin.ProfilerLib(t) // next to vbench: the default library of engine modes
	dll := testbin.Workload(t, "benchmarks/allocs/Allocs.csproj")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: alloc-ab
runs: 12
warmup: 1
baseline: none.json
modes:
  - {name: allocations, engine: allocations}
workloads:
  - name: base
    command: [dotnet, `+dll+`, --orders, "20000", --reissues, "5000", --notes, "100000"]
  - name: more
    command: [dotnet, `+dll+`, --orders, "20000", --reissues, "5000", --notes, "200000"]
    against: base
`)
	os.MkdirAll(filepath.Join(dir, "out"), 0o755)
	stdout, stderr, code := vbRun(t, dir, ciEnv(), "run", "suite.yaml", "--json", "out/r.json")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (more allocates more):\n%s\n%s", code, stdout, stderr)
	}
	f, err := results.ReadFile(filepath.Join(dir, "out", "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Find("more", "allocations")
	ab := c.Metrics[results.MeasureAllocBytes]
	if ab == nil || ab.Verdict != results.VerdictRegressed {
		t.Fatalf("alloc_bytes %+v: want regressed", ab)
	}
	if c.Compare == nil || c.Compare.ExplainUnit != results.ExplainAllocatedPerRun || len(c.Compare.Explain) == 0 {
		t.Fatalf("no allocation explain: %+v", c.Compare)
	}
	first := c.Compare.Explain[0]
	// 100000 more Notes of 24 bytes a run.
	if first.Function != "Vbench.Allocs.Note" || first.Change < 2.3e6 || first.Change > 2.5e6 {
		t.Errorf("first explain entry %+v: want Vbench.Allocs.Note, +2.4 MB a run", first)
	}
	if n := len(first.Path); n < 3 || first.Path[n-1] != "Vbench.Allocs.Note" || !strings.HasSuffix(first.Path[n-2], "Audit.Record") {
		t.Errorf("path %v: want root → … → Audit.Record → Vbench.Allocs.Note", first.Path)
	}
	if !strings.Contains(stdout, "why more/allocations:") || !strings.Contains(stdout, "Vbench.Allocs.Note +2.") {
		t.Errorf("the run's table does not say why:\n%s", stdout)
	}
}
