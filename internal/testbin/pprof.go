package testbin

import (
	"os"
	"testing"

	pprof "github.com/google/pprof/profile"
)

// ReadPprof reads a pprof file with google/pprof's own reader: what pprof
// itself will make of a profile vbench wrote.
func ReadPprof(t testing.TB, path string) *pprof.Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pp, err := pprof.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pp
}
