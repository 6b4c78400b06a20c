package reports

import (
	"fmt"
	"io"
	"strings"

	"vbench/internal/numfmt"
	"vbench/internal/results"
	"vbench/stats"
)

// A service mode that attached (modes.AttachPlan): the load's throughput
// and latency in each window of its runs, each attach's spike, and the
// marks of the pooled windows' verdicts (results.Measure.Window).

// AttachTitle heads the attach table in every format.
const AttachTitle = "Attach: the service's load before, during and after each attach (median over the measured runs; a request counts in the window it started in; spike: the requests in flight in the attach's first second)"

// AttachRows is the attach table: a row per window and per attach's spike
// of each cell that attached; nil when none did.
func AttachRows(cells []*results.Cell) (header []string, rows [][]string) {
	for _, c := range cells {
		var loads []*results.AttachLoad
		for _, r := range c.Measured() {
			if r.Service != nil && r.Service.Attach != nil {
				loads = append(loads, r.Service.Attach)
			}
		}
		if len(loads) == 0 {
			continue
		}
		attaches := len(loads[0].Attaches)
		for _, w := range loads[0].Windows {
			kind, _, _ := strings.Cut(w.Name, " ")
			judged := attaches == 1 // one window of its kind: the pooled one's verdict is its own
			rows = append(rows, windowRow(c, w.Name, kind, judged, loads, func(l *results.AttachLoad) *results.Window { return findWindow(l.Windows, w.Name) }))
			if kind == results.WindowDuring {
				rows = append(rows, spikeRow(c, w.Name, loads))
			}
		}
		if attaches > 1 {
			for _, kind := range results.WindowKinds[1:] {
				rows = append(rows, windowRow(c, kind+", pooled", kind, true, loads, func(l *results.AttachLoad) *results.Window { return findWindow(l.Pooled, kind) }))
			}
			if ms := c.Metrics[results.MeasureAttachMax]; ms != nil {
				rows = append(rows, []string{c.Key(), "spike, slowest", "-", "-", "max " + numfmt.Duration(ms.Median) + verdictMark(ms), "-"})
			}
		}
	}
	if rows == nil {
		return nil, nil
	}
	return []string{"cell", "window", "req/s", "p50", "p99", "requests"}, rows
}

// windowRow is one window's medians over loads; judged puts the marks of
// kind's measures' verdicts on its figures.
func windowRow(c *results.Cell, name, kind string, judged bool, loads []*results.AttachLoad, of func(*results.AttachLoad) *results.Window) []string {
	var rps, p50, p99, n []float64
	for _, l := range loads {
		if w := of(l); w != nil && w.Requests > 0 {
			rps, p50, p99, n = append(rps, w.RPS), append(p50, float64(w.P50Ns)), append(p99, float64(w.P99Ns)), append(n, float64(w.Requests))
		}
	}
	row := []string{c.Key(), name, "-", "-", "-", "0"}
	if len(n) == 0 {
		return row
	}
	mark := func(what string) string {
		if !judged {
			return ""
		}
		return verdictMark(c.Metrics[results.Measure(what+"_"+kind)])
	}
	row[2] = fmt.Sprintf("%.0f", stats.Median(rps)) + mark("rps")
	row[3] = numfmt.Duration(stats.Median(p50)) + mark("p50")
	row[4] = numfmt.Duration(stats.Median(p99)) + mark("p99")
	row[5] = fmt.Sprintf("%.0f", stats.Median(n))
	return row
}

// spikeRow is the spike of the attach whose during window is name, and
// how long the attach and the detach took: medians over loads.
func spikeRow(c *results.Cell, name string, loads []*results.AttachLoad) []string {
	var k int
	fmt.Sscanf(strings.TrimPrefix(name, results.WindowDuring+" "), "%d", &k)
	var mx, p99, n, at, de []float64
	for _, l := range loads {
		if k >= 1 && k <= len(l.Attaches) {
			a := l.Attaches[k-1]
			mx, p99, n = append(mx, float64(a.SpikeMaxNs)), append(p99, float64(a.SpikeP99Ns)), append(n, float64(a.SpikeRequests))
			at, de = append(at, float64(a.AttachNs)), append(de, float64(a.DetachNs))
		}
	}
	if len(n) == 0 {
		return []string{c.Key(), fmt.Sprintf("spike %d", k), "-", "-", "-", "0"}
	}
	m := ""
	if len(loads[0].Attaches) == 1 {
		m = verdictMark(c.Metrics[results.MeasureAttachMax])
	}
	return []string{c.Key(), fmt.Sprintf("spike %d", k), "-", "-",
		fmt.Sprintf("%s, max %s%s (attach %s, detach %s)", numfmt.Duration(stats.Median(p99)), numfmt.Duration(stats.Median(mx)), m, numfmt.Duration(stats.Median(at)), numfmt.Duration(stats.Median(de))),
		fmt.Sprintf("%.0f", stats.Median(n))}
}

// verdictMark is " ▲" (or another mark) where ms was judged and changed.
func verdictMark(ms *results.MeasureSummary) string {
	if ms != nil {
		switch ms.Verdict {
		case results.VerdictRegressed, results.VerdictImproved, results.VerdictInconclusive:
			return " " + ms.Verdict.Mark()
		}
	}
	return ""
}

func findWindow(ws []results.Window, name string) *results.Window {
	for i := range ws {
		if ws[i].Name == name {
			return &ws[i]
		}
	}
	return nil
}

// Attach is the matrix's attach table for the HTML report; nil when no
// cell attached.
func (m *Matrix) Attach() *WholeProgramTable {
	header, rows := AttachRows(m.resultCells())
	if header == nil {
		return nil
	}
	return &WholeProgramTable{Title: AttachTitle, Header: header, Rows: rows}
}

// writeAttach writes the attach table as aligned text.
func writeAttach(w io.Writer, cells []*results.Cell) {
	header, rows := AttachRows(cells)
	writeTitledTable(w, AttachTitle, header, rows)
}

// writeAttachMarkdown writes the attach table in Markdown.
func writeAttachMarkdown(w io.Writer, cells []*results.Cell) error {
	header, rows := AttachRows(cells)
	return writeTitledMarkdown(w, AttachTitle, header, rows)
}
