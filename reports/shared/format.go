package shared

import (
	"slices"
	"strings"

	"vbench/internal/ownfile"
)

// Format is what every --format value has, whichever room draws it: its
// names, the file extensions that pick it, what a help text says of it, and
// how to recognise a file of it (the only kind -o replaces). reports.Format
// and profileview.Format add what draws it.
type Format struct {
	Name    string
	Aliases []string // other names --format takes ("md")
	Exts    []string // extensions by which -o FILE picks it, the usual one first

	Note  string // said of it where a results command's help lists it: "json (the results file)"
	About string // what it is, in a command's help; a line break continues it on the next line

	// Is recognises a file of this format, the only kind -o replaces
	// (ownfile): vbench's own header for the plain-text formats, which any
	// notes file would be, the format itself for the others.
	Is func(data []byte) bool
}

// Info is f itself, for code that takes either room's formats.
func (f *Format) Info() *Format { return f }

// Kind is what -o in format f may replace.
func (f *Format) Kind() ownfile.Kind {
	is := f.Is
	if is == nil {
		is = func([]byte) bool { return false }
	}
	return ownfile.Kind{Name: "a " + f.Name + " file vbench wrote", Is: is}
}

// Called reports whether name (already lower-case) is f's name or an alias.
func (f *Format) Called(name string) bool {
	return f.Name == name || slices.Contains(f.Aliases, name)
}

// Named is the format of fs named name exactly (or, with aliases, called
// it), or the zero F.
func Named[F interface{ Info() *Format }](fs []F, name string, aliases bool) F {
	for _, f := range fs {
		if i := f.Info(); i.Name == name || (aliases && i.Called(name)) {
			return f
		}
	}
	var zero F
	return zero
}

// OfFile is the format of fs a file's name picks by its ending, the longest
// that matches (x.speedscope.json is speedscope's, not plain JSON), or the
// zero F.
func OfFile[F interface{ Info() *Format }](fs []F, name string) F {
	name = strings.ToLower(name)
	var best F
	n := 0
	for _, f := range fs {
		for _, e := range f.Info().Exts {
			if strings.HasSuffix(name, e) && len(e) > n {
				best, n = f, len(e)
			}
		}
	}
	return best
}

// Names are the names of fs: "table, markdown, json".
func Names[F interface{ Info() *Format }](fs []F) string {
	var names []string
	for _, f := range fs {
		names = append(names, f.Info().Name)
	}
	return strings.Join(names, ", ")
}

// IsHTML recognises an HTML page.
func IsHTML(b []byte) bool {
	h := strings.ToLower(strings.TrimSpace(string(ownfile.Head(b))))
	return strings.HasPrefix(h, "<!doctype html") || strings.HasPrefix(h, "<html")
}
