package profileview

import (
	"bufio"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"vbench/internal/numfmt"
	"vbench/internal/profile"
)

// The source view (issue 37): a profile with lines drawn over its source,
// as the seeds' Visual Profiler draws it (thesis chapter 6): the hot files,
// each line's samples (sampling) or executions (instrumentation with lines)
// beside its text, the line's background as hot as its figure, and beside
// each file a narrow bird's-eye strip of the whole file's heat whose marks
// link to their lines. One self-contained page: inline CSS and SVG, no
// scripts.

//go:embed source.html.tmpl
var sourceSource string

var sourceTemplate = template.Must(template.New("source").Parse(sourceSource))

// ErrNoLines is the error of a source view of a profile without lines.
var ErrNoLines = errors.New("the profile has no source lines (profile with --lines, or a suite mode's lines: true)")

// Source view defaults.
const (
	DefaultSourceFiles = 10  // hot files shown
	DefaultSourceTop   = 15  // hot lines in the summary table
	sourceContext      = 8   // lines shown around counted ones in a long file
	sourceFullFile     = 800 // a file this long or shorter is shown whole
	stripMaxHeight     = 560 // the bird's-eye strip's pixels, at most
)

// SourceOptions shape a source view.
type SourceOptions struct {
	Files int    // hot files shown; 0: DefaultSourceFiles
	Top   int    // hot lines listed first; 0: DefaultSourceTop
	Title string // default: the profile's mode and process
}

// SourceLine is one counted source line of a profile: its figures summed
// over every function (and node) that ran it.
type SourceLine struct {
	File       string
	Line       int
	Samples    int64
	Executions int64
	Functions  []string // the functions counted on it, by name
}

// SourceLines are p's counted lines, every function's per-line totals
// (profile.Function.Lines) keyed by file and line, hottest first (by
// samples, else executions), then by file and line.
func SourceLines(p *profile.Profile) []SourceLine {
	type key struct {
		file string
		line int
	}
	byKey := map[key]*SourceLine{}
	for _, f := range p.Functions {
		for _, l := range f.Lines {
			file := l.File
			if file == "" {
				file = f.File
			}
			if file == "" || l.Line <= 0 || (l.Samples == 0 && l.Executions == 0) {
				continue
			}
			k := key{file, l.Line}
			s := byKey[k]
			if s == nil {
				s = &SourceLine{File: file, Line: l.Line}
				byKey[k] = s
			}
			s.Samples += l.Samples
			s.Executions += l.Executions
			if !slices.Contains(s.Functions, f.Name) {
				s.Functions = append(s.Functions, f.Name)
			}
		}
	}
	out := make([]SourceLine, 0, len(byKey))
	for _, s := range byKey {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Samples != b.Samples {
			return a.Samples > b.Samples
		}
		if a.Executions != b.Executions {
			return a.Executions > b.Executions
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return out
}

// sourcePage is what source.html.tmpl draws.
type sourcePage struct {
	Title    string
	Subtitle string
	Unit     string // "samples" or "executions"
	Percent  bool   // a share column (samples: of all the profile's samples)
	Notes    []string
	Hot      []sourceHot
	Files    []*sourceFile
	More     string // "3 more files with counted lines are not shown"
}

type sourceHot struct {
	Anchor, Where, Functions, Count, Percent, Heat string
}

type sourceFile struct {
	ID       string
	Path     string
	Found    bool
	NotFound string // why the text is missing
	Total    string
	Percent  string
	Lines    int // the file's lines (or, not found, its last counted line)
	Rows     []sourceRow
	Strip    sourceStrip
}

type sourceRow struct {
	Line                 int // 0: a gap
	Gap                  string
	Anchor               string
	Text                 string
	Count, Percent, Heat string
	Functions            string
	Counted              bool
}

type sourceStrip struct {
	Height int
	Marks  []stripMark
}

type stripMark struct {
	Anchor      string
	Y, H        float64
	Heat, Title string
}

// SourceHTML writes p's source view (see the top of this file). A file the
// profile's PDB names but that is not on this machine (moved, or a
// path-mapped build's /_/… path) is listed with a note and its counted
// lines' figures, without text. A profile without lines is ErrNoLines.
func SourceHTML(w io.Writer, p *profile.Profile, opts SourceOptions) error {
	lines := SourceLines(p)
	if len(lines) == 0 {
		return ErrNoLines
	}
	if opts.Files <= 0 {
		opts.Files = DefaultSourceFiles
	}
	if opts.Top <= 0 {
		opts.Top = DefaultSourceTop
	}
	samples := lines[0].Samples > 0
	figure := func(l SourceLine) int64 {
		if samples {
			return l.Samples
		}
		return l.Executions
	}
	var hottest, all int64
	for _, l := range lines {
		hottest = max(hottest, figure(l))
	}
	if samples {
		for _, f := range p.Functions {
			all += f.ExclusiveSamples
		}
	}
	pct := func(n int64) string {
		if !samples || all == 0 {
			return ""
		}
		return numfmt.Share(float64(n), float64(all))
	}
	page := &sourcePage{Title: opts.Title, Unit: "executions", Percent: samples && all > 0}
	if samples {
		page.Unit = "samples"
	}
	if page.Title == "" {
		page.Title = fmt.Sprintf("Source view: %s profile of pid %d", p.Mode, p.PID)
	}
	page.Subtitle = sourceSubtitle(p, samples, all, lines)
	for _, w := range p.Warnings {
		if strings.HasPrefix(w, "lines: ") {
			page.Notes = append(page.Notes, w)
		}
	}

	// Files, hottest first.
	type fileSum struct {
		path  string
		total int64
		lines []SourceLine
	}
	sums := map[string]*fileSum{}
	var order []*fileSum
	for _, l := range lines {
		s := sums[l.File]
		if s == nil {
			s = &fileSum{path: l.File}
			sums[l.File] = s
			order = append(order, s)
		}
		s.total += figure(l)
		s.lines = append(s.lines, l)
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].total > order[j].total })
	if len(order) > opts.Files {
		page.More = fmt.Sprintf("%s with counted lines not shown (the %d hottest are)",
			numfmt.Count(len(order)-opts.Files, "more file", "more files"), opts.Files)
		order = order[:opts.Files]
	}
	ids := map[string]string{}
	for i, s := range order {
		ids[s.path] = "f" + strconv.Itoa(i+1)
	}
	anchor := func(file string, line int) string {
		if id := ids[file]; id != "" {
			return id + "-L" + strconv.Itoa(line)
		}
		return ""
	}
	for _, l := range lines {
		if len(page.Hot) == opts.Top {
			break
		}
		page.Hot = append(page.Hot, sourceHot{
			Anchor: anchor(l.File, l.Line), Where: shortPath(l.File) + ":" + strconv.Itoa(l.Line),
			Functions: strings.Join(l.Functions, ", "), Count: count(figure(l)), Percent: pct(figure(l)),
			Heat: heat(figure(l), hottest),
		})
	}
	for _, s := range order {
		counted := map[int]SourceLine{}
		last := 0
		for _, l := range s.lines {
			counted[l.Line] = l
			last = max(last, l.Line)
		}
		f := &sourceFile{ID: ids[s.path], Path: s.path, Total: count(s.total), Percent: pct(s.total)}
		text, err := readSource(s.path)
		switch {
		case err == nil:
			f.Found, f.Lines = true, max(len(text), last)
		case errors.Is(err, os.ErrNotExist):
			f.NotFound = "source not found at " + s.path + " (the path the PDB recorded; a path-mapped or moved build): its counted lines' figures only"
			f.Lines = last
		default:
			f.NotFound = "source not readable: " + err.Error() + ": its counted lines' figures only"
			f.Lines = last
		}
		row := func(n int) sourceRow {
			r := sourceRow{Line: n, Anchor: f.ID + "-L" + strconv.Itoa(n)}
			if n <= len(text) {
				r.Text = text[n-1]
			}
			if l, ok := counted[n]; ok {
				r.Counted = true
				r.Count, r.Percent, r.Heat = count(figure(l)), pct(figure(l)), heat(figure(l), hottest)
				r.Functions = strings.Join(l.Functions, ", ")
			}
			return r
		}
		shown := visibleLines(f.Found, f.Lines, s.lines)
		prev := 0
		for _, n := range shown {
			if n > prev+1 {
				f.Rows = append(f.Rows, sourceRow{Gap: "⋯ lines " + strconv.Itoa(prev+1) + "–" + strconv.Itoa(n-1)})
			}
			f.Rows = append(f.Rows, row(n))
			prev = n
		}
		if f.Found && prev < f.Lines {
			f.Rows = append(f.Rows, sourceRow{Gap: "⋯ lines " + strconv.Itoa(prev+1) + "–" + strconv.Itoa(f.Lines)})
		}
		f.Strip = strip(f, s.lines, figure, hottest, page.Unit)
		page.Files = append(page.Files, f)
	}
	return sourceTemplate.Execute(w, page)
}

// visibleLines are the line numbers a file's table shows: a found file up to
// sourceFullFile lines whole, a longer one its counted lines with
// sourceContext lines around each; a file not found its counted lines.
func visibleLines(found bool, n int, counted []SourceLine) []int {
	var out []int
	if found && n <= sourceFullFile {
		for i := 1; i <= n; i++ {
			out = append(out, i)
		}
		return out
	}
	ctx := 0
	if found {
		ctx = sourceContext
	}
	show := map[int]bool{}
	for _, l := range counted {
		for i := max(1, l.Line-ctx); i <= l.Line+ctx && i <= max(n, l.Line); i++ {
			show[i] = true
		}
	}
	for i := range show {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

// strip is a file's bird's-eye view: the whole file as a column of
// stripMaxHeight pixels at most (two per line where it fits), each
// counted line a mark as hot as its figure, at least 2 pixels tall.
func strip(f *sourceFile, lines []SourceLine, figure func(SourceLine) int64, hottest int64, unit string) sourceStrip {
	n := max(f.Lines, 1)
	h := min(stripMaxHeight, max(n*3, 60))
	per := float64(h) / float64(n)
	s := sourceStrip{Height: h}
	sorted := append([]SourceLine(nil), lines...)
	// Cooler marks first, so a hot line drawn over a cool neighbour shows.
	sort.Slice(sorted, func(i, j int) bool { return figure(sorted[i]) < figure(sorted[j]) })
	for _, l := range sorted {
		s.Marks = append(s.Marks, stripMark{
			Anchor: f.ID + "-L" + strconv.Itoa(l.Line),
			Y:      math.Round(float64(l.Line-1)*per*10) / 10, H: math.Max(2, math.Round(per*10)/10),
			Heat:  heat(figure(l), hottest),
			Title: fmt.Sprintf("line %d: %s %s", l.Line, count(figure(l)), unit),
		})
	}
	return s
}

func sourceSubtitle(p *profile.Profile, samples bool, all int64, lines []SourceLine) string {
	var counted int64
	for _, l := range lines {
		if samples {
			counted += l.Samples
		} else {
			counted += l.Executions
		}
	}
	if samples {
		return fmt.Sprintf("%s on %s (%s of the profile's %s; the rest in code without a line: no PDB, runtime stubs, callers' frames)",
			numfmt.Count(int(counted), "sample", "samples"), numfmt.Count(len(lines), "line", "lines"),
			numfmt.Share(float64(counted), float64(all)), count(all))
	}
	return fmt.Sprintf("%s executions counted on %s (instrumentation: exact, each line as often as its most executed sequence point)",
		count(counted), numfmt.Count(len(lines), "line", "lines"))
}

// readSource is a file's lines, or an error (os.ErrNotExist when it is not
// there: a path-mapped build's /_/… path, or sources moved since the build).
func readSource(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		out = append(out, strings.ReplaceAll(strings.TrimSuffix(sc.Text(), "\r"), "\t", "    "))
	}
	return out, sc.Err()
}

// heat is the background of a line whose figure is n of the hottest's:
// pale yellow through orange to a light red, by the square root of the fraction so
// a line with a few percent of the hottest's still shows. A hex colour, as
// html/template lets into a style attribute.
func heat(n, hottest int64) string {
	if n <= 0 || hottest <= 0 {
		return ""
	}
	stops := [3][3]float64{{255, 246, 210}, {253, 174, 97}, {242, 96, 72}} // dark text stays readable on the hottest
	f := math.Sqrt(float64(n)/float64(hottest)) * 2
	a, b := stops[0], stops[1]
	if f > 1 {
		a, b, f = stops[1], stops[2], f-1
	}
	var c [3]int
	for i := range c {
		c[i] = int(math.Round(a[i] + (b[i]-a[i])*f))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

// count is n with thousands separators: 1,234,567.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + count(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// shortPath is a file's last two path elements: src/Program.cs.
func shortPath(p string) string {
	parts := strings.Split(p, "/")
	if len(parts) > 2 {
		return strings.Join(parts[len(parts)-2:], "/")
	}
	return p
}
