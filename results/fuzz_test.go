package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// errShape is what every Decode error looks like: ":" then, for problems in
// the JSON text, the line (so ReadFile's "path" prefix makes "path:line: …").
var (
	errShape     = regexp.MustCompile(`^(:\d+)?: \S`)
	errWithLine  = regexp.MustCompile(`^:\d+: \S`)
	errValidated = regexp.MustCompile(`^: (suite\.name|results\[\d+\])`)
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
		got, err := Decode(data)
		if err != nil {
			msg := err.Error()
			if !errShape.MatchString(msg) {
				t.Fatalf("error %q does not start with ':' (and a line)", msg)
			}
			if !json.Valid(data) && !errWithLine.MatchString(msg) && !strings.HasPrefix(msg, ": empty file") {
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
		again, err := Decode(b)
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
		data := corpusBytes(t, filepath.Join("testdata", "fuzz", "FuzzDecode", e.Name()))
		f, err := Decode(data)
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

// corpusBytes reads the []byte of a one-argument "go test fuzz v1" file.
func corpusBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 3)
	if len(lines) < 2 || lines[0] != "go test fuzz v1" || !strings.HasPrefix(lines[1], "[]byte(") {
		t.Fatalf("%s is not a one-argument corpus file", path)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return []byte(s)
}

// Validation errors come without a line (they are about the content, not
// the text), but always say which part of the file is wrong.
func TestDecodeValidationErrorsNameThePart(t *testing.T) {
	for _, in := range []string{
		`{"schema": 1, "suite": {"name": ""}}`,
		`{"schema": 1, "suite": {"name": "s"}, "results": [{"workload": "", "mode": "none"}]}`,
		`{"schema": 1, "suite": {"name": "s"}, "results": [{"workload": "w", "mode": "none", "runs": 2}]}`,
	} {
		_, err := Decode([]byte(in))
		if err == nil || !errValidated.MatchString(err.Error()) {
			t.Errorf("Decode(%s) = %v", in, err)
		}
	}
}

// A time field that is not a time is located like any other bad field
// (found by FuzzDecode: encoding/json gives such errors no offset).
func TestDecodeBadTimeNamesLineAndField(t *testing.T) {
	in := "{\n  \"schema\": 1,\n  \"suite\": {\"name\": \"s\"},\n  \"started\": \"2025-06-04T09:14:00Z\",\n  \"finished\": \"yesterday\"\n}"
	_, err := Decode([]byte(in))
	if err == nil || err.Error() != ":5: field finished: not a time like 2025-06-04T09:14:00Z" {
		t.Errorf("Decode = %v", err)
	}
}
