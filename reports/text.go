package reports

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"
	"vbench/internal/safetext"

	"vbench/internal/modes"
	"vbench/internal/numfmt"
	"vbench/internal/results"
	"vbench/reports/shared"
)

// Text writes the report as aligned plain text, the default of
// `vbench report RESULTS.json` on a terminal: the headline, the overhead
// matrix, what changed, then every cell's absolute numbers.
func Text(w io.Writer, files []*results.File, opts Options) error {
	return renderFiles(w, files, opts, (*Matrix).WriteText)
}

// WriteText writes the matrix as Text does.
func (m *Matrix) WriteText(w io.Writer) error {
	sw := safetext.NewWriter(w)
	defer sw.Flush()
	w = sw
	ew := m.begin(w, textHead)

	if defs := m.ModeDefinitions(); defs != nil {
		fmt.Fprintf(ew, "\nModes\n")
		tab := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		for _, d := range defs {
			fmt.Fprintf(tab, "  %s\t%s\n", d.Mode, d.Description)
		}
		tab.Flush()
	}

	fmt.Fprintf(ew, "\nOverhead (median %s over the none mode's, 95%% interval)\n", m.MetricPhrase())
	tab := tabwriter.NewWriter(ew, 0, 0, 3, ' ', 0)
	fmt.Fprintf(tab, "workload\t%s\n", strings.Join(m.ModeNames(), "\t"))
	for _, wl := range m.Workloads {
		row := []string{m.WorkloadLabel(wl)}
		for _, mode := range m.Modes {
			row = append(row, m.Cell(wl, mode).matrixText())
		}
		fmt.Fprintln(tab, strings.Join(row, "\t"))
	}
	tab.Flush()

	if ct := m.CostTable(); ct.Modes != nil {
		fmt.Fprintf(ew, "\nCost per event (median %s minus the none mode's, per call or per sample taken, 95%% interval)\n", m.MetricPhrase())
		tab := tabwriter.NewWriter(ew, 0, 0, 3, ' ', 0)
		fmt.Fprintf(tab, "workload\t%s\n", strings.ReplaceAll(modes.List(ct.Modes), ", ", "\t"))
		for _, r := range ct.Rows {
			row := []string{r.Workload}
			for _, s := range r.Costs {
				row = append(row, cmp.Or(CostText(s), "—"))
			}
			fmt.Fprintln(tab, strings.Join(row, "\t"))
		}
		tab.Flush()
		if n := ct.Noise(); n != "" {
			fmt.Fprintln(ew, n)
		}
	}

	writeMeasures(ew, m.resultCells())
	writeAttach(ew, m.resultCells())
	writeAccuracy(ew, m.resultCells())

	writeChanges(ew, m, func(c *Cell) string { return c.Key() })

	fmt.Fprintf(ew, "\nAll cells (median: %s)\n", m.MetricMeaning())
	if m.HasBaselineChanges() {
		fmt.Fprintf(ew, "%s\n", BaselineNote)
	}
	tab = tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	// AlignRight suits numbers; pad the names so they still read left-aligned.
	width := len("cell")
	for _, c := range m.Cells() {
		width = max(width, utf8.RuneCountInString(c.Key()))
	}
	left := func(s string) string { return s + strings.Repeat(" ", width-utf8.RuneCountInString(s)) }
	fmt.Fprintln(tab, left(absoluteHeader[0])+"\t"+strings.Join(absoluteHeader[1:], "\t")+"\t")
	for _, c := range m.Cells() {
		row := c.AbsoluteRow()
		row[0] = left(row[0])
		fmt.Fprintln(tab, strings.Join(row, "\t")+"\t")
	}
	tab.Flush()
	for _, l := range m.LoadLines() {
		fmt.Fprintf(ew, "load %s\n", l)
	}
	return ew.Err()
}

// LoadLines are the service cells' load figures besides their metric, one
// line each: "web/none: 37412 req/s · p50 400.0µs · p99 2.800ms (medians
// over its runs)"; none for a file without services.
func (m *Matrix) LoadLines() []string {
	var out []string
	for _, c := range m.Cells() {
		if l := loadText(c.Cell); l != "" {
			out = append(out, c.Key()+": "+l+" (medians over its runs)")
		}
	}
	return out
}

// head is how a report format writes what every report starts with: the
// suite, the headline, the run in one line, the machine, the warnings.
type head struct {
	// title is a format of suite, headline, subtitle, fingerprint (%[1]s…%[4]s).
	title string
	// warnings opens the warning block, warning formats one, endWarnings closes it.
	warnings, warning, endWarnings string
	escape                         func(string) string
	name                           func(string) string // the suite's name
}

var textHead = head{
	title:   "vbench report · suite %[1]s · %[3]s\n%[2]s\n",
	warning: "warning: %s\n",
	escape:  safetext.Line, // a warning may quote a program
	name:    safetext.Line,
}

// begin writes the head of a report in format h and returns the writer the
// rest of the report goes through (it keeps the first write error).
func (m *Matrix) begin(out io.Writer, h head) *shared.Writer {
	w := shared.NewWriter(out)
	fmt.Fprintf(w, h.title, h.name(m.Current.Suite.Name), m.Headline(), h.escape(m.Subtitle()), h.escape(FingerprintLine(m.Current.Machine)))
	if len(m.Warnings) > 0 {
		io.WriteString(w, h.warnings)
		for _, s := range m.Warnings {
			fmt.Fprintf(w, h.warning, h.escape(s))
		}
		io.WriteString(w, h.endWarnings)
	}
	return w
}

// writeChanges lists regressions, improvements and failures, the part of a
// report a reader looks for first.
func writeChanges(w io.Writer, m *Matrix, name func(*Cell) string) {
	for _, v := range []results.Verdict{results.VerdictRegressed, results.VerdictImproved} {
		cs := m.WithVerdict(v)
		if len(cs) == 0 {
			continue
		}
		if m.AB {
			fmt.Fprintf(w, "\n%s:\n", v.Label())
		} else {
			fmt.Fprintf(w, "\n%s against %s:\n", v.Label(), m.BaselineName)
		}
		for _, c := range cs {
			figures := ""
			if r := MeasureRegression(c.Cell); r != "" && v == results.VerdictRegressed {
				figures = r + "; "
			}
			fmt.Fprintf(w, "  %s  %s: %s%s\n", name(c), strings.Join(c.Moved(), ", "), figures, c.ChangeText())
		}
	}
	if cs := m.WithVerdict(results.VerdictInconclusive); len(cs) > 0 {
		fmt.Fprintf(w, "\nInconclusive (the runs cannot tell no change from the minimum change):\n")
		for _, c := range cs {
			fmt.Fprintf(w, "  %s  %s (medians); %s\n", name(c), c.MediansText(), c.Compare.Reason)
		}
	}
	if cs := m.WithVerdict(results.VerdictFailed); len(cs) > 0 {
		fmt.Fprintf(w, "\nFailed:\n")
		for _, c := range cs {
			fmt.Fprintf(w, "  %s  %s\n", name(c), c.FailureText())
		}
	}
}

// Subtitle is the run's date, duration, settings and baseline in one line.
func (m *Matrix) Subtitle() string {
	f := m.Current
	parts := []string{f.Started.UTC().Format("2006-01-02 15:04 MST")}
	if !f.Finished.IsZero() && f.Finished.After(f.Started) {
		parts = append(parts, "took "+f.Finished.Sub(f.Started).Round(time.Second).String())
	}
	s := f.Settings
	parts = append(parts, fmt.Sprintf("%d runs + %d warmup", s.Runs, s.Warmup))
	var ms []string
	for _, x := range m.Metrics {
		ms = append(ms, string(x))
	}
	if len(ms) == 1 {
		parts = append(parts, "metric "+ms[0])
	} else if len(ms) > 1 {
		parts = append(parts, "metrics "+strings.Join(ms, ", "))
	}
	if f.Shard != nil {
		parts = append(parts, fmt.Sprintf("shard %d/%d", f.Shard.Index, f.Shard.Count))
	}
	if m.BaselineName != "" {
		parts = append(parts, "baseline "+m.BaselineName)
	}
	if m.Against != "" {
		parts = append(parts, "A/B against "+m.Against)
	}
	if wa := f.Settings.WorkloadAgainst; len(wa) > 0 {
		var pairs []string
		for _, w := range slices.Sorted(maps.Keys(wa)) {
			pairs = append(pairs, wa[w]+" → "+w)
		}
		parts = append(parts, "A/B "+strings.Join(pairs, ", "))
	}
	if len(m.Files) > 1 {
		parts = append(parts, fmt.Sprintf("history of %d files", len(m.Files)))
	}
	return strings.Join(parts, " · ")
}

// matrixText is a matrix cell as text: "×121 [119, 123] ▲+9.3%".
func (c *Cell) matrixText() string {
	if c == nil {
		return "—"
	}
	if c.Failed() {
		return "✗ failed"
	}
	s := Value(c.Metric, c.MedianNs)
	if c.HasOverhead() {
		s = numfmt.MultipleCI(c.Overhead, c.OverheadLo, c.OverheadHi)
	}
	mark := map[results.Verdict]string{results.VerdictRegressed: " ▲", results.VerdictImproved: " ▼"}[c.Verdict]
	switch {
	case mark != "" && c.TimeMoved():
		s += mark + numfmt.Change(c.Compare.Ratio)
	case mark != "":
		s += mark + strings.Join(c.Moved(), ", ") // not its time: what did
	case c.Verdict == results.VerdictNew:
		s += " (new)"
	}
	return s
}

// ChangeText says what changed and what the change is measured on: the
// medians a reader sees elsewhere, then the change the verdict was decided
// by, which is not their ratio. An A/B pair's (Paired) is the Hodges–Lehmann
// estimate of the per-round ratio NEW/OLD (stats.JudgePaired):
// "tracing@old 1.52s → tracing 1.60s (medians); change +5.1% [+3.2%, +7.0%] per round (p<0.001); +0.52 ns/call [+0.40, +0.66]"
// (the pair's change per call, when it has one);
// a stored baseline's is the ratio of the fast-half means (stats.Judge):
// "45.4s → 49.7s (medians); change +9.3% in fast-half means (p<0.001); overhead ×111 → ×121".
func (c *Cell) ChangeText() string {
	ch := c.Compare
	if ch == nil {
		return ""
	}
	medians := c.MediansText()
	change := numfmt.Change(ch.Ratio)
	if ch.RatioLo != 0 || ch.RatioHi != 0 {
		change += " " + numfmt.Range(numfmt.Change(ch.RatioLo), numfmt.Change(ch.RatioHi))
	}
	s := fmt.Sprintf("%s (medians); change %s %s (%s)", medians, change, ChangeBasis(ch), numfmt.P(ch.P))
	if !ch.AB() && ch.BaselineOverhead != 0 && c.Mode != modes.None {
		s += fmt.Sprintf("; overhead %s → %s", numfmt.Multiple(ch.BaselineOverhead), numfmt.Multiple(c.Overhead))
	}
	if _, per := costTexts(c.Cell, ch); per != "" {
		s += "; " + per
	}
	return s
}

// MediansText is the two medians a change is between, the reference's
// first: "45.4s → 49.7s", "tracing@old 1.52s → tracing 1.60s".
func (c *Cell) MediansText() string {
	ch := c.Compare
	if old, new := c.Cell.Sides(); old != "" {
		return fmt.Sprintf("%s %s → %s %s", old, Value(c.Metric, ch.BaselineMedianNs), new, Value(c.Metric, c.MedianNs))
	}
	return Value(c.Metric, ch.BaselineMedianNs) + " → " + Value(c.Metric, c.MedianNs)
}

// ChangeBasis names what a change is a ratio of: "per round" for an A/B
// pair judged round by round, "in fast-half means" for a stored baseline
// (the mean of each side's faster half of runs).
func ChangeBasis(ch *results.Change) string {
	if ch.Paired {
		return "per round"
	}
	return "in " + BaselineBasis
}

// BaselineBasis names the estimate a change against a stored baseline is a
// ratio of (stats.Judge): the mean of each side's faster half of runs.
const BaselineBasis = "fast-half means"

// FailureText says why a cell failed and how many runs still succeeded.
func (c *Cell) FailureText() string {
	return fmt.Sprintf("%s (%d of %d measured runs succeeded)", c.failureReason(), c.Runs, c.Attempts())
}

// failureReason is the cell's failure, or else its first failed run's error.
func (c *Cell) failureReason() string {
	if msg := oneLine(c.Failure); msg != "" {
		return msg
	}
	for _, r := range c.Samples {
		if r.Error != "" {
			return oneLine(r.Error)
		}
	}
	return "failed"
}

// absoluteHeader heads the table of absolute numbers, one AbsoluteRow per cell.
var absoluteHeader = []string{"cell", "runs", "median", "95% CI", "MAD", "wall", "user", "sys", "max RSS", "outliers", "accuracy", "vs baseline", "overhead vs base", "verdict"}

// AbsoluteRow is a cell's row in the report's table of absolute numbers:
// the columns of its CellRow that table shows.
func (c *Cell) AbsoluteRow() []string {
	r := c.Row()
	mark := r.Verdict.Mark()
	if moved := c.Moved(); len(moved) > 0 {
		mark += ": " + strings.Join(moved, ", ")
	}
	return []string{
		r.Key, r.Runs, r.Median, r.CI, r.MAD,
		r.Wall, r.User, r.Sys, r.MaxRSS,
		r.Outliers, r.Accuracy, r.Versus, r.OverheadVersus, mark,
	}
}

// oneLine squeezes a multi-line failure message into one line for tables.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
