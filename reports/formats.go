package reports

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"vbench/internal/ownfile"
	"vbench/internal/results"
	"vbench/reports/shared"
)

// Format is one --format value of a results output and what writes it.
// Formats is the one table of them: run, compare, merge and baseline update
// print a results file through Results, `vbench report` renders results
// files through Report, and every results command's help lists its formats
// from here. (A profile's formats are reports/profileview's.)
type Format struct {
	shared.Format

	// OneFile marks a report format that writes one results file, not a history.
	OneFile bool

	// Results writes one results file as run, compare, merge and baseline
	// update print it; nil when it is not one of theirs.
	Results func(io.Writer, *results.File) error
	// Report writes `vbench report`'s rendering of results files; nil when
	// it does not render results.
	Report func(*Matrix, io.Writer) error
}

// JUnitKind is what --junit replaces: a JUnit XML file.
var JUnitKind = ownfile.Kind{Name: "a JUnit XML file", Is: isJUnit}

func isJUnit(b []byte) bool { return bytes.Contains(ownfile.Head(b), []byte("<testsuites")) }

// HTMLKind is what an HTML page's -o replaces: an HTML page.
var HTMLKind = ownfile.Kind{Name: "an HTML page", Is: shared.IsHTML}

func isText(b []byte) bool { return bytes.HasPrefix(b, []byte("vbench report")) }

// Formats lists every format. Its order is the order every list of formats
// is printed in, and the first format a list holds is that list's default.
var Formats = []*Format{
	{Format: shared.Format{Name: "table"}, Results: ResultsTable},
	{
		Format: shared.Format{Name: "text", Exts: []string{".txt", ".text"},
			About: "aligned tables (the default on stdout)", Is: isText},
		Report: (*Matrix).WriteText,
	},
	{
		Format: shared.Format{Name: "markdown", Aliases: []string{"md"}, Exts: []string{".md", ".markdown"},
			About: "for a pull-request comment: changes first, full table folded",
			Is:    func(b []byte) bool { return bytes.HasPrefix(b, []byte("### vbench")) }},
		Results: ResultsMarkdown, Report: (*Matrix).WriteMarkdown,
	},
	{
		Format: shared.Format{Name: "html", Exts: []string{".html", ".htm"},
			About: "one self-contained page with charts (overhead bars, run spread,\nhistory trends), no external files or scripts",
			Is:    shared.IsHTML},
		Report: (*Matrix).WriteHTML,
	},
	{Format: shared.Format{Name: "json", Note: "the results file"}, Results: ResultsJSON},
	{Format: shared.Format{Name: "csv"}, Results: ResultsCSV},
	{
		Format: shared.Format{Name: "gobench", Note: "for benchstat",
			About: "Go benchmark format, one line per run: benchstat old.txt new.txt",
			Is:    func(b []byte) bool { return bytes.HasPrefix(b, []byte("goos: ")) }},
		OneFile: true,
		Results: GoBench,
		Report:  func(m *Matrix, w io.Writer) error { return GoBench(w, m.Current) },
	},
	{
		Format: shared.Format{Name: "junit", Exts: []string{".xml"},
			About: "JUnit XML, one test case per cell; regressions and failed\nworkloads are failures",
			Is:    isJUnit},
		Results: JUnit, Report: (*Matrix).WriteJUnit,
	},
}

// FormatNamed is the format named name exactly, or nil.
func FormatNamed(name string) *Format { return shared.Named(Formats, name, false) }

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

// FormatOfFile is the format a file's name picks by its ending, or nil.
func FormatOfFile(name string) *Format { return shared.OfFile(Formats, name) }

// FormatsFor lists the formats that write one kind of output: results
// commands' (ForResults) or reports of results files (ForReport).
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

// FormatNames are the names of fs: "table, markdown, json".
func FormatNames(fs []*Format) string { return shared.Names(fs) }

// WriteResults writes f in format, one of the results commands' formats
// (ForResults): the results table as aligned text, Markdown or CSV, the JSON
// file itself, or one of the formats other tools read (gobench, junit).
func WriteResults(w io.Writer, f *results.File, format string) error {
	if ft := FormatNamed(format); ft != nil && ft.Results != nil {
		return ft.Results(w, f)
	}
	return fmt.Errorf("unknown format %q (known: %s)", format, FormatNames(FormatsFor(ForResults)))
}
