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
	if !strings.HasPrefix(big.Compare.Reason, "regressed: rss +") {
		t.Errorf("the reason does not lead with the measure: %q", big.Compare.Reason)
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
