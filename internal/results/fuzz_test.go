package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"vbench/internal/corpus"
)

// errShape is what every Decode error looks like: the name, then, for
// problems in the JSON text, the line and column ("f.json:3:7: …").
var (
	errShape    = regexp.MustCompile(`^f\.json(:\d+:\d+)?: \S`)
	errWithLine = regexp.MustCompile(`^f\.json:\d+:\d+: \S`)
)

// FuzzDecode feeds the results reader (results and baseline files)
// arbitrary bytes, starting from the committed corpus in
// testdata/fuzz/FuzzDecode: files `vbench run`, `merge` and `baseline update`
// wrote (failed cells, verdicts, shards, a partial run) and the CLI scripts'
// corrupt ones. Properties:
//   - it never panics;
//   - an error has the documented shape, and names a line when the bytes are
//     not valid JSON;
//   - an accepted file passes Validate;
//   - an accepted file written back (WriteFile's encoding) reads back equal.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"schema": 1, "suite": {"name": "s"}, "results": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode("f.json", data)
		if err != nil {
			msg := err.Error()
			if !errShape.MatchString(msg) {
				t.Fatalf("error %q does not start with the file name (and a line)", msg)
			}
			if !json.Valid(data) && !errWithLine.MatchString(msg) && !strings.HasPrefix(msg, "f.json: empty file") {
				t.Fatalf("invalid JSON rejected without a line: %q", msg)
			}
			return
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("Decode accepted a file Validate rejects: %v", err)
		}
		b, err := Marshal(got)
		if err != nil {
			t.Fatalf("an accepted file cannot be written back: %v", err)
		}
		again, err := Decode("f.json", b)
		if err != nil {
			t.Fatalf("the file written back is rejected: %v\n%s", err, b)
		}
		if d := cmp.Diff(got, again, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("written back and read again, the file changed (-first +again):\n%s", d)
		}
	})
}

// What the fuzzers start from, and what they found, also survives the real
// write path: WriteFile (atomic, fsync: too slow inside the fuzz loop) then
// ReadFile gives back the file Decode read.
func TestCorpusSurvivesWriteFile(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "fuzz", "FuzzDecode"))
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for _, e := range entries {
		data, err := corpus.ReadFile(filepath.Join("testdata", "fuzz", "FuzzDecode", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		f, err := Decode("f.json", data)
		if err != nil {
			continue
		}
		accepted++
		path := filepath.Join(t.TempDir(), "r.json")
		if err := WriteFile(path, f); err != nil {
			t.Fatal(err)
		}
		again, err := ReadFile(path)
		if err != nil {
			t.Fatalf("%s: ReadFile of what WriteFile wrote: %v", e.Name(), err)
		}
		if d := cmp.Diff(f, again, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("%s: WriteFile then ReadFile changed the file (-first +again):\n%s", e.Name(), d)
		}
	}
	if accepted < 5 {
		t.Fatalf("only %d corpus files decode; the seeds from real runs should", accepted)
	}
}
