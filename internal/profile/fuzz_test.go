package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	pprof "github.com/google/pprof/profile"
)

// FuzzDecode feeds the profile.json reader arbitrary bytes, starting from
// the committed corpus in testdata/fuzz/FuzzDecode: profiles the real
// profiler wrote for the C# test program (tracing with recursion,
// exceptions, generics and threads; sampling; null). Properties:
//   - it never panics, on the decoder or on what readers then do with an
//     accepted profile (Top, Function, Derive, the pprof conversion);
//   - an accepted profile passes Validate, and is the whole input (nothing
//     after it: a profile.json with trailing bytes is corrupt);
//   - an accepted profile written back (Encode, what the profiler writes)
//     decodes to the same profile;
//   - the pprof conversion of an accepted profile is a valid pprof profile.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"schema":1,"mode":"tracing","functions":[{"id":0,"name":"M"}],"threads":[{"os_id":1,"roots":[{"fn":0,"calls":1}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(bytes.NewReader(data))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Decode accepted a profile Validate rejects: %v", err)
		}
		if err := json.Unmarshal(data, new(any)); err != nil {
			t.Fatalf("Decode accepted bytes that are not one JSON value: %v", err)
		}
		var buf bytes.Buffer
		if err := p.Encode(&buf); err != nil {
			t.Fatalf("an accepted profile cannot be written back: %v", err)
		}
		again, err := Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("the profile written back is rejected: %v\n%s", err, buf.Bytes())
		}
		if d := cmp.Diff(p, again, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("written back and decoded again, the profile changed (-first +again):\n%s", d)
		}
		// What readers do next must not crash on anything Decode accepts.
		p.Top(5)
		for _, fn := range p.Functions {
			p.Function(fn.Name)
		}
		pp, err := p.Pprof()
		if err != nil {
			t.Fatal(err)
		}
		if err := pp.CheckValid(); err != nil {
			t.Fatalf("pprof conversion of an accepted profile is invalid: %v", err)
		}
		if err := pp.Write(io.Discard); err != nil {
			t.Fatalf("pprof write: %v", err)
		}
		var gz bytes.Buffer
		if err := p.WritePprof(&gz); err != nil {
			t.Fatal(err)
		}
		if _, err := pprof.Parse(&gz); err != nil {
			t.Fatalf("pprof cannot read back what WritePprof wrote: %v", err)
		}
		again.Derive()
	})
}

// A profile followed by anything else is a corrupt file, not a profile
// (found by FuzzDecode: the decoder stopped after the first JSON value).
func TestDecodeRefusesTrailingData(t *testing.T) {
	good := fmt.Sprintf(`{"schema":%d,"mode":"null","functions":[],"threads":[]}`, SchemaVersion)
	if _, err := Decode(bytes.NewReader([]byte(good + "\n"))); err != nil {
		t.Fatalf("a whole profile: %v", err)
	}
	for _, tail := range []string{"x", "{}", good, "]"} {
		if _, err := Decode(bytes.NewReader([]byte(good + tail))); err == nil {
			t.Errorf("accepted a profile followed by %q", tail)
		}
	}
}

// A profile of another schema version or a truncated one is refused with
// what is wrong, never read as a profile.
func TestDecodeRefusesOtherSchemaAndTruncated(t *testing.T) {
	v := SchemaVersion
	for in, want := range map[string]string{
		fmt.Sprintf(`{"schema":%d,"mode":"tracing","functions":[],"threads":[]}`, v+1):       fmt.Sprintf("profile schema %d is newer than this vbench reads (schemas 1 to %d): update vbench", v+1, v),
		fmt.Sprintf(`{"schema":%d,"mode":"tracing","functions":[{"id":0,"name":"M"`, v):      "not a vbench profile: unexpected EOF",
		fmt.Sprintf(`{"schema":%d,"mode":"tracing","functions":[],"threads":[],"x":1}`, v):   `not a vbench profile: json: unknown field "x"`,
		fmt.Sprintf(`{"schema":%d,"mode":"tracing","functions":[{"id":1}],"threads":[]}`, v): "functions[0] has id 1",
		fmt.Sprintf(`{"schema":%d,"mode":"none","functions":[],"threads":[]}`, v):            `profile mode "none" is not tracing, instrumentation, sampling, suspend-sampling, cpu-sampling, allocations, allocation-sampling or null`,
	} {
		_, err := Decode(bytes.NewReader([]byte(in)))
		if err == nil || err.Error() != want {
			t.Errorf("Decode(%s) = %v, want %q", in, err, want)
		}
	}
}
