package reports

import (
	"fmt"
	"golang.org/x/perf/benchfmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"vbench/internal/modes"
	"vbench/internal/numfmt"
	"vbench/internal/results"
)

// What the whole program pays: each cell's measures besides its time
// (results.Measure), as every output shows them.

// MeasuresOf lists the measures any cell of cells recorded, in
// results.Measures order: a column per measure, none for one nobody has.
func MeasuresOf(cells []*results.Cell) []results.Measure {
	var out []results.Measure
	for _, m := range results.Measures {
		if m.Window() { // the attach table's (attach.go)
			continue
		}
		for _, c := range cells {
			if c.Metrics[m] != nil {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// MeasureText is one measure of a cell in a few words: its median, its
// difference from the none cell with the interval, and the mark of its
// verdict where it was judged and changed: "92.00MiB +34.00MiB [+30.0MiB,
// +38.0MiB] ▲ regressed". "" where the cell did not record it.
func MeasureText(c *results.Cell, m results.Measure) string {
	ms := c.Metrics[m]
	if ms == nil {
		return ""
	}
	s := numfmt.Quantity(ms.Median, m.Unit())
	if c.Mode != modes.None && (ms.Diff != 0 || ms.DiffLo != 0 || ms.DiffHi != 0) {
		s += " " + numfmt.Diff(ms.Diff, ms.DiffLo, ms.DiffHi, m.Unit())
	}
	switch ms.Verdict {
	case results.VerdictRegressed, results.VerdictImproved, results.VerdictInconclusive:
		s += " " + ms.Verdict.Mark()
	}
	return s
}

// MeasureRows is the whole-program table of cells: a row per cell, a
// column per measure any cell recorded.
func MeasureRows(cells []*results.Cell) (header []string, rows [][]string) {
	ms := MeasuresOf(cells)
	if len(ms) == 0 {
		return nil, nil
	}
	header = []string{"cell"}
	for _, m := range ms {
		header = append(header, string(m))
	}
	for _, c := range cells {
		row := []string{c.Key()}
		for _, m := range ms {
			row = append(row, orNA(MeasureText(c, m)))
		}
		rows = append(rows, row)
	}
	return header, rows
}

// MeasuresTitle heads the whole-program table in every format.
const MeasuresTitle = "Whole program (median; change over the none mode with its 95% interval; cpu and wall: exec to exit, start-up, shutdown and the profile's writing included)"

// writeMeasures writes the whole-program table as aligned text.
func writeMeasures(w io.Writer, cells []*results.Cell) {
	header, rows := MeasureRows(cells)
	writeTitledTable(w, MeasuresTitle, header, rows)
}

// writeTitledTable writes a table under its title as aligned text; nothing
// for a table without a header (nothing to show).
func writeTitledTable(w io.Writer, title string, header []string, rows [][]string) {
	if header == nil {
		return
	}
	fmt.Fprintf(w, "\n%s\n", title)
	tab := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tab, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tab, strings.Join(r, "\t"))
	}
	tab.Flush()
}

// writeMeasuresMarkdown writes the whole-program table in Markdown.
func writeMeasuresMarkdown(w io.Writer, cells []*results.Cell) error {
	header, rows := MeasureRows(cells)
	return writeTitledMarkdown(w, MeasuresTitle, header, rows)
}

// writeTitledMarkdown writes a table under its title in Markdown; nothing
// for a table without a header.
func writeTitledMarkdown(w io.Writer, title string, header []string, rows [][]string) error {
	if header == nil {
		return nil
	}
	fmt.Fprintf(w, "\n%s\n\n", mdEscape(title))
	for _, r := range rows {
		for i := range r {
			r[i] = mdEscape(r[i])
		}
	}
	return WriteMarkdownTable(w, header, rows)
}

// fileCells is every cell of f, in file order.
func fileCells(f *results.File) []*results.Cell {
	out := make([]*results.Cell, len(f.Results))
	for i := range f.Results {
		out[i] = &f.Results[i]
	}
	return out
}

// resultCells is every result cell of the matrix, row by row.
func (m *Matrix) resultCells() []*results.Cell {
	var out []*results.Cell
	for _, c := range m.Cells() {
		if c.Cell != nil {
			out = append(out, c.Cell)
		}
	}
	return out
}

// MeasureRegression names a cell's regressed measures and their change:
// "rss +95.37MiB (×1.90)"; "" when none regressed.
func MeasureRegression(c *results.Cell) string {
	var parts []string
	for _, m := range results.Measures {
		ms := c.Metrics[m]
		if ms == nil || ms.Verdict != results.VerdictRegressed || ms.Compare == nil {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s)", m, numfmt.Signed(ms.Median-ms.Compare.BaselineMedianNs, m.Unit()), numfmt.Multiple(ms.Compare.Ratio)))
	}
	return strings.Join(parts, ", ")
}

// MeasureCharts draws, for RSS and start-up, one bar per (workload,
// mode) cell: its median, grouped by workload, with the 95% interval as
// whiskers; nil for a measure no cell recorded.
func MeasureCharts(m *Matrix) ([]*Chart, error) {
	var out []*Chart
	for _, ms := range []results.Measure{results.MeasureRSS, results.MeasureStartup} {
		ch, err := measureChart(m, ms)
		if err != nil {
			return nil, err
		}
		if ch != nil {
			out = append(out, ch)
		}
	}
	return out, nil
}

func measureChart(m *Matrix, ms results.Measure) (*Chart, error) {
	scale, unit := 1.0, ""
	switch ms.Unit() {
	case "B":
		scale, unit = 1<<20, "MiB"
	case "ns":
		scale, unit = 1e6, "ms"
	}
	const w, h = 720, 260
	p := newPlot()
	p.Y.Label.Text = fmt.Sprintf("%s (median, %s)", ms, unit)
	p.NominalX(m.Workloads...)
	groupW := vg.Points((w - 80) / float64(len(m.Workloads)))
	barW := min(groupW*0.8/vg.Length(max(len(m.Modes), 1)), 40)
	hi, any := 0.0, false
	for j, mode := range m.Modes {
		off := (vg.Length(j) - vg.Length(len(m.Modes)-1)/2) * barW
		for i, wl := range m.Workloads {
			c := m.Cell(wl, mode)
			if c == nil || c.Cell == nil || c.Cell.Metrics[ms] == nil {
				continue
			}
			s := c.Cell.Metrics[ms]
			y := s.Median / scale
			if err := addBar(p, float64(i), off, y, barW, m.ModeColor(mode)); err != nil {
				return nil, err
			}
			top := y
			if s.Lo > 0 && s.Hi > 0 {
				p.Add(&whisker{x: float64(i), off: off, lo: s.Lo / scale, hi: s.Hi / scale, capW: barW / 3})
				top = s.Hi / scale
			}
			p.Add(label(plotter.XY{X: float64(i), Y: top}, numfmt.Quantity(s.Median, ms.Unit()), off, vg.Points(3), inkColor))
			hi, any = math.Max(hi, top), true
		}
	}
	if !any {
		return nil, nil
	}
	p.Y.Min, p.Y.Max = 0, hi*1.15
	p.X.Min, p.X.Max = -0.5, float64(len(m.Workloads))-0.5
	id := "measure-" + strings.ReplaceAll(string(ms), "_", "-") + "-chart"
	svg, err := render(p, w, h+fitXLabels(p, m.Workloads, w-80), id, "chart measure-chart", fmt.Sprintf("%s per workload and mode, bars with 95%% interval whiskers", ms))
	if err != nil {
		return nil, err
	}
	title := map[results.Measure]string{results.MeasureRSS: "Peak memory (RSS) per workload and mode", results.MeasureStartup: "Start-up (exec to Main) per workload and mode"}[ms]
	return &Chart{ID: id, Title: title, SVG: svg}, nil
}

// WholeProgramTable is the whole-program table for the HTML report; nil
// when no cell recorded a measure.
type WholeProgramTable struct {
	Title  string
	Header []string
	Rows   [][]string
}

// WholeProgram is the matrix's whole-program table (MeasureRows).
func (m *Matrix) WholeProgram() *WholeProgramTable {
	header, rows := MeasureRows(m.resultCells())
	if header == nil {
		return nil
	}
	return &WholeProgramTable{Title: MeasuresTitle, Header: header, Rows: rows}
}

// measureCSVHeader is the CSV's columns of every measure, after the
// others (columns are only ever added at the end): median, multiple over
// none, difference from none with its interval, and verdict.
func measureCSVHeader() []string {
	var h []string
	for _, m := range results.Measures {
		u := m.Unit()
		if u == "" {
			u = "count"
		} else if u == "B" {
			u = "bytes"
		}
		name := string(m)
		if m == results.MeasureCPU || m == results.MeasureWall {
			name = "process_" + name // wall_median_ns is the cell's own column
		}
		h = append(h, name+"_median_"+u, name+"_overhead", name+"_diff_"+u, name+"_diff_lo_"+u, name+"_diff_hi_"+u, name+"_verdict")
	}
	return h
}

// measureCSVRow is c's values of measureCSVHeader's columns, empty where
// the cell did not record the measure.
func measureCSVRow(c *results.Cell, num func(float64) string) []string {
	var row []string
	for _, m := range results.Measures {
		ms := c.Metrics[m]
		if ms == nil {
			row = append(row, "", "", "", "", "", "")
			continue
		}
		opt := func(x float64) string {
			if x == 0 {
				return ""
			}
			return num(x)
		}
		row = append(row, num(ms.Median), opt(ms.Overhead), opt(ms.Diff), opt(ms.DiffLo), opt(ms.DiffHi), string(ms.Verdict))
	}
	return row
}

// measureBenchValues are a run's measures as Go benchmark values, each
// in its unit ("startup-ns/op", "gc-count", "alloc-B"): those the run
// recorded, besides the wall, user, sys and max-rss values every run has.
func measureBenchValues(r *results.Run) []benchfmt.Value {
	unit := map[results.Measure]string{
		results.MeasureStartup: "startup-ns/op", results.MeasureGCCount: "gc-count", results.MeasureGCPause: "gc-pause-ns/op",
		results.MeasureAllocBytes: "alloc-B", results.MeasureProfileBytes: "profile-B", results.MeasureProfilerMem: "profiler-mem-B",
	}
	var out []benchfmt.Value
	for _, m := range results.Measures {
		u := unit[m]
		if u == "" {
			continue // cpu, wall, rss: written already
		}
		if v, ok := m.Of(r); ok {
			out = append(out, benchfmt.Value{Value: v, Unit: u})
		}
	}
	return out
}
