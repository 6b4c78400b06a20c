package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"vbench/internal/machine"
	"vbench/internal/modes"
	"vbench/internal/numfmt"
	"vbench/internal/results"
)

// Options shape a results report. Its verdicts are the newest file's, as
// stored or as the command judged them (`vbench report --baseline` hands
// over the file judged against its baseline: verdict.Judged).
type Options struct {
	// Names label the files of a history (usually their paths), in order.
	Names []string
	// DiffFlame, when set, draws an A/B pair's differential flame graph
	// under its why in the HTML report.
	DiffFlame DiffFlame
}

// Matrix is the model every results renderer draws: table 7.1 as a grid of
// workloads × modes over the newest file, with its history.
type Matrix struct {
	Files   []*results.File // in the order given; the last is the one reported
	Names   []string        // labels of Files
	Current *results.File

	Workloads []string     // rows, in the order of the newest file
	Modes     []modes.Mode // columns: the run's modes in report order, then any others seen
	// Metrics are the workloads' metrics, each once, in row order: one
	// for most suites, which the report then names once.
	Metrics []results.Metric

	BaselineName string   // what verdicts refer to ("" when there is none)
	Against      string   // the OLD build of an A/B run (--against), else ""
	AB           bool     // some cell was judged against another mode of its run
	Warnings     []string // from the file, plus fingerprint or suite mismatches found here
	// Kept are the files a run kept of its cells' profiles (speedscope,
	// timelines, pprof), with links relative to the page; set by the
	// caller, who knows where both are.
	Kept []KeptFiles
	// DiffFlame draws an A/B pair's differential flame graph (Options).
	DiffFlame DiffFlame

	cells map[cellKey]*Cell
}

type cellKey struct {
	workload string
	mode     modes.Mode
}

// Cell is one (workload, mode) cell of the newest file with its verdict.
type Cell struct {
	*results.Cell
	Verdict results.Verdict // "" when nothing was compared
	Compare *results.Change // against the baseline or (A/B) another mode, when there is one
}

// Versus names what the cell was judged against: for an A/B verdict the
// other cell of its own run, by what tells the two apart (the mode of a
// pair of modes, the workload of a pair of workloads), else the baseline
// (its name).
func (c *Cell) Versus(baselineName string) string {
	if old, _ := c.Cell.Sides(); old != "" {
		return old
	}
	return baselineName
}

// Failed reports whether the workload failed in this cell.
func (c *Cell) Failed() bool { return c.Verdict == results.VerdictFailed || c.Failure != "" }

// HasOverhead reports whether the cell has an overhead multiple to show: it
// is not the none mode itself, and the suite has a none cell to divide by.
func (c *Cell) HasOverhead() bool { return c.Mode != modes.None && c.Overhead > 0 }

// Key is "workload/mode", the name a cell goes by in every output.
func (c *Cell) Key() string { return c.Cell.Key() }

// NewMatrix builds the model from one or more results files, oldest first.
func NewMatrix(files []*results.File, opts Options) (*Matrix, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no results files")
	}
	m := &Matrix{
		Files:     files,
		Names:     opts.Names,
		Current:   files[len(files)-1],
		DiffFlame: opts.DiffFlame,
		cells:     map[cellKey]*Cell{},
	}
	for len(m.Names) < len(files) {
		m.Names = append(m.Names, fmt.Sprintf("#%d", len(m.Names)+1))
	}
	cur := m.Current
	m.Modes = modes.Order(cur.Settings.Modes)
	m.Warnings = append(slices.Clone(cur.Warnings), ComplexityVerdicts(cur)...)
	if cur.Partial {
		m.Warnings = append(m.Warnings, "partial run: it was interrupted, some cells may be missing or hold fewer runs")
	}
	for i := range cur.Results {
		c := &cur.Results[i]
		if !slices.Contains(m.Workloads, c.Workload) {
			m.Workloads = append(m.Workloads, c.Workload)
		}
		if !slices.Contains(m.Modes, c.Mode) {
			m.Modes = append(m.Modes, c.Mode)
		}
		if !slices.Contains(m.Metrics, c.Metric.OrDefault()) {
			m.Metrics = append(m.Metrics, c.Metric.OrDefault())
		}
		cell := &Cell{Cell: c, Verdict: c.Verdict, Compare: c.Compare}
		m.AB = m.AB || c.Compare.AB()
		if c.Failure != "" {
			cell.Verdict = results.VerdictFailed
		}
		m.cells[cellKey{c.Workload, c.Mode}] = cell
	}
	// Keep only modes that have cells: a suite may list modes a shard skipped.
	m.Modes = slices.DeleteFunc(m.Modes, func(mode modes.Mode) bool {
		for _, w := range m.Workloads {
			if m.cells[cellKey{w, mode}] != nil {
				return false
			}
		}
		return true
	})
	m.BaselineName = cur.Baseline
	m.Against = cur.Settings.Against
	if m.BaselineName == "" {
		// Compared with nothing, every cell is "new": marking each says nothing.
		for _, c := range m.cells {
			if c.Verdict == results.VerdictNew {
				c.Verdict = ""
			}
		}
	}
	for i, f := range files[:len(files)-1] {
		if f.Suite.Name != cur.Suite.Name {
			m.Warnings = append(m.Warnings, fmt.Sprintf("history: %s is from suite %q, not %q", m.Names[i], f.Suite.Name, cur.Suite.Name))
		}
		for _, d := range machine.Mismatch(f.Machine, cur.Machine) {
			m.Warnings = append(m.Warnings, fmt.Sprintf("history: %s ran on another machine (%s)", m.Names[i], d))
		}
		for _, wl := range m.Workloads {
			if was, now := f.Metric(wl), cur.Metric(wl); hasWorkload(f, wl) && was != now {
				m.Warnings = append(m.Warnings, fmt.Sprintf("history: %s measured %s by %s, this run by %s: its trend mixes metrics", m.Names[i], wl, was, now))
			}
		}
	}
	return m, nil
}

// hasWorkload reports whether f has a cell of workload w.
func hasWorkload(f *results.File, w string) bool {
	return slices.ContainsFunc(f.Results, func(c results.Cell) bool { return c.Workload == w })
}

// MetricOf is the metric of workload w's cells.
func (m *Matrix) MetricOf(w string) results.Metric { return m.Current.Metric(w) }

// MetricPhrase names what the medians are in a report's prose: "wall time",
// or, when workloads differ, "each workload's metric".
func (m *Matrix) MetricPhrase() string {
	if len(m.Metrics) == 1 {
		return m.Metrics[0].Phrase()
	}
	return "each workload's metric"
}

// MetricMeaning says what the medians measure, for a table's caption:
// "wall time, the process's start to exit".
func (m *Matrix) MetricMeaning() string {
	if len(m.Metrics) == 1 {
		return m.Metrics[0].Phrase() + ", " + m.Metrics[0].Meaning()
	}
	return "each workload's metric, named after it"
}

// WorkloadLabel is a workload's row label: its name, and its metric when
// the workloads' metrics differ ("plain (wall)").
func (m *Matrix) WorkloadLabel(w string) string {
	if len(m.Metrics) > 1 {
		return w + " (" + string(m.MetricOf(w)) + ")"
	}
	return w
}

// ModeDefinition is one mode and what it loads, for a report's legend.
type ModeDefinition struct {
	Mode        modes.Mode
	Description string
}

// ModeDefinitions lists what each mode loads when the run has modes its
// suite defined (nil otherwise: the built-in modes need no legend).
func (m *Matrix) ModeDefinitions() []ModeDefinition {
	custom := false
	for _, mode := range m.Modes {
		custom = custom || !mode.Builtin()
	}
	if !custom {
		return nil
	}
	var out []ModeDefinition
	for _, mode := range m.Modes {
		sp := m.Current.ModeSpec(mode)
		out = append(out, ModeDefinition{mode, sp.Description()})
	}
	return out
}

// renderFiles builds the matrix of files and draws it with one renderer.
func renderFiles(w io.Writer, files []*results.File, opts Options, draw func(*Matrix, io.Writer) error) error {
	m, err := NewMatrix(files, opts)
	if err != nil {
		return err
	}
	return draw(m, w)
}

// Cell returns the cell of workload w in mode, or nil.
func (m *Matrix) Cell(w string, mode modes.Mode) *Cell { return m.cells[cellKey{w, mode}] }

// Cells returns every cell, row by row.
func (m *Matrix) Cells() []*Cell {
	var out []*Cell
	for _, w := range m.Workloads {
		for _, mode := range m.Modes {
			if c := m.Cell(w, mode); c != nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// WithVerdict returns the cells whose verdict is v, row by row.
func (m *Matrix) WithVerdict(v results.Verdict) []*Cell {
	var out []*Cell
	for _, c := range m.Cells() {
		if c.Verdict == v {
			out = append(out, c)
		}
	}
	return out
}

// HistoryOf returns the cell of (w, mode) in each file, nil where missing.
func (m *Matrix) HistoryOf(w string, mode modes.Mode) []*results.Cell {
	out := make([]*results.Cell, len(m.Files))
	for i, f := range m.Files {
		for j := range f.Results {
			if c := &f.Results[j]; c.Workload == w && c.Mode == mode {
				out[i] = c
			}
		}
	}
	return out
}

// Counts tallies verdicts over the cells.
func (m *Matrix) Counts() map[results.Verdict]int {
	n := map[results.Verdict]int{}
	for _, c := range m.Cells() {
		n[c.Verdict]++
	}
	return n
}

// CountsByWord is Counts keyed by each verdict's word, for templates.
func (m *Matrix) CountsByWord() map[string]int {
	n := map[string]int{}
	for v, k := range m.Counts() {
		n[string(v)] = k
	}
	return n
}

// Headline is the one-line verdict of the report: "1 regression, 1 failure,
// 1 improvement, 8 same, 1 new" (nothing compared: "12 cells, no baseline").
func (m *Matrix) Headline() string {
	n := m.Counts()
	cells := len(m.Cells())
	var parts []string
	for _, v := range []results.Verdict{results.VerdictRegressed, results.VerdictFailed, results.VerdictImproved, results.VerdictSame,
		results.VerdictInconclusive, results.VerdictNew, results.VerdictNotRun, results.VerdictReference} {
		if n[v] > 0 {
			parts = append(parts, v.Count(n[v]))
		}
	}
	if m.BaselineName == "" && !m.AB {
		s := numfmt.Count(cells, "cell", "cells") + ", no baseline"
		if f := n[results.VerdictFailed]; f > 0 {
			s += fmt.Sprintf(", %d failed", f)
		}
		return s
	}
	if len(parts) == 0 {
		return numfmt.Count(cells, "cell", "cells")
	}
	return strings.Join(parts, ", ")
}

// ModeNames are the matrix's columns as text.
func (m *Matrix) ModeNames() []string {
	out := make([]string, len(m.Modes))
	for i, mode := range m.Modes {
		out[i] = string(mode)
	}
	return out
}
