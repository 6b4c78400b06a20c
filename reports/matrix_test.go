package reports

import (
	"slices"
	"strings"
	"testing"

	"vbench/internal/results"
	"vbench/internal/verdict"
)

func TestMatrixShape(t *testing.T) {
	cur := readResults(t, "results.json")
	m, err := NewMatrix([]*results.File{cur}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Rows and columns in the file's order, every cell findable.
	var wantW []string
	for _, c := range cur.Results {
		if !slices.Contains(wantW, c.Workload) {
			wantW = append(wantW, c.Workload)
		}
	}
	if !slices.Equal(m.Workloads, wantW) {
		t.Errorf("workloads %v, want %v", m.Workloads, wantW)
	}
	if !slices.Equal(m.Modes, cur.Settings.Modes) {
		t.Errorf("modes %v, want the settings' %v", m.Modes, cur.Settings.Modes)
	}
	if got := len(m.Cells()); got != len(cur.Results) {
		t.Errorf("%d cells, want %d", got, len(cur.Results))
	}
	for i := range cur.Results {
		c := &cur.Results[i]
		if got := m.Cell(c.Workload, c.Mode); got == nil || got.Cell != c {
			t.Errorf("cell %s/%s not found", c.Workload, c.Mode)
		}
	}
	// Without --baseline, the verdicts are the file's.
	for _, c := range m.Cells() {
		if c.Verdict != c.Cell.Verdict {
			t.Errorf("%s: verdict %q, the file says %q", c.Key(), c.Verdict, c.Cell.Verdict)
		}
	}
}

// Recomputing verdicts against the baseline must agree with the verdicts the
// fixture stores (computed by the same rule when it was made), and the
// headline must count them.
func TestMatrixVerdictsAgainstBaseline(t *testing.T) {
	files := history(t)
	cur := files[len(files)-1]
	m, err := NewMatrix(files, baselineOpts(t, files))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[results.Verdict]int{}
	for _, c := range m.Cells() {
		want := c.Cell.Verdict
		if c.Verdict != want {
			t.Errorf("%s: recomputed verdict %q, the fixture's is %q", c.Key(), c.Verdict, want)
		}
		if want == results.VerdictRegressed || want == results.VerdictImproved {
			if c.Compare == nil || c.Compare.P >= cur.Settings.Alpha {
				t.Errorf("%s: %s without a significant comparison: %+v", c.Key(), want, c.Compare)
			}
		}
		counts[want]++
	}
	// The fixture's story: one of each interesting verdict.
	for v, n := range map[results.Verdict]int{results.VerdictRegressed: 1, results.VerdictImproved: 1, results.VerdictFailed: 1, results.VerdictNew: 1} {
		if counts[v] != n {
			t.Fatalf("fixture has %d %s cells, want %d", counts[v], v, n)
		}
	}
	if got := m.Cell("fibonacci", "tracing").Verdict; got != results.VerdictRegressed {
		t.Errorf("fibonacci/tracing: %s, want regressed", got)
	}
	h := m.Headline()
	for _, w := range []string{"1 regression", "1 failure", "1 improvement", "1 new"} {
		if !strings.Contains(h, w) {
			t.Errorf("headline %q lacks %q", h, w)
		}
	}
}

func TestMatrixWarnsAboutMismatchedBaseline(t *testing.T) {
	base := readResults(t, "baseline.json")
	base.Machine.CPUModel = "AMD EPYC 7763 64-Core Processor"
	base.Suite.Name = "other"
	m, err := NewMatrix([]*results.File{verdict.Judged(base, readResults(t, "results.json"), "b.json")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(m.Warnings, "\n")
	for _, w := range []string{"baseline was measured on a different machine (CPU: AMD EPYC", `suite "other"`} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings %q lack %q", all, w)
		}
	}
}

func TestMatrixPartialRunWarns(t *testing.T) {
	f := readResults(t, "results.json")
	f.Partial = true
	m, err := NewMatrix([]*results.File{f}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(m.Warnings, "\n"), "partial run") {
		t.Errorf("no partial-run warning in %q", m.Warnings)
	}
}

func TestHistoryOfFollowsFileOrder(t *testing.T) {
	files := history(t)
	m, err := NewMatrix(files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := m.HistoryOf("fibonacci", "tracing")
	for i, c := range h {
		if want := cellOf(t, files[i], "fibonacci", "tracing"); c != want {
			t.Errorf("history[%d] is not file %d's cell", i, i)
		}
	}
	// The fixture's fibonacci/tracing gets slower file by file.
	if !(h[0].MedianNs < h[1].MedianNs && h[1].MedianNs < h[2].MedianNs) {
		t.Errorf("medians %v, %v, %v do not rise as the fixture intends", h[0].MedianNs, h[1].MedianNs, h[2].MedianNs)
	}
}

// A run compared with no baseline has every cell "new"; the report marks
// none of them (a job summary of "🆕 … (new)" in every cell says nothing).
func TestMatrixWithoutBaselineMarksNothingNew(t *testing.T) {
	f := readResults(t, "results.json")
	f.Baseline = ""
	for i := range f.Results {
		if f.Results[i].Failure == "" {
			f.Results[i].Verdict, f.Results[i].Compare = results.VerdictNew, nil
		}
	}
	var md strings.Builder
	if err := Markdown(&md, []*results.File{f}, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "🆕") || strings.Contains(md.String(), "(new)") {
		t.Errorf("cells marked new without a baseline:\n%s", md.String())
	}
	if !strings.Contains(md.String(), "12 cells, no baseline, 1 failed") || !strings.Contains(md.String(), "❌") {
		t.Errorf("headline or failure mark missing:\n%s", md.String())
	}
}
