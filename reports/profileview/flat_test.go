package profileview

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"
)

// writeCallgrindLike writes a pprof as instrprof makes one: instructions
// and calls, each sample one frame (a function's own count) unless deep,
// where Main's samples carry Work below it.
func writeCallgrindLike(t *testing.T, deep bool) string {
	t.Helper()
	fns := []*pprof.Function{{ID: 1, Name: "Main"}, {ID: 2, Name: "Work"}}
	locs := []*pprof.Location{{ID: 1, Line: []pprof.Line{{Function: fns[0]}}}, {ID: 2, Line: []pprof.Line{{Function: fns[1]}}}}
	work := []*pprof.Location{locs[1]}
	if deep {
		work = []*pprof.Location{locs[1], locs[0]} // leaf first
	}
	p := &pprof.Profile{
		SampleType: []*pprof.ValueType{{Type: "instructions", Unit: "count"}, {Type: "calls", Unit: "count"}},
		Sample: []*pprof.Sample{
			{Location: []*pprof.Location{locs[0]}, Value: []int64{1000, 1}},
			{Location: work, Value: []int64{9000, 30}},
		},
		Location: locs, Function: fns,
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "instructions.pb.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A profile of self counts alone (callgrind's, one frame a stack) has no
// inclusive figures to print and no tree; read by its calls, no times:
// the text says so and prints neither as a number (it printed incl equal
// to excl, a tree repeating the top, and a 0s time column).
func TestProfileTextPrintsOnlyWhatAFlatProfileHolds(t *testing.T) {
	text := func(path, index string) string {
		in, err := ReadInputAs(path, nil, index)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := ProfileText(&out, "p", in.Profile, ProfileOptions{}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	flat := writeCallgrindLike(t, false)
	out := text(flat, "")
	if !strings.Contains(out, "Self only") || strings.Contains(out, "incl%") || strings.Contains(out, "Thread 0") || strings.Contains(out, "pid 0") {
		t.Errorf("flat instructions:\n%s", out)
	}
	if row := rowAfter(out, "  function"); !strings.HasPrefix(strings.TrimSpace(row), "9000") || !strings.HasSuffix(row, "Work") {
		t.Errorf("top row %q, want Work's 9000\n%s", row, out)
	}
	out = text(flat, "calls")
	// Read by its calls, it is still an instruction profile (its header
	// said "tracing profile", a tracer's).
	if !strings.HasPrefix(out, "p: instructions profile") || !strings.Contains(out, "by calls (the profile holds no times") || strings.Contains(out, "0s") || strings.Contains(out, "excl") {
		t.Errorf("flat calls:\n%s", out)
	}
	if row := rowAfter(out, "  function"); !strings.HasPrefix(strings.TrimSpace(row), "30") {
		t.Errorf("top row %q, want Work's 30 calls\n%s", row, out)
	}
	// A profile with paths keeps its inclusive columns and tree.
	out = text(writeCallgrindLike(t, true), "")
	if strings.Contains(out, "Self only") || !strings.Contains(out, "incl%") || !strings.Contains(out, "Thread 0") {
		t.Errorf("deep instructions:\n%s", out)
	}
}

// rowAfter is the line after the first line containing header.
func rowAfter(out, header string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, header) && i+1 < len(lines) {
			return lines[i+1]
		}
	}
	return ""
}
