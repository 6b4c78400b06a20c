package reports

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"vbench/internal/ownfile"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/speedscope"
)

// Format is one --format value and what writes it. Formats is the one table
// of them: run, compare, merge and baseline update print a results file
// through Results, `vbench report` renders results files through Report and
// a profile through Profile, and every command's help lists its formats from
// here.
type Format struct {
	Name    string
	Aliases []string // other names `vbench report --format` takes ("md")
	Exts    []string // extensions by which `vbench report -o FILE` picks it, the usual one first

	Note  string // said of it where a results command's help lists it: "json (the results file)"
	About string // what it is, in `vbench report --help`; a line break continues it on the next line

	// OneFile marks a report format that writes one results file, not a history.
	OneFile bool
	// NeedsCalls marks a profile format that draws calls, which a profile of
	// the null engine (hooks doing nothing) has none of.
	NeedsCalls bool

	// Results writes one results file as run, compare, merge and baseline
	// update print it; nil when it is not one of theirs.
	Results func(io.Writer, *results.File) error
	// Report writes `vbench report`'s rendering of results files; nil when
	// it does not render results.
	Report func(*Matrix, io.Writer) error
	// Profile writes `vbench report`'s rendering of a profile; nil when it
	// does not render profiles.
	Profile func(io.Writer, ProfileView) error
	// Is recognises a file of this format, the only kind `vbench report -o`
	// replaces (ownfile): vbench's own header for the plain-text formats,
	// which any notes file would be, the format itself for the others.
	Is func(data []byte) bool
}

// Kind is what `vbench report -o` in format f may replace.
func (f *Format) Kind() ownfile.Kind {
	is := f.Is
	if is == nil {
		is = func([]byte) bool { return false }
	}
	return ownfile.Kind{Name: "a " + f.Name + " file vbench wrote", Is: is}
}

// JUnitKind is what --junit replaces: a JUnit XML file.
var JUnitKind = ownfile.Kind{Name: "a JUnit XML file", Is: isJUnit}

func isJUnit(b []byte) bool { return bytes.Contains(ownfile.Head(b), []byte("<testsuites")) }

// HTMLKind is what an HTML page's -o replaces: an HTML page.
var HTMLKind = ownfile.Kind{Name: "an HTML page", Is: isHTML}

func isHTML(b []byte) bool {
	h := bytes.ToLower(bytes.TrimSpace(ownfile.Head(b)))
	return bytes.HasPrefix(h, []byte("<!doctype html")) || bytes.HasPrefix(h, []byte("<html"))
}

// profileTextHead is the first line of a profile's text report
// ("profile.json: tracing profile of pid 48213 (…)", "prof: sampling
// profiles of 3 processes").
var profileTextHead = regexp.MustCompile(`^[^\n]*: [a-z-]+ profiles? of `)

func isText(b []byte) bool {
	return bytes.HasPrefix(b, []byte("vbench report")) || profileTextHead.Match(ownfile.Head(b))
}

// ProfileView is what a profile format draws, with the options of either
// rendering.
type ProfileView struct {
	Tree    *profile.Tree    // every process's profile
	Profile *profile.Profile // the one drawn: Tree merged, or the process picked
	Text    ProfileOptions
	Flame   FlameOptions
}

// Formats lists every format. Its order is the order every list of formats
// is printed in, and the first format a list holds is that list's default.
var Formats = []*Format{
	{Name: "table", Results: ResultsTable},
	{
		Name: "text", Exts: []string{".txt", ".text"},
		About:   "aligned tables (the default on stdout)",
		Is:      isText,
		Report:  (*Matrix).WriteText,
		Profile: func(w io.Writer, v ProfileView) error { return TreeText(w, v.Tree, v.Text) },
	},
	{
		Name: "markdown", Aliases: []string{"md"}, Exts: []string{".md", ".markdown"},
		About:   "for a pull-request comment: changes first, full table folded",
		Is:      func(b []byte) bool { return bytes.HasPrefix(b, []byte("### vbench")) },
		Results: ResultsMarkdown, Report: (*Matrix).WriteMarkdown,
	},
	{
		Name: "html", Exts: []string{".html", ".htm"},
		About:  "one self-contained page with charts (overhead bars, run spread,\nhistory trends), no external files or scripts",
		Is:     isHTML,
		Report: (*Matrix).WriteHTML,
		// A profile with lines: its source view (source.go).
		Profile: func(w io.Writer, v ProfileView) error {
			return SourceHTML(w, v.Profile, SourceOptions{Top: v.Text.Top})
		},
	},
	{
		Name: "svg", Exts: []string{".svg"}, NeedsCalls: true,
		Is:      func(b []byte) bool { return bytes.Contains(ownfile.Head(b), []byte("<svg")) },
		Profile: func(w io.Writer, v ProfileView) error { return FlameGraph(w, v.Profile, v.Flame) },
	},
	{
		Name: "speedscope", Exts: []string{speedscope.Ext}, NeedsCalls: true,
		Is: func(b []byte) bool { return bytes.Contains(ownfile.Head(b), []byte(speedscope.Schema)) },
		Profile: func(w io.Writer, v ProfileView) error {
			return speedscope.Write(w, speedscope.New("vbench "+string(v.Profile.Mode)+" profile", v.Profile, nil))
		},
	},
	{Name: "json", Note: "the results file", Results: ResultsJSON},
	{Name: "csv", Results: ResultsCSV},
	{
		Name: "gobench", Note: "for benchstat", OneFile: true,
		About:   "Go benchmark format, one line per run: benchstat old.txt new.txt",
		Results: GoBench,
		Is:      func(b []byte) bool { return bytes.HasPrefix(b, []byte("goos: ")) },
		Report:  func(m *Matrix, w io.Writer) error { return GoBench(w, m.Current) },
	},
	{
		Name: "junit", Exts: []string{".xml"},
		About:   "JUnit XML, one test case per cell; regressions and failed\nworkloads are failures",
		Results: JUnit, Report: (*Matrix).WriteJUnit,
		Is: isJUnit,
	},
}

// Called reports whether name (already lower-case) is f's name or an alias.
func (f *Format) Called(name string) bool {
	return f.Name == name || slices.Contains(f.Aliases, name)
}

// FormatNamed is the format named name exactly, or nil.
func FormatNamed(name string) *Format {
	for _, f := range Formats {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// FormatOfExt is the format a file extension (".md", any case) picks, or nil.
func FormatOfExt(ext string) *Format {
	ext = strings.ToLower(ext)
	for _, f := range Formats {
		if slices.Contains(f.Exts, ext) {
			return f
		}
	}
	return nil
}

// FormatOfFile is the format a file's name picks by its ending, the longest
// that matches (x.speedscope.json is speedscope's, not plain JSON), or nil.
func FormatOfFile(name string) *Format {
	name = strings.ToLower(name)
	var best *Format
	n := 0
	for _, f := range Formats {
		for _, e := range f.Exts {
			if strings.HasSuffix(name, e) && len(e) > n {
				best, n = f, len(e)
			}
		}
	}
	return best
}

// FormatsFor lists the formats that write one kind of output: results
// commands' (ForResults), reports of results files (ForReport) or of
// profiles (ForProfile).
func FormatsFor(writes func(*Format) bool) []*Format {
	var out []*Format
	for _, f := range Formats {
		if writes(f) {
			out = append(out, f)
		}
	}
	return out
}

// The kinds of output FormatsFor lists.
func ForResults(f *Format) bool { return f.Results != nil }
func ForReport(f *Format) bool  { return f.Report != nil }
func ForProfile(f *Format) bool { return f.Profile != nil }

// FormatNames are the names of fs: "table, markdown, json".
func FormatNames(fs []*Format) string {
	var names []string
	for _, f := range fs {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// WriteResults writes f in format, one of the results commands' formats
// (ForResults): the results table as aligned text, Markdown or CSV, the JSON
// file itself, or one of the formats other tools read (gobench, junit).
func WriteResults(w io.Writer, f *results.File, format string) error {
	if ft := FormatNamed(format); ft != nil && ft.Results != nil {
		return ft.Results(w, f)
	}
	return fmt.Errorf("unknown format %q (known: %s)", format, FormatNames(FormatsFor(ForResults)))
}
