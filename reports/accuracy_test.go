package reports

import (
	"bytes"
	"strings"
	"testing"

	"vbench/internal/results"
)

// The accuracy table puts every scored mode side by side: coverage, the
// largest share error, ✗ where a share fell outside its interval; modes
// and workloads nothing scored are left out.
func TestAccuracyTable(t *testing.T) {
	cov := &results.Coverage{Found: 6, Of: 7}
	cells := []*results.Cell{
		{Workload: "split", Mode: "none"},
		{Workload: "split", Mode: "sampling", Coverage: cov, Shares: []results.ShareCheck{
			{Function: "A", Expected: 0.25, Measured: 0.26, Samples: 100, Pass: true},
			{Function: "B", Expected: 0.75, Measured: 0.74, Samples: 100, Pass: true}}},
		{Workload: "split", Mode: "eventpipe", Shares: []results.ShareCheck{
			{Function: "A", Expected: 0.25, Measured: 0.4, Samples: 100},
			{Function: "B", Expected: 0.75, Measured: 0.6, Samples: 100}}},
		{Workload: "fib", Mode: "eventpipe", Coverage: cov},
		{Workload: "quiet", Mode: "eventpipe", Shares: []results.ShareCheck{{Function: "A", Expected: 1}}},
	}
	header, rows := AccuracyRows(cells)
	want := [][]string{{"split", "6/7 · 0.010", "— · 0.150 ✗"}, {"fib", "—", "6/7"}, {"quiet", "—", "— · unmeasured ✗"}}
	if strings.Join(header, ",") != "workload,sampling,eventpipe" || len(rows) != len(want) {
		t.Fatalf("header %q, rows %q", header, rows)
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d: %q, want %q", i, rows[i], want[i])
		}
	}
	var b bytes.Buffer
	writeAccuracy(&b, cells)
	if !strings.HasPrefix(b.String(), "\n"+AccuracyTitle+"\n") {
		t.Errorf("text table:\n%s", b.String())
	}
	b.Reset()
	writeAccuracy(&b, cells[:1])
	if b.Len() != 0 {
		t.Errorf("a file without scored cells has an accuracy table:\n%s", b.String())
	}
}
