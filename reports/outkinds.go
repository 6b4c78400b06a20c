package reports

import (
	"bytes"
	"encoding/json"
	"regexp"

	"vbench/internal/ownfile"
)

// The kinds of file `vbench diff -o` and `vbench report --across -o`
// replace (ownfile): what they write themselves, recognised by its head.

// DiffKind is what `vbench diff -o` in format (text, markdown, json, svg)
// replaces: a diff of profiles or of allocations it wrote in that format.
func DiffKind(format string) ownfile.Kind {
	var is func([]byte) bool
	switch format {
	case "text":
		is = func(b []byte) bool { return bytes.HasPrefix(b, []byte("OLD: ")) || isAllocDiffText(b) }
	case "markdown": // an allocation diff's markdown is its text
		is = func(b []byte) bool { return bytes.HasPrefix(b, []byte("- OLD: ")) || isAllocDiffText(b) }
	case "json":
		is = isDiffJSON
	case "svg":
		is = FormatNamed("svg").Is
	default:
		is = func([]byte) bool { return false }
	}
	return ownfile.Kind{Name: "a " + format + " diff vbench wrote", Is: is}
}

func isAllocDiffText(b []byte) bool { return bytes.HasPrefix(b, []byte("Allocations per run")) }

// isDiffJSON: an object with a diff's keys (DiffJSON's or AllocDiffJSON's).
func isDiffJSON(b []byte) bool {
	var doc map[string]json.RawMessage
	if json.Unmarshal(b, &doc) != nil {
		return false
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := doc[k]; !ok {
				return false
			}
		}
		return true
	}
	return has("old", "new", "unit", "functions") || has("old", "new", "headline", "types")
}

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
