package profileview

import "testing"

// Every view draws, is described in show's help, and a name or extension
// picks one view only.
func TestFormatsTable(t *testing.T) {
	seen := map[string]string{}
	for _, f := range Formats {
		if f.Draw == nil || f.About == "" {
			t.Errorf("view %s: draws nothing or is not described", f.Name)
		}
		for _, key := range append(append([]string{f.Name}, f.Aliases...), f.Exts...) {
			if other, ok := seen[key]; ok {
				t.Errorf("%q names both %s and %s", key, other, f.Name)
			}
			seen[key] = f.Name
		}
	}
	if got := FormatNames(); got != "text, html, svg, speedscope" {
		t.Errorf("views %q", got)
	}
}
