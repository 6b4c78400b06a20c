package render

import (
	"strings"
	"testing"

	"vbench/results"
)

func TestDuration(t *testing.T) {
	for ns, want := range map[float64]string{
		0: "0.000ns", 999: "999.0ns", 1000: "1.000µs", 12345: "12.35µs", 1.5e6: "1.500ms",
		123.4e6: "123.4ms", 2e9: "2.000s", 95e9: "95.00s",
	} {
		if got := Duration(ns); got != want {
			t.Errorf("Duration(%v) = %q, want %q", ns, got, want)
		}
	}
}

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
	if strings.Join(header, "|") != "workload|mode|runs|median ± 95% CI|overhead [95% CI]|call counts|verdict" {
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
