package corpus

import (
	"bytes"
	"testing"
)

// Encode and Decode agree on every byte value, and Decode reads what the Go
// fuzzer itself wrote (a crasher committed in internal/suite/testdata).
func TestRoundTrip(t *testing.T) {
	var all []byte
	for i := 0; i < 256; i++ {
		all = append(all, byte(i))
	}
	for _, in := range [][]byte{nil, []byte("name: x\n"), all, []byte("\xff\xfe\"\\`")} {
		got, err := Decode(Encode(in))
		if err != nil || !bytes.Equal(got, in) {
			t.Errorf("Decode(Encode(%q)) = %q, %v", in, got, err)
		}
	}
	got, err := ReadFile("../suite/testdata/fuzz/FuzzParse/9f73b4d211d3cd95")
	if err != nil || string(got) != "\r0" {
		t.Errorf("the fuzzer's own file: %q, %v", got, err)
	}
	if _, err := Decode([]byte("go test fuzz v1\nstring(\"x\")\n")); err == nil {
		t.Errorf("accepted a string corpus entry")
	}
}
