package testbin

import (
	"io"
	"os"
	"testing"

	pprof "github.com/google/pprof/profile"
)

// DecodeFile reads the file at path with decode (a format's own reader:
// pprof.Parse, png.Decode, speedscope.Read), failing the test with the
// path when it cannot be opened or read.
func DecodeFile[T any](t testing.TB, path string, decode func(io.Reader) (T, error)) T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// ReadPprof reads a pprof file with google/pprof's own reader: what pprof
// itself will make of a profile vbench wrote.
func ReadPprof(t testing.TB, path string) *pprof.Profile {
	t.Helper()
	return DecodeFile(t, path, pprof.Parse)
}
