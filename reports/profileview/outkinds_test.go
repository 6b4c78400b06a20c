package profileview

import (
	"bytes"
	"os"
	"testing"

	"vbench/internal/profdiff"
)

// Each diff vbench writes, of profiles or of allocations, is recognised as
// the kind its -o replaces; a notes file, a results file, the --across
// table (reports') and another format's output are not.
func TestOutputKindsRecogniseTheirOwn(t *testing.T) {
	in, err := profdiff.Read(fixture("profile-tracing.json"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := profdiff.Compare(in.Side, in.Side)
	if err != nil {
		t.Fatal(err)
	}
	v := DiffView{Diff: d, Old: "old", New: "new", Top: 5}
	av := AllocDiffView{Diff: &profdiff.AllocDiff{OldRuns: 1, NewRuns: 1, NewBytes: 40, NewCount: 1, Types: []profdiff.AllocRow{{Type: "A.Node", NewBytes: 40, NewCount: 1}}}, Old: "old", New: "new"}
	render := func(write func(*bytes.Buffer) error) []byte {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	written := map[string][][]byte{
		"text":     {render(func(b *bytes.Buffer) error { return DiffText(b, v) }), render(func(b *bytes.Buffer) error { return AllocDiffText(b, av) })},
		"markdown": {render(func(b *bytes.Buffer) error { return DiffMarkdown(b, v) }), render(func(b *bytes.Buffer) error { return AllocDiffText(b, av) })},
		"json":     {render(func(b *bytes.Buffer) error { return WriteDiffJSON(b, v) }), render(func(b *bytes.Buffer) error { return WriteAllocDiffJSON(b, av) })},
		"svg":      {render(func(b *bytes.Buffer) error { return DiffFlameGraph(b, in.Paths, in.Paths, d.Unit, DiffFlameOptions{}) })},
	}
	results, err := os.ReadFile(fixture("results.json"))
	if err != nil {
		t.Fatal(err)
	}
	others := [][]byte{[]byte("my notes\n"), []byte("# notes\n"), results, []byte(`{"old": "x"}`),
		[]byte("suite: 3 runs, each cell the median of the runs' overhead multiples\n")}
	for format, outs := range written {
		k := DiffKind(format)
		for i, out := range outs {
			if !k.Is(out) {
				t.Errorf("%s: its own output %d is not recognised:\n%.200s", k.Name, i, out)
			}
		}
		for _, o := range others {
			if k.Is(o) {
				t.Errorf("%s: %.40q recognised as one", k.Name, o)
			}
		}
	}
}
