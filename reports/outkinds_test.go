package reports

import (
	"bytes"
	"os"
	"testing"
)

// The --across table is recognised as the kind its -o replaces; a notes
// file, a results file and a diff of profiles (profileview's) are not.
func TestOutputKindsRecogniseTheirOwn(t *testing.T) {
	render := func(write func(*bytes.Buffer) error) []byte {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
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
	others := [][]byte{[]byte("my notes\n"), []byte("# notes\n"), results, []byte(`{"old": "x"}`),
		[]byte("OLD: old.json (3 runs)\nNEW: new.json (3 runs)\n")}
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
}
