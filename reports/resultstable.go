package reports

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"vbench/internal/safetext"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// The results table is what `vbench run`, `compare`, `merge` and `baseline
// update` print: one row per cell of one results file (like benchstat and
// hyperfine), as aligned text, Markdown or CSV, or the JSON file itself
// (the formats table, markdown, csv and json of Formats).

// ResultsJSON writes the whole results file, raw samples included.
func ResultsJSON(w io.Writer, f *results.File) error {
	b, err := results.Marshal(f)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// ResultsRows are the results table's cells as text, one row per results
// cell (CellRow, with the cell's own verdict). The median's header names the
// metric ("median (wall) ± 95% CI"), or a metric column does when the
// workloads' metrics differ.
//
// A cell judged against another mode of its run (an A/B pair: --against's
// OLD build, a suite's against:) shows its change in the A/B column, a cell
// judged against a baseline in the vs-baseline column. The profiler's cost
// per event (summary.Fill) and an A/B pair's change per event have columns
// only when some cell has one.
func ResultsRows(f *results.File) (header []string, rows [][]string) {
	hasBase, hasAB, hasAcc, hasOver, hasCost, hasCostAB, hasLoad := false, false, false, false, false, false, false
	metrics := map[string]bool{}
	var cells []CellRow
	for i := range f.Results {
		c := &f.Results[i]
		r := NewCellRow(c, c.Verdict, c.Compare)
		cells = append(cells, r)
		hasBase = hasBase || (r.Versus != "" && !r.AB)
		hasAB = hasAB || r.AB
		hasAcc = hasAcc || r.Accuracy != ""
		hasOver = hasOver || c.Mode != modes.None
		hasCost = hasCost || r.Cost != ""
		hasCostAB = hasCostAB || r.CostChange != ""
		hasLoad = hasLoad || r.Load != ""
		metrics[r.Metric] = true
	}
	header = []string{"workload", "mode"}
	median := "median ± 95% CI"
	if len(metrics) > 1 {
		header = append(header, "metric")
	} else if len(cells) > 0 {
		median = "median (" + cells[0].Metric + ") ± 95% CI"
	}
	header = append(header, "runs", median)
	if hasLoad {
		header = append(header, "load (medians)")
	}
	if hasOver {
		header = append(header, "overhead [95% CI]")
	}
	if hasCost {
		header = append(header, "cost/event [95% CI]")
	}
	if hasBase {
		// The baseline's own numbers, then the change the verdict tests,
		// named: it is not the ratio of the two medians (Legend).
		header = append(header, "baseline", "vs baseline ("+BaselineBasis+")")
		if hasOver {
			header = append(header, "overhead vs base")
		}
	}
	if hasAB {
		header = append(header, "A/B [95% CI]")
	}
	if hasCostAB {
		header = append(header, "A/B per event")
	}
	if hasAcc {
		header = append(header, "accuracy")
	}
	header = append(header, "verdict")
	for _, r := range cells {
		row := []string{r.Workload, r.Mode}
		if len(metrics) > 1 {
			row = append(row, r.Metric)
		}
		runs := r.Runs
		if r.Outliers != "" {
			runs += " (" + r.Outliers + " out)"
		}
		row = append(row, runs, orNA(r.MedianSpread))
		if hasLoad {
			row = append(row, orNA(r.Load))
		}
		if hasOver {
			row = append(row, orNA(r.Overhead))
		}
		if hasCost {
			row = append(row, orNA(r.Cost))
		}
		base, ab := cmp.Or(r.FromZero, r.Versus), r.Versus
		if r.AB {
			base = ""
		} else {
			ab = ""
		}
		if hasBase {
			row = append(row, orNA(r.Baseline), orNA(base))
			if hasOver {
				row = append(row, orNA(r.OverheadVersus))
			}
		}
		if hasAB {
			row = append(row, orNA(ab))
		}
		if hasCostAB {
			row = append(row, orNA(r.CostChange))
		}
		if hasAcc {
			row = append(row, orNA(r.Accuracy))
		}
		rows = append(rows, append(row, orNA(r.VerdictText)))
	}
	return header, rows
}

// orNA is a results-table column's text, or "-" where the column does not
// apply to the cell (no overhead for the none mode, no baseline to compare
// with, no verdict).
func orNA(s string) string { return cmp.Or(s, "-") }

// ResultsTable writes the aligned text table, then failures, warnings and a summary.
func ResultsTable(w io.Writer, f *results.File) error {
	sw := safetext.NewWriter(w)
	defer sw.Flush()
	w = sw
	header, rows := ResultsRows(f)
	var buf bytes.Buffer
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenRows: tw.Off, BetweenColumns: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithTrimSpace(tw.Off),
	)
	t.Header(header)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	if _, err := w.Write(withExplains(buf.Bytes(), f)); err != nil {
		return err
	}
	writeMeasures(w, fileCells(f))
	writeAttach(w, fileCells(f))
	writeAccuracy(w, fileCells(f))
	return notes(w, f, "")
}

// withExplains puts each changed A/B pair's explain on a line under its
// row of the rendered table (the header's line, then one line per row). A
// table whose rows did not render one line each keeps its lines, and the
// explains follow it.
func withExplains(table []byte, f *results.File) []byte {
	var under []string
	for i := range f.Results {
		c := &f.Results[i]
		if Explained(c.Verdict, c.Compare) {
			under = append(under, fmt.Sprintf("    why %s: %s", c.Key(), ExplainText(c.Compare, ExplainShown)))
		} else {
			under = append(under, "")
		}
	}
	if strings.Join(under, "") == "" {
		return table
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(table), "\n"), "\n")
	var b strings.Builder
	if len(lines) != len(under)+1 {
		b.Write(table)
		for _, u := range under {
			if u != "" {
				b.WriteString(u + "\n")
			}
		}
		return []byte(b.String())
	}
	for i, l := range lines {
		b.WriteString(strings.TrimSuffix(l, "\n") + "\n")
		if i > 0 && under[i-1] != "" {
			b.WriteString(under[i-1] + "\n")
		}
	}
	return []byte(b.String())
}

// ResultsMarkdown writes the results table as GitHub-flavoured Markdown.
func ResultsMarkdown(w io.Writer, f *results.File) error {
	header, rows := ResultsRows(f)
	for _, row := range rows {
		for i := range row {
			row[i] = mdEscape(row[i])
		}
	}
	if err := WriteMarkdownTable(w, header, rows); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for i := range f.Results {
		if c := &f.Results[i]; Explained(c.Verdict, c.Compare) {
			fmt.Fprintf(w, "- why %s: %s\n", mdCode(c.Key()), mdEscape(ExplainText(c.Compare, ExplainShown)))
		}
	}
	if err := writeMeasuresMarkdown(w, fileCells(f)); err != nil {
		return err
	}
	if err := writeAttachMarkdown(w, fileCells(f)); err != nil {
		return err
	}
	return notes(w, f, "- ")
}

// notes prints failures, warnings and the summary line under a table.
func notes(w io.Writer, f *results.File, bullet string) error {
	for _, c := range f.Results {
		if c.Failed() {
			fmt.Fprintf(w, "%sFAILED %s: %s\n", bullet, c.Key(), c.Failure)
		}
	}
	for _, warn := range f.Warnings {
		fmt.Fprintf(w, "%swarning: %s\n", bullet, warn)
	}
	if f.Partial {
		fmt.Fprintf(w, "%swarning: partial results: the run was interrupted\n", bullet)
	}
	for _, line := range Legend(f) {
		fmt.Fprintf(w, "%s%s\n", bullet, line)
	}
	for _, line := range append(StopLines(f), ComplexityLines(f)...) {
		fmt.Fprintf(w, "%s%s\n", bullet, line)
	}
	_, err := fmt.Fprintf(w, "%s%s\n", bullet, ResultsSummary(f))
	return err
}

// StopLines say why each A/B pair's rounds stopped (results.Cell.Stopped),
// the pairs that stopped for the same reason on one line:
// "stopped, decided at its planned 10 rounds: same (…): fib/tracing, split/tracing".
func StopLines(f *results.File) []string {
	var reasons []string
	cells := map[string][]string{}
	for _, c := range f.Results {
		if c.Stopped == "" {
			continue
		}
		if cells[c.Stopped] == nil {
			reasons = append(reasons, c.Stopped)
		}
		cells[c.Stopped] = append(cells[c.Stopped], c.Key())
	}
	var out []string
	for _, r := range reasons {
		out = append(out, fmt.Sprintf("stopped, %s: %s", r, strings.Join(cells[r], ", ")))
	}
	return out
}

// ResultsSummary is the one-line tally, e.g. "2 regressed, 1 failed, 14 same",
// ending with File.UndecidedSentence when the run decided too little.
func ResultsSummary(f *results.File) string {
	counts := f.Counts()
	var parts []string
	for _, v := range results.Verdicts {
		if n := counts[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
			delete(counts, v)
		}
	}
	var rest []results.Verdict
	for v := range counts {
		rest = append(rest, v)
	}
	slices.Sort(rest)
	for _, v := range rest {
		parts = append(parts, fmt.Sprintf("%d %s", counts[v], v))
	}
	if len(parts) == 0 {
		return "no cells"
	}
	if u := f.UndecidedSentence(); u != "" {
		return strings.Join(parts, ", ") + "; " + u
	}
	return strings.Join(parts, ", ")
}

// ResultsCSV writes one row per cell with raw numbers (nanoseconds, ratios);
// median_ns and its interval are the cell's metric (the metric column); an
// interval too few runs give none of is empty.
// Columns are only ever added at the end.
func ResultsCSV(w io.Writer, f *results.File) error {
	cw := csv.NewWriter(w)
	cw.Write(append([]string{"workload", "mode", "runs", "median_ns", "ci_lo_ns", "ci_hi_ns", "mad_ns",
		"overhead", "overhead_lo", "overhead_hi", "wall_median_ns", "user_median_ns", "sys_median_ns",
		"max_rss_median_bytes", "outliers", "baseline_median_ns", "ratio", "ratio_lo", "ratio_hi", "p", "against",
		"overhead_ratio", "overhead_p", "calls_checked", "calls_exact", "coverage_found", "coverage_of", "verdict", "failure", "metric",
		"shares_checked", "shares_passed",
		"calls_per_run", "cost_per_call_ns", "cost_per_call_lo_ns", "cost_per_call_hi_ns",
		"samples_per_run", "cost_per_sample_ns", "cost_per_sample_lo_ns", "cost_per_sample_hi_ns",
		"change_per_call_ns", "change_per_call_lo_ns", "change_per_call_hi_ns",
		"change_per_sample_ns", "change_per_sample_lo_ns", "change_per_sample_hi_ns",
		"against_workload"}, measureCSVHeader()...))
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	// An interval that does not exist (too few runs) is empty, as any
	// other number that does not apply: "0,0" read as the interval [0, 0].
	interval := func(lo, hi float64) (string, string) {
		if lo == 0 && hi == 0 {
			return "", ""
		}
		return num(lo), num(hi)
	}
	for _, c := range f.Results {
		ciLo, ciHi := interval(c.CILoNs, c.CIHiNs)
		ovLo, ovHi := interval(c.OverheadLo, c.OverheadHi)
		row := []string{c.Workload, string(c.Mode), strconv.Itoa(c.Runs), num(c.MedianNs), ciLo, ciHi, num(c.MADNs),
			num(c.Overhead), ovLo, ovHi, num(c.WallMedianNs), num(c.UserMedianNs), num(c.SysMedianNs),
			num(c.MaxRSSMedian), strconv.Itoa(c.Outliers)}
		if ch := c.Compare; ch != nil {
			row = append(row, num(ch.BaselineMedianNs), num(ch.Ratio), num(ch.RatioLo), num(ch.RatioHi), num(ch.P), string(ch.Against), num(ch.OverheadRatio), num(ch.OverheadP))
		} else {
			row = append(row, "", "", "", "", "", "", "", "")
		}
		if a := c.Accuracy; a != nil {
			row = append(row, strconv.Itoa(a.Checked), strconv.Itoa(a.Exact))
		} else {
			row = append(row, "", "")
		}
		if cv := c.Coverage; cv != nil {
			row = append(row, strconv.Itoa(cv.Found), strconv.Itoa(cv.Of))
		} else {
			row = append(row, "", "")
		}
		row = append(row, string(c.Verdict), c.Failure, string(c.Metric.OrDefault()))
		if len(c.Shares) > 0 {
			passed := 0
			for _, s := range c.Shares {
				if s.Pass {
					passed++
				}
			}
			row = append(row, strconv.Itoa(len(c.Shares)), strconv.Itoa(passed))
		} else {
			row = append(row, "", "")
		}
		row = append(row, num(c.CallsPerRun), num(c.CostPerCallNs), num(c.CostPerCallLoNs), num(c.CostPerCallHiNs),
			num(c.SamplesPerRun), num(c.CostPerSampleNs), num(c.CostPerSampleLoNs), num(c.CostPerSampleHiNs))
		if ch := c.Compare; ch != nil {
			row = append(row, num(ch.ChangePerCallNs), num(ch.ChangePerCallLoNs), num(ch.ChangePerCallHiNs),
				num(ch.ChangePerSampleNs), num(ch.ChangePerSampleLoNs), num(ch.ChangePerSampleHiNs))
		} else {
			row = append(row, "", "", "", "", "", "")
		}
		againstWorkload := ""
		if c.Compare != nil {
			againstWorkload = c.Compare.AgainstWorkload
		}
		row = append(row, againstWorkload)
		cw.Write(append(row, measureCSVRow(&c, num)...))
	}
	cw.Flush()
	return cw.Error()
}
