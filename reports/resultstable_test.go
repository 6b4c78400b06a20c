package reports

import (
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
)

func TestResultsSummaryAndColumns(t *testing.T) {
	f := &results.File{Results: []results.Cell{
		{Workload: "a", Mode: modes.None, Verdict: results.VerdictSame, Runs: 10, MedianNs: 412.3e6, CILoNs: 400e6, CIHiNs: 420e6},
		{Workload: "a", Mode: modes.Tracing, Verdict: results.VerdictRegressed, Runs: 10, MedianNs: 1.2369e9, CILoNs: 1.2e9, CIHiNs: 1.3e9,
			Overhead: 3, OverheadLo: 2.9, OverheadHi: 3.1, Accuracy: &results.Accuracy{Checked: 4, Exact: 4}},
		{Workload: "b", Mode: modes.None, Verdict: results.VerdictFailed, Failure: "boom"},
		{Workload: "c", Mode: modes.Sampling, Runs: 2, MedianNs: 2e6, Overhead: 121.4, Outliers: 1},
	}}
	// c never got a verdict and has runs: new; a cell without runs and
	// without a verdict would be "not run".
	if got := ResultsSummary(f); got != "1 regressed, 1 failed, 1 same, 1 new" {
		t.Errorf("ResultsSummary = %q", got)
	}
	header, rows := ResultsRows(f)
	if strings.Join(header, "|") != "workload|mode|runs|median (elapsed) ± 95% CI|overhead [95% CI]|accuracy|verdict" {
		t.Errorf("header %q", header)
	}
	want := [][]string{
		{"a", "none", "10", "412.3ms ± 3%", "-", "-", "same"},
		{"a", "tracing", "10", "1.237s ± 5%", "×3.00 [2.90, 3.10]", "4/4 exact", "regressed: elapsed"},
		{"b", "none", "0", "-", "-", "-", "failed"},
		{"c", "sampling", "2 (1 out)", "2.000ms ± ∞", "×121 ± ∞", "-", "-"},
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d:\n got %q\nwant %q", i, rows[i], want[i])
		}
	}
	var b strings.Builder
	if err := ResultsTable(&b, f); err != nil || !strings.Contains(b.String(), "FAILED b/none: boom") {
		t.Errorf("table:\n%s", b.String())
	}
}

// The change columns: p-values as benchstat prints them, a baseline median
// of 0 has no ratio. A change against a baseline shows the baseline's
// median (and overhead) it is measured from, and its header names the
// estimate, which is not the ratio of the medians: `compare` used to print
// "121.9ms ± 7%  +14.8%" for medians 115.7 → 121.9 ms (+5.4%) and never the
// 115.7 ms.
func TestResultsChangeColumns(t *testing.T) {
	f := &results.File{Results: []results.Cell{
		{Workload: "a", Mode: modes.None, Runs: 8, MedianNs: 1.2e6, CILoNs: 1.2e6, CIHiNs: 1.2e6, Verdict: results.VerdictRegressed,
			Compare: &results.Change{BaselineMedianNs: 1e6, Ratio: 1.2, P: 0.00016}},
		{Workload: "a", Mode: modes.Tracing, Runs: 8, MedianNs: 3e6, CILoNs: 3e6, CIHiNs: 3e6, Overhead: 2.5, OverheadLo: 2.5, OverheadHi: 2.5,
			Verdict: results.VerdictSame, Compare: &results.Change{BaselineMedianNs: 2.9e6, BaselineOverhead: 2.6, Ratio: 1.0345, P: 0.012, OverheadRatio: 0.9996, OverheadP: 0.5}},
		{Workload: "z", Mode: modes.None, Runs: 8, MedianNs: 1e6, CILoNs: 1e6, CIHiNs: 1e6, Verdict: results.VerdictSame,
			Compare: &results.Change{P: 0.002}},
	}}
	header, rows := ResultsRows(f)
	if got := strings.Join(header, "|"); got != "workload|mode|runs|median (elapsed) ± 95% CI|overhead [95% CI]|baseline|vs baseline (fast-half means)|overhead vs base|verdict" {
		t.Errorf("header %q", got)
	}
	want := [][]string{
		{"a", "none", "8", "1.200ms ± 0%", "-", "1.000ms", "+20.0% (p<0.001)", "-", "regressed: elapsed"},
		{"a", "tracing", "8", "3.000ms ± 0%", "×2.50 [2.50, 2.50]", "2.900ms ×2.60", "+3.4% (p=0.012)", "+0.0% (p=0.500)", "same"},
		{"z", "none", "8", "1.000ms ± 0%", "-", "0s", "from 0 (p=0.002)", "-", "same"},
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d:\n got %q\nwant %q", i, rows[i], want[i])
		}
	}
	if legend := strings.Join(Legend(f), "\n"); !strings.Contains(legend, "baseline: the baseline's median (and overhead multiple) the change is measured from; vs baseline (and overhead vs base): the change of the fast-half means, the mean of each side's faster half of runs, which the verdict tests; not the ratio of the medians shown") {
		t.Errorf("the legend does not say what vs baseline is:\n%s", legend)
	}
}

// The Markdown results table goes through the one Markdown table writer and
// keeps a "|" in a workload's name from breaking its row.
func TestResultsMarkdown(t *testing.T) {
	f := &results.File{Results: []results.Cell{
		{Workload: "a|b", Mode: modes.None, Runs: 6, MedianNs: 1e6, CILoNs: 1e6, CIHiNs: 1e6, Verdict: results.VerdictNew},
	}}
	var b strings.Builder
	if err := ResultsMarkdown(&b, f); err != nil {
		t.Fatal(err)
	}
	want := "| workload | mode | runs | median (elapsed) ± 95% CI | verdict |\n" +
		"|:---------|:-----|:-----|:--------------------------|:--------|\n" +
		"| a\\|b     | none | 6    | 1.000ms ± 0%              | new     |\n" +
		"\n- ± X%: the median's 95% interval (distribution-free, as benchstat's), its farther end as a share of the median\n" +
		"- new: nothing to judge the cell against (no baseline for it, --no-baseline, the none mode, which --against has no twin of, or a pair whose other side failed)\n" +
		"- 1 new\n"
	if b.String() != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", b.String(), want)
	}
}

// A sampling cell's coverage alone opens the accuracy column; CSV has its numbers.
func TestCoverageColumn(t *testing.T) {
	f := &results.File{Results: []results.Cell{
		{Workload: "a", Mode: modes.None},
		{Workload: "a", Mode: modes.Sampling, Coverage: &results.Coverage{Found: 6, Of: 7, Missing: []string{"X"}}},
	}}
	header, rows := ResultsRows(f)
	if header[len(header)-2] != "accuracy" || rows[1][len(header)-2] != "6/7 found" || rows[0][len(header)-2] != "-" {
		t.Errorf("header %q rows %q", header, rows)
	}
	var b strings.Builder
	if err := ResultsCSV(&b, f); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if !strings.Contains(lines[0], ",coverage_found,coverage_of,") || !strings.Contains(lines[2], ",6,7,") {
		t.Errorf("csv:\n%s", b.String())
	}
}

// A sampling cell's share checks show beside its coverage ("1/2 shares, 6/7
// found"), and CSV has their counts in the last two columns.
func TestSharesColumn(t *testing.T) {
	f := &results.File{Results: []results.Cell{
		{Workload: "a", Mode: modes.None},
		{Workload: "a", Mode: modes.Sampling, Coverage: &results.Coverage{Found: 6, Of: 7},
			Shares: []results.ShareCheck{{Function: "A", Pass: true}, {Function: "B"}}},
		{Workload: "b", Mode: modes.Sampling, Shares: []results.ShareCheck{{Function: "A", Pass: true}, {Function: "B", Pass: true}}},
	}}
	header, rows := ResultsRows(f)
	acc := len(header) - 2
	if header[acc] != "accuracy" || rows[1][acc] != "1/2 shares, 6/7 found" || rows[2][acc] != "2/2 shares" || rows[0][acc] != "-" {
		t.Errorf("header %q rows %q", header, rows)
	}
	var b strings.Builder
	if err := ResultsCSV(&b, f); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	// Later columns may follow (columns are only ever added at the end).
	if !strings.Contains(lines[0], ",metric,shares_checked,shares_passed") || !strings.Contains(lines[1], ",elapsed,,") ||
		!strings.Contains(lines[2], ",elapsed,2,1") || !strings.Contains(lines[3], ",elapsed,2,2") {
		t.Errorf("csv:\n%s", b.String())
	}
}
