package reports

import (
	"regexp"

	"vbench/internal/ownfile"
)

// The kind of file `vbench report --across -o` replaces (ownfile): what it
// writes itself, recognised by its head.

// acrossHead is the first line of `vbench report --across` (Across.Write).
var acrossHead = regexp.MustCompile(`^(### )?[^\n]*: \d+ runs, each cell the median of the runs' overhead multiples`)

// AcrossKind is what `vbench report --across -o` in format (text or
// markdown) replaces: its own table, or the report of that format.
func AcrossKind(format string) ownfile.Kind {
	report := FormatNamed(format).Kind()
	return ownfile.Kind{Name: "a " + format + " file vbench wrote", Is: func(b []byte) bool {
		return acrossHead.Match(ownfile.Head(b)) || report.Is(b)
	}}
}
