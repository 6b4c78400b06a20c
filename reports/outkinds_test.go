package reports

import (
	"bytes"
	"os"
	"testing"

	"vbench/internal/profdiff"
)

// Each diff vbench writes, of profiles or of allocations, and the
// --across table, is recognised as the kind its -o replaces; a notes file,
// a results file and another format's output are not.
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
	a, err := NewAcross(history(t), historyNames())
	if err != nil {
		t.Fatal(err)
	}
	across := map[string][]byte{
		"text":     render(func(b *bytes.Buffer) error { return a.Write(b, nil, "text") }),
		"markdown": render(func(b *bytes.Buffer) error { return a.Write(b, nil, "markdown") }),
	}
	results, err := os.ReadFile(fixture("results.json"))
	if err != nil {
		t.Fatal(err)
	}
	others := [][]byte{[]byte("my notes\n"), []byte("# notes\n"), results, []byte(`{"old": "x"}`)}
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
	for format, out := range across {
		k := AcrossKind(format)
		if !k.Is(out) {
			t.Errorf("%s: the --across table is not recognised:\n%.200s", k.Name, out)
		}
		for _, o := range others {
			if k.Is(o) {
				t.Errorf("%s: %.40q recognised as one", k.Name, o)
			}
		}
	}
	if DiffKind("text").Is(across["text"]) || AcrossKind("text").Is(written["text"][0]) {
		t.Errorf("a diff and the --across table taken for each other")
	}
}
