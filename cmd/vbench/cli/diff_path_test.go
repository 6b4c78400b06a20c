package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vbench/internal/testbin"
	"vbench/reports/profileview"
)

// vbench diff --by path (issue 39): the three-stage program's two builds
// profiled by the tracer. By path, Mix under Render is a row of its own
// with its exact calls per run (24,000 chunks before, 31,200 after) while
// Mix under Parse keeps its 24,000; by function, Mix's calls are the sum
// over its callers (72,000 → 79,200). The text shows both calls columns.
func TestDiffByPathCarriesCalls(t *testing.T) {
	t.Parallel() // exact call counts
	if testing.Short() {
		t.Skip("profiles two runs of a program")
	}
	dll := testbin.Workload(t, "cmd/vbench/cli/testdata/csharp/pipeline/Pipeline.csproj")
	dir := t.TempDir()
	old, new := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	for _, p := range []struct{ out, render string }{{old, "100"}, {new, "130"}} {
		if stdout, stderr, code := runVbench(t, "profile", "--mode", "tracing", "--out", p.out, "--", "dotnet", dll, p.render); code != 0 {
			t.Fatalf("profile exit %d\n%s\n%s", code, stdout, stderr)
		}
	}
	rows := func(args ...string) []profileview.DiffFunction {
		t.Helper()
		js, stderr, code := runVbench(t, append([]string{"diff", old, new, "--format", "json", "--top", "50"}, args...)...)
		if code != 0 {
			t.Fatalf("diff %v: exit %d\n%s", args, code, stderr)
		}
		var d profileview.DiffJSON
		if err := json.Unmarshal([]byte(js), &d); err != nil {
			t.Fatal(err)
		}
		return d.Functions
	}
	calls := func(f profileview.DiffFunction) (float64, float64) {
		if f.OldCalls == nil || f.NewCalls == nil {
			t.Fatalf("%s %v: no calls", f.Function, f.Path)
		}
		return *f.OldCalls, *f.NewCalls
	}
	found := map[string]bool{}
	for _, f := range rows("--by", "path") {
		if f.Function != "Pipeline.Mix" || len(f.Path) < 2 {
			continue
		}
		caller := f.Path[len(f.Path)-2]
		o, n := calls(f)
		want := map[string][2]float64{"Pipeline.Render": {24000, 31200}, "Pipeline.Parse": {24000, 24000}, "Pipeline.Hash": {24000, 24000}}[caller]
		if o != want[0] || n != want[1] {
			t.Errorf("path %v: calls %v → %v, want %v", f.Path, o, n, want)
		}
		found[caller] = true
	}
	if !found["Pipeline.Render"] || !found["Pipeline.Parse"] {
		t.Errorf("by path: Mix's rows under Render and Parse missing: %v", found)
	}
	i := slices.IndexFunc(rows(), func(f profileview.DiffFunction) bool { return f.Function == "Pipeline.Mix" })
	if i < 0 {
		t.Fatal("by function: no Pipeline.Mix row")
	}
	if o, n := calls(rows()[i]); o != 72000 || n != 79200 || rows()[i].Path != nil {
		t.Errorf("by function: Mix calls %v → %v (path %v), want 72000 → 79200, no path", o, n, rows()[i].Path)
	}
	text, _, _ := runVbench(t, "diff", old, new, "--by", "path", "--top", "50")
	if !strings.Contains(text, "Pipeline.Render → Pipeline.Mix") || !strings.Contains(text, "calls/run old") {
		t.Errorf("text by path lacks the Render → Mix row or the calls columns:\n%s", text)
	}
	if _, stderr, code := runVbench(t, "diff", old, new, "--by", "caller"); code != 2 || !strings.Contains(stderr, "--by \"caller\"") {
		t.Errorf("--by caller: exit %d, %s", code, stderr)
	}
}
