package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/profile"
	"vbench/internal/testbin"
)

// splitLines is the samples of Work.Split's leaf locations in the merged
// pprof file of dir, by source line (0: a location with no line).
func splitLines(t *testing.T, dir string) map[int64]int64 {
	t.Helper()
	pp := mergedPprof(t, dir)
	byLine := map[int64]int64{}
	for _, s := range pp.Sample {
		if len(s.Location) == 0 || len(s.Location[0].Line) == 0 {
			continue
		}
		l := s.Location[0].Line[0]
		if strings.HasSuffix(l.Function.Name, "Work.Split") {
			byLine[l.Line] += s.Value[0]
		}
	}
	return byLine
}

// `vbench profile --mode sampling` keeps source lines without --lines (at
// the default interval): the merged pprof file puts Work.Split's samples on
// its HOT line. --lines=false leaves every location without a line and
// profile.json without line counts.
func TestSamplingLinesByDefault(t *testing.T) {
	t.Parallel() // samples land on CPU time, which load does not move between lines
	if testing.Short() {
		t.Skip("runs a program under the sampler")
	}
	dll := testbin.Workload(t, "profiler/testdata/lines/Lines.csproj")
	hot := int64(linesSource(t, "HOT"))

	on := filepath.Join(t.TempDir(), "prof")
	if _, stderr, code := runVbench(t, "profile", "--mode", "sampling", "--out", on, "--", "dotnet", dll, "800", "10"); code != 0 {
		t.Fatalf("vbench profile: exit %d\n%s", code, stderr)
	} else if strings.Contains(stderr, "lines:") {
		t.Errorf("a note on lines:\n%s", stderr)
	}
	got := splitLines(t, on)
	t.Logf("without --lines: Work.Split's samples by line %v", got)
	if got[hot] == 0 {
		t.Errorf("no samples on Work.Split's HOT line %d: %v", hot, got)
	}

	off := filepath.Join(t.TempDir(), "prof")
	if _, stderr, code := runVbench(t, "profile", "--mode", "sampling", "--lines=false", "--out", off, "--", "dotnet", dll, "800", "10"); code != 0 {
		t.Fatalf("vbench profile --lines=false: exit %d\n%s", code, stderr)
	}
	got = splitLines(t, off)
	t.Logf("--lines=false: Work.Split's samples by line %v", got)
	if len(got) != 1 || got[0] == 0 {
		t.Errorf("--lines=false: Work.Split's samples by line %v, want all on locations without a line", got)
	}
	tree, err := profile.ReadTree(off)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tree.Processes {
		if p.HasLines() {
			t.Errorf("--lines=false: pid %d's profile.json has line counts", p.PID)
		}
	}
}
