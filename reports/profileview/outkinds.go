package profileview

import (
	"bytes"
	"encoding/json"

	"vbench/internal/ownfile"
)

// The kinds of file `vbench diff -o` replaces (ownfile): what it writes
// itself, recognised by its head.

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
