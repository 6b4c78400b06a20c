package reports

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"strings"
	"vbench/internal/safetext"

	"github.com/olekukonko/tablewriter/tw"

	"vbench/internal/machine"
	"vbench/internal/modes"
	"vbench/internal/numfmt"
	"vbench/internal/results"
)

// Markdown writes the report as GitHub-flavoured Markdown fit for a
// pull-request comment or a job summary: the headline, what regressed or
// failed, the compact overhead matrix, and every cell's numbers folded in a
// <details> block.
func Markdown(w io.Writer, files []*results.File, opts Options) error {
	return renderFiles(w, files, opts, (*Matrix).WriteMarkdown)
}

// WriteMarkdown writes the matrix as Markdown does.
func (m *Matrix) WriteMarkdown(w io.Writer) error {
	ew := m.begin(w, markdownHead)

	changed := append(m.WithVerdict(results.VerdictRegressed), m.WithVerdict(results.VerdictImproved)...)
	if len(changed) > 0 {
		if m.AB {
			// A/B: each cell against a mode of its own run (--against's OLD
			// build), possibly also some against a baseline.
			fmt.Fprintf(ew, "**Changed**\n\n")
		} else {
			fmt.Fprintf(ew, "**Changed** against `%s`\n\n", m.BaselineName)
		}
		var rows [][]string
		for _, c := range changed {
			ov := ""
			if ch := c.Compare; ch.BaselineOverhead != 0 && c.Mode != modes.None {
				ov = numfmt.Multiple(ch.BaselineOverhead) + " → " + numfmt.Multiple(c.Overhead)
			}
			change := numfmt.Change(c.Compare.Ratio)
			if c.TimeMoved() { // only a significant change is highlighted
				change = "**" + change + "**"
			}
			if ch := c.Compare; ch.AB() && (ch.RatioLo != 0 || ch.RatioHi != 0) {
				change += " " + numfmt.Range(numfmt.Change(ch.RatioLo), numfmt.Change(ch.RatioHi))
			}
			if m.AB {
				change += " " + ChangeBasis(c.Compare) // rows may mix A/B pairs and baselines
			}
			row := []string{c.Verdict.Emoji() + " " + mdEscape(strings.Join(c.Moved(), ", ")), mdCode(c.Key())}
			if m.AB {
				row = append(row, mdCode(c.Versus(m.BaselineName)))
			}
			rows = append(rows, append(row, Value(c.Metric, c.Compare.BaselineMedianNs), Value(c.Metric, c.MedianNs),
				change, numfmt.P(c.Compare.P), ov))
		}
		if m.AB {
			ew.Table([]string{"", "cell", "against", "then (median)", "now (median)", "change [95% CI]", "p", "overhead"}, rows, Center, Left, Left, Right, Right, Right, Right, Right)
		} else {
			ew.Table([]string{"", "cell", "baseline (median)", "now (median)", "change (fast-half means)", "p", "overhead"}, rows, Center, Left, Right, Right, Right, Right, Right)
		}
		fmt.Fprintln(ew)
		listed := false
		for _, c := range changed {
			if r := MeasureRegression(c.Cell); r != "" {
				fmt.Fprintf(ew, "- %s regressed: %s\n", mdCode(c.Key()), mdEscape(r))
				listed = true
			}
		}
		if listed {
			fmt.Fprintln(ew)
		}
		writeWhy(ew, changed)
	}
	if failed := m.WithVerdict(results.VerdictFailed); len(failed) > 0 {
		fmt.Fprintf(ew, "**Failed**\n\n")
		var rows [][]string
		for _, c := range failed {
			rows = append(rows, []string{c.Verdict.Emoji(), mdCode(c.Key()),
				mdEscape(c.failureReason()), fmt.Sprintf("%d of %d", c.Runs, c.Attempts())})
		}
		ew.Table([]string{"", "cell", "why", "runs that succeeded"}, rows, Center, Left, Left, Right)
		fmt.Fprintln(ew)
	}

	marked := ""
	if len(m.WithVerdict(results.VerdictRegressed))+len(m.WithVerdict(results.VerdictImproved)) > 0 {
		// The mark is the cell's verdict on its time: a program's own
		// regression marks an overhead that did not change.
		marked = "; a mark and ▲/▼ are the cell's verdict and the change of its time, not of its overhead"
	}
	fmt.Fprintf(ew, "**Overhead** (median %s over the none mode's, 95%% interval%s)\n\n", m.MetricPhrase(), marked)
	header := append([]string{"workload"}, m.ModeNames()...)
	align := []tw.Align{Left}
	var rows [][]string
	for _, wl := range m.Workloads {
		row := []string{mdEscape(m.WorkloadLabel(wl))}
		for _, mode := range m.Modes {
			c := m.Cell(wl, mode)
			s := c.matrixText()
			if c != nil && c.Verdict.Emoji() != "" && c.Verdict != results.VerdictFailed {
				s = c.Verdict.Emoji() + " " + s
			}
			row = append(row, mdEscape(s))
		}
		rows = append(rows, row)
	}
	for range m.Modes {
		align = append(align, Right)
	}
	ew.Table(header, rows, align...)
	fmt.Fprintln(ew)
	if ct := m.CostTable(); ct.Modes != nil {
		fmt.Fprintf(ew, "**Cost per event** (median %s minus the none mode's, per call or per sample taken, 95%% interval)\n\n", m.MetricPhrase())
		header := []string{"workload"}
		align := []tw.Align{Left}
		for _, mode := range ct.Modes {
			header, align = append(header, string(mode)), append(align, Right)
		}
		var rows [][]string
		for _, r := range ct.Rows {
			row := []string{mdEscape(r.Workload)}
			for _, s := range r.Costs {
				row = append(row, mdEscape(cmp.Or(CostText(s), numfmt.Missing)))
			}
			rows = append(rows, row)
		}
		ew.Table(header, rows, align...)
		fmt.Fprintln(ew)
		if n := ct.Noise(); n != "" {
			fmt.Fprintf(ew, "%s\n\n", mdEscape(n))
		}
	}
	if header, rows := MeasureRows(m.resultCells()); header != nil {
		fmt.Fprintf(ew, "**Whole program** (%s)\n\n", mdEscape(strings.TrimPrefix(strings.TrimSuffix(MeasuresTitle, ")"), "Whole program (")))
		for _, r := range rows {
			for i := range r {
				r[i] = mdEscape(r[i])
			}
		}
		ew.Table(header, rows)
		fmt.Fprintln(ew)
	}
	if header, rows := AttachRows(m.resultCells()); header != nil {
		fmt.Fprintf(ew, "**Attach**: %s\n\n", mdEscape(strings.TrimPrefix(AttachTitle, "Attach: ")))
		for _, r := range rows {
			for i := range r {
				r[i] = mdEscape(r[i])
			}
		}
		ew.Table(header, rows)
		fmt.Fprintln(ew)
	}
	if header, rows := AccuracyRows(m.resultCells()); header != nil {
		fmt.Fprintf(ew, "**Accuracy** (%s)\n\n", mdEscape(strings.TrimPrefix(strings.TrimSuffix(AccuracyTitle, ")"), "Accuracy (")))
		ew.Table(header, rows)
		fmt.Fprintln(ew)
	}
	if defs := m.ModeDefinitions(); defs != nil {
		var parts []string
		for _, d := range defs {
			parts = append(parts, mdCode(string(d.Mode))+" "+mdEscape(d.Description))
		}
		fmt.Fprintf(ew, "<sub>Modes: %s</sub>\n\n", strings.Join(parts, " · "))
	}

	cells := m.Cells()
	fmt.Fprintf(ew, "<details><summary>All %d cells (median: %s)</summary>\n\n", len(cells), mdEscape(m.MetricMeaning()))
	rows = nil
	for _, c := range cells {
		row := c.AbsoluteRow()
		for i := range row {
			row[i] = mdEscape(row[i])
		}
		row[0] = mdCode(c.Key())
		rows = append(rows, row)
	}
	ew.Table(absoluteHeader, rows, Left, Right, Right, Right, Right, Right, Right, Right, Right, Right, Right, Right, Right, Left)
	if m.HasBaselineChanges() {
		fmt.Fprintf(ew, "\n<sub>%s</sub>\n", mdEscape(BaselineNote))
	}
	for _, l := range m.LoadLines() {
		fmt.Fprintf(ew, "\n<sub>load %s</sub>\n", mdEscape(l))
	}
	fmt.Fprintf(ew, "\n</details>\n")
	return ew.Err()
}

var markdownHead = head{
	title:       "### vbench · suite %[1]s — %[2]s\n\n<sub>%[3]s<br>%[4]s</sub>\n\n",
	warnings:    "> [!WARNING]\n",
	warning:     "> %s<br>\n",
	endWarnings: "\n",
	escape:      mdEscape,
	name:        mdCode,
}

// mdEscape keeps text from breaking a Markdown table row or turning into
// markup: a program's stderr or method names cannot link, embed an image,
// mention anyone or forge a line in a pull-request comment.
func mdEscape(s string) string { return safetext.Markdown(s) }

// mdCode is s as inline code inside a table cell, whatever backticks,
// pipes or newlines it holds.
func mdCode(s string) string { return safetext.Code(s) }

// FingerprintLine is the machine fingerprint in one line.
func FingerprintLine(f machine.Fingerprint) string {
	var parts []string
	add := func(s string) {
		if strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	add(f.CPUModel)
	if f.Cores > 0 {
		add(fmt.Sprintf("%d cores", f.Cores))
	}
	add(f.OS)
	if f.Kernel != "" {
		add("kernel " + f.Kernel)
	}
	if f.DotnetRuntime != "" {
		add(".NET " + f.DotnetRuntime)
	}
	if f.Governor != "" {
		add("governor " + f.Governor)
	}
	if f.VbenchCommit != "" {
		c := f.VbenchCommit
		if f.VbenchDirty {
			c += "+dirty"
		}
		add("vbench " + c)
	}
	add(f.Hostname)
	return strings.Join(parts, " · ")
}

// AppendStepSummary appends the Markdown report to the file named by
// GITHUB_STEP_SUMMARY, as GitHub Actions job summaries expect; it does
// nothing when the variable is unset.
func AppendStepSummary(files []*results.File, opts Options) error {
	path := os.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	var b strings.Builder
	if err := Markdown(&b, files, opts); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	// One write: the summary is appended whole or not at all as far as a
	// concurrent step writing the same file can tell.
	if _, err := f.WriteString(b.String() + "\n"); err != nil {
		f.Close()
		return fmt.Errorf("GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	return nil
}

// writeWhy lists, under the changed cells, the functions each changed A/B
// pair's profiles say the change went to (its explain).
func writeWhy(w io.Writer, changed []*Cell) {
	started := false
	for _, c := range changed {
		if !Explained(c.Verdict, c.Compare) {
			continue
		}
		if !started {
			fmt.Fprintf(w, "**Why** (%s)\n\n", ExplainBasisOf(c.Compare))
			started = true
		}
		fmt.Fprintf(w, "- %s:\n", mdCode(c.Key()))
		names := ExplainNames(c.Compare.Explain)
		for i, f := range c.Compare.Explain {
			fmt.Fprintf(w, "  - %s %s\n", mdCode(names[i]), mdEscape(ContributionText(c.Compare.ExplainUnit, f)))
		}
		if u := UnnamedText(c.Compare); u != "" {
			fmt.Fprintf(w, "  - not named: %s\n", mdEscape(u))
		}
		if l := LaunchText(c.Compare); l != "" {
			fmt.Fprintf(w, "  - %s\n", mdEscape(l))
		}
	}
	if started {
		fmt.Fprintln(w)
	}
}
