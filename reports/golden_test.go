package reports

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The golden files in testdata/golden are what a user reads for the
// fixtures, written out literally: every number in them was checked by hand
// against the fixture it comes from (410780732ns is "410.8ms", an overhead
// of 120.87 in [119.62, 121.90] is "×121 [120, 122]", a p of 2.2e-5 is
// "p<0.001"). A change of format shows up here as a diff to review;
// `go test ./reports -run Golden -update` rewrites them.
var update = flag.Bool("update", false, "rewrite testdata/golden from the renderers' output")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < max(len(gl), len(wl)); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("%s differs from line %d:\n got %q\nwant %q", path, i+1, g, w)
				break
			}
		}
	}
}

func TestReportsGolden(t *testing.T) {
	files := history(t)
	golden(t, "report.txt", renderString(t, func(b *strings.Builder) error { return Text(b, files, baselineOpts(t)) }))
	golden(t, "report.md", renderString(t, func(b *strings.Builder) error { return Markdown(b, files, baselineOpts(t)) }))
}

func TestProfileTextGolden(t *testing.T) {
	golden(t, "profile-tracing.txt", profileText(t, readProfile(t, "profile-tracing.json"), ProfileOptions{Top: 5}))
	golden(t, "profile-sampling.txt", profileText(t, readProfile(t, "profile-sampling.json"), ProfileOptions{Top: 3}))
	golden(t, "profile-tracing-cut.txt", profileText(t, readProfile(t, "profile-tracing.json"), ProfileOptions{Top: 2, MinPercent: 25, MaxDepth: 4}))
}
