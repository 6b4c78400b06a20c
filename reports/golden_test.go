package reports

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/testbin"
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
	testbin.Golden(t, filepath.Join("testdata", "golden", name), got, *update)
}

func TestReportsGolden(t *testing.T) {
	files := history(t)
	golden(t, "report.txt", renderString(t, func(b *strings.Builder) error { return Text(b, files, baselineOpts(t, files)) }))
	golden(t, "report.md", renderString(t, func(b *strings.Builder) error { return Markdown(b, files, baselineOpts(t, files)) }))
}
