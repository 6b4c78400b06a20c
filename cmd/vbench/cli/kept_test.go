package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/speedscope"
	"vbench/internal/testbin"
	"vbench/internal/timeline"
)

// A suite mode with timeline: true (the suite setting) keeps each cell's
// timeline and a speedscope file beside its profiles, and the HTML report
// links them, relative to the page.
func TestSuiteTimelineKeptAndLinked(t *testing.T) {
	testbin.Dotnet(t)
	testbin.ProfilerLib(t)
	dir := t.TempDir()
	project := filepath.Join(testbin.RepoRoot(), "cmd/vbench/cli/testdata/csharp/waitgc/WaitGc.csproj")
	testbin.Workload(t, project)
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: kept
runs: 2
warmup: 0
metric: wall
baseline: none.json
modes:
  - none
  - name: tl
    engine: tracing
    timeline: true
    timeline_min: 1ms
workloads:
  - name: waitgc
    project: `+project+`
`)
	os.MkdirAll(filepath.Join(dir, "out"), 0o755)
	if stdout, stderr, code := vbRun(t, dir, ciEnv(), "run", "suite.yaml", "--quiet", "--json", "out/r.json"); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	kept := filepath.Join(dir, "out", "r.profiles", "waitgc", "tl")
	tls, _ := filepath.Glob(filepath.Join(kept, "*", timeline.File))
	if len(tls) != 1 {
		t.Fatalf("kept timelines %v", tls)
	}
	f, err := os.Open(filepath.Join(kept, speedscope.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := speedscope.Read(f); err != nil {
		t.Fatal(err)
	}
	if stdout, stderr, code := vbRun(t, dir, ciEnv(), "report", "out/r.json", "-o", "out/report.html"); code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "out", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(kept, tls[0])
	for _, href := range []string{"r.profiles/waitgc/tl/" + speedscope.FileName, "r.profiles/waitgc/tl/" + rel, "r.profiles/waitgc/tl/profile.pb.gz"} {
		if !strings.Contains(string(page), `href="`+href+`"`) {
			t.Errorf("the report does not link %s", href)
		}
	}
}
