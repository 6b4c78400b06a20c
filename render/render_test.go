package render

import (
	"strings"
	"testing"

	"vbench/internal/results"
)

func TestSummaryAndColumns(t *testing.T) {
	f := &results.File{Results: []results.Cell{
		{Workload: "a", Mode: "none", Verdict: results.VerdictSame},
		{Workload: "a", Mode: "tracing", Verdict: results.VerdictRegressed, Overhead: 3, OverheadLo: 2.9, OverheadHi: 3.1, Accuracy: &results.Accuracy{Checked: 4, Exact: 4}},
		{Workload: "b", Mode: "none", Verdict: results.VerdictFailed, Failure: "boom"},
		{Workload: "c", Mode: "none"},
	}}
	if got := Summary(f); got != "1 regressed, 1 failed, 1 same, 1 new" {
		t.Errorf("Summary = %q", got)
	}
	header, rows := Rows(f)
	if strings.Join(header, "|") != "workload|mode|runs|median ± 95% CI|overhead [95% CI]|accuracy|verdict" {
		t.Errorf("header %q", header)
	}
	if rows[1][4] != "×3.00 [2.90, 3.10]" || rows[1][5] != "4/4 exact" || rows[3][6] != "-" {
		t.Errorf("rows %q", rows)
	}
	var b strings.Builder
	if err := Table(&b, f); err != nil || !strings.Contains(b.String(), "FAILED b/none: boom") {
		t.Errorf("table:\n%s", b.String())
	}
}

// A sampling cell's coverage alone opens the accuracy column; CSV has its numbers.
func TestCoverageColumn(t *testing.T) {
	f := &results.File{Results: []results.Cell{
		{Workload: "a", Mode: "none"},
		{Workload: "a", Mode: "sampling", Coverage: &results.Coverage{Found: 6, Of: 7, Missing: []string{"X"}}},
	}}
	header, rows := Rows(f)
	if header[len(header)-2] != "accuracy" || rows[1][len(header)-2] != "6/7 found" || rows[0][len(header)-2] != "-" {
		t.Errorf("header %q rows %q", header, rows)
	}
	var b strings.Builder
	if err := CSV(&b, f); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if !strings.Contains(lines[0], ",coverage_found,coverage_of,") || !strings.Contains(lines[2], ",6,7,") {
		t.Errorf("csv:\n%s", b.String())
	}
}
