package reports

import (
	"bytes"
	"strings"
	"testing"
)

// Every format writes something, and a name, alias or extension picks one
// format only: the CLI resolves --format and -o through this table alone.
func TestFormatsTable(t *testing.T) {
	seen := map[string]string{}
	for _, f := range Formats {
		if f.Results == nil && f.Report == nil {
			t.Errorf("format %s writes nothing", f.Name)
		}
		for _, key := range append(append([]string{f.Name}, f.Aliases...), f.Exts...) {
			if other, ok := seen[key]; ok {
				t.Errorf("%q names both %s and %s", key, other, f.Name)
			}
			seen[key] = f.Name
		}
		if (f.About == "") != (f.Report == nil) {
			t.Errorf("format %s: a report format is described in report's help, and only one", f.Name)
		}
	}
	if got := FormatNames(FormatsFor(ForResults)); got != "table, markdown, json, csv, gobench, junit" {
		t.Errorf("results formats %q", got)
	}
	if f := FormatOfExt(".MD"); f == nil || f.Name != "markdown" || !f.Called("md") {
		t.Errorf("FormatOfExt(.MD) = %v", f)
	}
}

// WriteResults writes each results format through the table, and refuses
// the rest naming the ones it has.
func TestWriteResultsEveryFormat(t *testing.T) {
	f := readResults(t, "results.json")
	for _, ft := range FormatsFor(ForResults) {
		var got, want bytes.Buffer
		if err := WriteResults(&got, f, ft.Name); err != nil {
			t.Fatalf("%s: %v", ft.Name, err)
		}
		if err := ft.Results(&want, f); err != nil || got.Len() == 0 || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: %d bytes, want the %d its writer writes (%v)", ft.Name, got.Len(), want.Len(), err)
		}
	}
	err := WriteResults(&bytes.Buffer{}, f, "html")
	if err == nil || !strings.Contains(err.Error(), "known: table, markdown, json, csv, gobench, junit") {
		t.Errorf("html: %v", err)
	}
}
