package reports

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// AccuracyTitle heads the accuracy table: every profiler's profile scored
// against the workloads' ground truth, vbench's engines and any mode that
// names its own profile (EventPipe's trace, another profiler's pprof) alike.
const AccuracyTitle = "Accuracy (coverage: hot methods of the tracing cell the profile saw; share error: largest |measured - declared| of the workload's share.* functions, ✗ outside its 99% interval)"

// LargestShareError is the largest distance between a measured and a
// declared share of a cell's checks, and whether it is measured at all (no
// check, or no sample in the declared functions).
func LargestShareError(checks []results.ShareCheck) (float64, bool) {
	worst, ok := 0.0, false
	for _, s := range checks {
		if s.Samples > 0 {
			worst, ok = max(worst, math.Abs(s.Measured-s.Expected)), true
		}
	}
	return worst, ok
}

// AccuracyRows is the accuracy table of cells: a row per workload, a column
// per mode whose profile was scored for coverage or shares (nil header when
// none was), each "coverage · share error".
func AccuracyRows(cells []*results.Cell) (header []string, rows [][]string) {
	var ms []modes.Mode
	var wls []string
	at := map[string]*results.Cell{}
	for _, c := range cells {
		if c.Coverage == nil && len(c.Shares) == 0 {
			continue
		}
		if !slices.Contains(ms, c.Mode) {
			ms = append(ms, c.Mode)
		}
		if !slices.Contains(wls, c.Workload) {
			wls = append(wls, c.Workload)
		}
		at[c.Workload+"\x00"+string(c.Mode)] = c
	}
	if len(ms) == 0 {
		return nil, nil
	}
	ms = modes.Order(ms)
	header = append([]string{"workload"}, modes.List(ms))
	header = append(header[:1], strings.Split(header[1], ", ")...)
	for _, w := range wls {
		row := []string{w}
		for _, m := range ms {
			row = append(row, accuracyCell(at[w+"\x00"+string(m)]))
		}
		rows = append(rows, row)
	}
	return header, rows
}

// accuracyCell is one cell of the accuracy table: "7/7 · 0.012", "3/3",
// "— · 0.041 ✗"; "—" for a cell not run or not scored.
func accuracyCell(c *results.Cell) string {
	if c == nil || (c.Coverage == nil && len(c.Shares) == 0) {
		return "—"
	}
	cov := "—"
	if c.Coverage != nil {
		cov = fmt.Sprintf("%d/%d", c.Coverage.Found, c.Coverage.Of)
	}
	if len(c.Shares) == 0 {
		return cov
	}
	e, ok := LargestShareError(c.Shares)
	if !ok {
		return cov + " · unmeasured ✗"
	}
	s := fmt.Sprintf("%s · %.3f", cov, e)
	for _, sh := range c.Shares {
		if !sh.Pass {
			return s + " ✗"
		}
	}
	return s
}

// writeAccuracy writes the accuracy table as aligned text.
func writeAccuracy(w io.Writer, cells []*results.Cell) {
	header, rows := AccuracyRows(cells)
	writeTitledTable(w, AccuracyTitle, header, rows)
}

// Accuracy is the matrix's accuracy table for the HTML report; nil when no
// cell's profile was scored for coverage or shares.
func (m *Matrix) Accuracy() *WholeProgramTable {
	header, rows := AccuracyRows(m.resultCells())
	if header == nil {
		return nil
	}
	return &WholeProgramTable{Title: AccuracyTitle, Header: header, Rows: rows}
}
