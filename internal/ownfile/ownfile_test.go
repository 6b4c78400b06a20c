package ownfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var notes = Kind{Name: "a notes file", Is: func(b []byte) bool { return bytes.HasPrefix(b, []byte("NOTES")) }}

// A missing, empty or blank file, or one of the kind, may be replaced;
// any other is refused with the flag, the path and the kind named.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	p := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, ok := range []string{filepath.Join(dir, "missing"), p("empty", ""), p("blank", " \n"), p("ours", "NOTES 1\n"), dir} {
		if err := Check("-o", ok, notes); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	other := p("suite.yaml", "name: t\n")
	err := Check("-o", other, notes)
	if err == nil || !strings.Contains(err.Error(), "-o "+other+": the file there is not a notes file") {
		t.Errorf("%s: %v", other, err)
	}
}
