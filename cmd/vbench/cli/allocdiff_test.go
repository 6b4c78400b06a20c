package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"vbench/internal/testapp"
	"vbench/reports/profileview"
)

// vbench diff of two real allocation profiles of the test program's alloc
// scenario at n=1000 and n=3000: the type whose bytes grew most is
// VbTest.AllocNode (10n objects of 40 bytes in VbTest.Allocs.Nodes), named
// in the headline with the path it grew on; the JSON's path row counts
// exactly the 20000 objects more; an allocation
// profile against a call profile is a usage error.
func TestDiffAllocationProfiles(t *testing.T) {
	t.Parallel() // exact allocation counts
	dll := testapp.DLL(t)
	dir := t.TempDir()
	prof := func(name, mode string, args ...string) string {
		out := filepath.Join(dir, name)
		if _, stderr, code := runVbench(t, append([]string{"profile", "--mode", mode, "--out", out, "--", "dotnet", dll}, args...)...); code != 0 {
			t.Fatalf("profile %s: exit %d\n%s", name, code, stderr)
		}
		return out
	}
	old, new := prof("old", "allocations", "alloc", "1000"), prof("new", "allocations", "alloc", "3000")
	text, stderr, code := runVbench(t, "diff", old, new)
	if code != 0 {
		t.Fatalf("diff: exit %d\n%s", code, stderr)
	}
	head := regexp.MustCompile(`This change allocates \S+ more VbTest\.AllocNode a run \(10000 → 30000 objects\), \+\S+ from VbTest\.Allocs\.Nodes ← VbTest\.Allocs\.Run ← VbTest\.Program\.Main`).FindStringSubmatch(text)
	if head == nil || !strings.Contains(text, "types by change in bytes allocated a run") {
		t.Fatalf("diff text:\n%s", text)
	}
	js, stderr, code := runVbench(t, "diff", old, new, "--format", "json")
	if code != 0 {
		t.Fatalf("diff --format json: exit %d\n%s", code, stderr)
	}
	var d profileview.AllocDiffJSON
	if err := json.Unmarshal([]byte(js), &d); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	nodes := d.Paths["VbTest.AllocNode"]
	if len(d.Types) == 0 || d.Types[0].Type != "VbTest.AllocNode" || len(nodes) == 0 || nodes[0].Path[0] != "VbTest.Allocs.Nodes" ||
		nodes[0].NewCount-nodes[0].OldCount != 20000 || nodes[0].NewBytes-nodes[0].OldBytes != 20000*nodes[0].OldBytes/nodes[0].OldCount {
		t.Errorf("diff json: types %v, AllocNode paths %v", d.Types[:min(3, len(d.Types))], nodes)
	}
	if !strings.HasPrefix(d.Headline, "This change allocates ") || d.NewBytes <= d.OldBytes {
		t.Errorf("diff json: headline %q, bytes %g → %g", d.Headline, d.OldBytes, d.NewBytes)
	}

	calls := prof("calls", "tracing", "fib", "20")
	if _, stderr, code := runVbench(t, "diff", calls, new); code != ExitUsage || !strings.Contains(stderr, "OLD records no allocations") {
		t.Errorf("diff of a tracing and an allocation profile: exit %d, %s", code, stderr)
	}
}
