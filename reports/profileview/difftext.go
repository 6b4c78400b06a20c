package profileview

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"vbench/internal/safetext"

	"vbench/internal/numfmt"
	"vbench/internal/profdiff"
	"vbench/internal/results"
	"vbench/reports/shared"
)

// A profile diff (`vbench diff`) as text, Markdown and JSON: a header
// saying what was compared and the total change, then a row per function,
// largest contribution to the total change first.

// DiffView is what the three formats show.
type DiffView struct {
	Diff     *profdiff.Diff
	Old, New string // what each side is ("3 runs of profiles/fib/tracing")
	Top      int    // rows shown (at least 1)
}

func (v DiffView) value(x float64) string {
	switch v.Diff.Unit {
	case profdiff.Share:
		return numfmt.Percent(x)
	case profdiff.Instructions:
		return instr(x)
	}
	return numfmt.Duration(x)
}

func (v DiffView) change(x float64) string {
	switch v.Diff.Unit {
	case profdiff.Share:
		return numfmt.SignedBy(100*x, func(a float64) string { return fmt.Sprintf("%.2f", a) }) + " pts"
	case profdiff.Instructions:
		return numfmt.SignedBy(x, instr)
	}
	return numfmt.SignedBy(x, numfmt.Duration)
}

// instr is a count of instructions: "33.29M instr".
func instr(x float64) string { return results.FormatCount(x) + " instr" }

// head is the lines above the table.
func (v DiffView) head() []string {
	d := v.Diff
	lines := []string{"OLD: " + v.Old, "NEW: " + v.New}
	if d.Unit == profdiff.Share {
		lines = append(lines, fmt.Sprintf("samples: %.0f in %d %s → %.0f in %d %s; figures are shares of each side's samples (those with a managed frame), change in percentage points; interval and p: a test of two proportions",
			d.OldTotal, d.OldRuns, numfmt.Plural(d.OldRuns, "run", "runs"), d.NewTotal, d.NewRuns, numfmt.Plural(d.NewRuns, "run", "runs")),
			"functions by contribution: the change of their share times the side's CPU time per run, an estimate of their self CPU time (shares alone cannot say where more work went)")
	} else if d.Unit == profdiff.Instructions {
		total := fmt.Sprintf("instructions per run: %s → %s (%s", instr(d.OldTotal), instr(d.NewTotal), numfmt.SignedBy(d.NewTotal-d.OldTotal, instr))
		if d.OldTotal > 0 {
			total += ", " + numfmt.Change(d.NewTotal/d.OldTotal)
		}
		lines = append(lines, total+")", "figures are each function's own instructions (self) and, by path, its calls' (incl), counted under callgrind; code without a symbol or a perf-map name is its file, in brackets")
	} else {
		total := fmt.Sprintf("total self time per run: %s → %s (%s", numfmt.Duration(d.OldTotal), numfmt.Duration(d.NewTotal), numfmt.SignedBy(d.NewTotal-d.OldTotal, numfmt.Duration))
		if d.OldTotal > 0 {
			total += ", " + numfmt.Change(d.NewTotal/d.OldTotal)
		}
		lines = append(lines, total+")")
		basis := fmt.Sprintf("figures are mean time per run over %d old and %d new runs; ", d.OldRuns, d.NewRuns)
		if d.OldRuns < 2 || d.NewRuns < 2 {
			basis += "no interval: it needs two runs a side"
		} else {
			basis += "interval and p: Welch's t over the runs"
		}
		lines = append(lines, basis)
	}
	return lines
}

var diffHeader = []string{"function", "self old", "self new", "change", "95% CI", "p", "incl old", "incl new", "incl change"}

// header is the table's header: the first column names paths in a diff by
// path, and calls per run follow where the profiles count them.
func (v DiffView) header() []string {
	h := append([]string(nil), diffHeader...)
	if v.byPath() {
		h[0] = "path (root → function)"
	}
	if v.calls() {
		h = append(h, "calls/run old", "calls/run new")
	}
	return h
}

func (v DiffView) byPath() bool {
	rows := v.Diff.Top(1)
	return len(rows) > 0 && rows[0].Path != nil
}

// calls reports whether the shown rows know their calls.
func (v DiffView) calls() bool {
	rows := v.Diff.Top(v.Top)
	return len(rows) > 0 && rows[0].HasCalls
}

// DiffName is a row's name: its function, or its path root first.
func DiffName(r profdiff.Row) string {
	if r.Path != nil {
		return safetext.Line(strings.Join(r.Path, " → "))
	}
	return safetext.Line(r.Function)
}

// rows are the table's cells. A change whose interval holds zero says so
// in its p column ("0.41 (not shown)").
func (v DiffView) rows() [][]string {
	var out [][]string
	calls := v.calls()
	for _, r := range v.Diff.Top(v.Top) {
		ci, p := "-", "-"
		if r.HasInterval {
			ci = numfmt.Range(v.change(r.Lo), v.change(r.Hi))
			p = numfmt.P(r.P)
			if r.NotShown() {
				p += " (not shown)"
			}
		}
		row := []string{DiffName(r), v.value(r.Old), v.value(r.New), v.change(r.Change), ci, p,
			v.value(r.OldIncl), v.value(r.NewIncl), v.change(r.InclChange())}
		if calls {
			row = append(row, numfmt.Calls(r.OldCalls), numfmt.Calls(r.NewCalls))
		}
		out = append(out, row)
	}
	return out
}

// DiffText writes the diff as aligned text.
func DiffText(w io.Writer, v DiffView) error {
	sw := safetext.NewWriter(w)
	defer sw.Flush()
	ew := shared.NewWriter(sw)
	for _, l := range v.head() {
		fmt.Fprintln(ew, l)
	}
	fmt.Fprintln(ew)
	rows := v.rows()
	if len(rows) == 0 {
		fmt.Fprintln(ew, "no function's self figure changed")
		return ew.Err()
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(v.header(), "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return ew.Err()
}

// DiffMarkdown writes the diff as GitHub-flavoured Markdown.
func DiffMarkdown(w io.Writer, v DiffView) error {
	ew := shared.NewWriter(w)
	for _, l := range v.head() {
		fmt.Fprintf(ew, "- %s\n", safetext.Markdown(l))
	}
	fmt.Fprintln(ew)
	rows := v.rows()
	for _, r := range rows {
		r[0] = safetext.Code(r[0])
		for i := 1; i < len(r); i++ {
			r[i] = safetext.Markdown(r[i])
		}
	}
	if len(rows) == 0 {
		fmt.Fprintln(ew, "No function's self figure changed.")
		return ew.Err()
	}
	if err := shared.WriteMarkdownTable(ew, v.header(), rows); err != nil {
		return err
	}
	return ew.Err()
}

// DiffJSON is the JSON form of a diff: unit "ns" (mean time per run) or
// "share" (of a side's samples); lo, hi and p only where known.
type DiffJSON struct {
	Unit      string         `json:"unit"`
	Old       string         `json:"old"`
	New       string         `json:"new"`
	OldRuns   int            `json:"old_runs"`
	NewRuns   int            `json:"new_runs"`
	OldTotal  float64        `json:"old_total"` // ns per run, or samples
	NewTotal  float64        `json:"new_total"`
	Level     float64        `json:"level"` // of every interval
	Functions []DiffFunction `json:"functions"`
}

// DiffFunction is one row of DiffJSON.
type DiffFunction struct {
	Function string  `json:"function"`
	Old      float64 `json:"old"` // self
	New      float64 `json:"new"`
	Change   float64 `json:"change"`
	// Contribution orders the functions: Change (ns), or the change of
	// share × CPU time per run, in ns (share; self samples per run for a
	// pprof file, which records no CPU time).
	Contribution float64  `json:"contribution"`
	Lo           *float64 `json:"lo,omitempty"`
	Hi           *float64 `json:"hi,omitempty"`
	P            *float64 `json:"p,omitempty"`
	OldIncl      float64  `json:"old_inclusive"`
	NewIncl      float64  `json:"new_inclusive"`
	InclChange   float64  `json:"inclusive_change"`
	// Path is the call path, root first, in a diff by path (--by path).
	Path []string `json:"path,omitempty"`
	// OldCalls and NewCalls are calls per run (mean), where counted.
	OldCalls *float64 `json:"old_calls,omitempty"`
	NewCalls *float64 `json:"new_calls,omitempty"`
	// NotShown: the interval holds zero.
	NotShown bool `json:"not_shown,omitempty"`
}

// WriteDiffJSON writes the diff as DiffJSON, indented.
func WriteDiffJSON(w io.Writer, v DiffView) error {
	d := v.Diff
	doc := DiffJSON{Unit: string(d.Unit), Old: v.Old, New: v.New, OldRuns: d.OldRuns, NewRuns: d.NewRuns,
		OldTotal: d.OldTotal, NewTotal: d.NewTotal, Level: profdiff.Level, Functions: []DiffFunction{}}
	for _, r := range d.Top(v.Top) {
		f := DiffFunction{Function: r.Function, Old: r.Old, New: r.New, Change: r.Change, Contribution: r.Contribution,
			OldIncl: r.OldIncl, NewIncl: r.NewIncl, InclChange: r.InclChange(), Path: r.Path, NotShown: r.NotShown()}
		if r.HasCalls {
			o, n := r.OldCalls, r.NewCalls
			f.OldCalls, f.NewCalls = &o, &n
		}
		if r.HasInterval && !math.IsNaN(r.P) {
			lo, hi, p := r.Lo, r.Hi, r.P
			f.Lo, f.Hi, f.P = &lo, &hi, &p
		}
		doc.Functions = append(doc.Functions, f)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
