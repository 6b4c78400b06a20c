package profileview

import (
	"bytes"
	"io"
	"regexp"

	"vbench/internal/ownfile"
	"vbench/internal/profile"
	"vbench/internal/speedscope"
	"vbench/reports/shared"
)

// Format is one --format value of a profile view and what draws it:
// `vbench show` (and `vbench report PROFILE`, its old spelling) picks one.
type Format struct {
	shared.Format
	// NeedsCalls marks a format that draws calls, which a profile of the
	// null engine (hooks doing nothing) has none of.
	NeedsCalls bool
	Draw       func(io.Writer, View) error
}

// View is what a profile format draws, with the options of either drawing.
type View struct {
	Tree    *profile.Tree    // every process's profile
	Profile *profile.Profile // the one drawn: Tree merged, or the process picked
	Text    ProfileOptions
	Flame   FlameOptions
}

// textHead is the first line of a profile's text view ("profile.json:
// tracing profile of pid 48213 (…)", "prof: sampling profiles of 3
// processes").
var textHead = regexp.MustCompile(`^[^\n]*: [a-z-]+ profiles? of `)

// Formats lists the profile views, the default first.
var Formats = []*Format{
	{
		Format: shared.Format{Name: "text", Exts: []string{".txt", ".text"},
			About: "the top functions and each thread's call tree (the default on stdout)",
			Is:    func(b []byte) bool { return textHead.Match(ownfile.Head(b)) }},
		Draw: func(w io.Writer, v View) error { return TreeText(w, v.Tree, v.Text) },
	},
	{
		// A profile with lines: its source view (source.go).
		Format: shared.Format{Name: "html", Exts: []string{".html", ".htm"},
			About: "a profile taken with --lines: the hot files, each line's samples or executions beside its text",
			Is:    shared.IsHTML},
		Draw: func(w io.Writer, v View) error { return SourceHTML(w, v.Profile, SourceOptions{Top: v.Text.Top}) },
	},
	{
		Format: shared.Format{Name: "svg", Exts: []string{".svg"}, About: "a flame graph",
			Is: func(b []byte) bool { return bytes.Contains(ownfile.Head(b), []byte("<svg")) }},
		NeedsCalls: true,
		Draw:       func(w io.Writer, v View) error { return FlameGraph(w, v.Profile, v.Flame) },
	},
	{
		Format: shared.Format{Name: "speedscope", Exts: []string{speedscope.Ext}, About: "speedscope's JSON",
			Is: func(b []byte) bool { return bytes.Contains(ownfile.Head(b), []byte(speedscope.Schema)) }},
		NeedsCalls: true,
		Draw: func(w io.Writer, v View) error {
			return speedscope.Write(w, speedscope.New("vbench "+string(v.Profile.Mode)+" profile", v.Profile, nil))
		},
	},
}

// FormatNamed is the view named name exactly, or nil.
func FormatNamed(name string) *Format { return shared.Named(Formats, name, false) }

// FormatNames are the names of the views: "text, html, svg, speedscope".
func FormatNames() string { return shared.Names(Formats) }
