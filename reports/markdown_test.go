package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/results"
)

func renderString(t *testing.T, render func(*strings.Builder) error) string {
	t.Helper()
	var b strings.Builder
	if err := render(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// matrixRow returns the Markdown table row of workload w.
func matrixRow(t *testing.T, md, w string) []string {
	t.Helper()
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| "+w+" |") {
			cells := strings.Split(strings.Trim(line, "| "), " | ")
			return cells
		}
	}
	t.Fatalf("no matrix row for %s in:\n%s", w, md)
	return nil
}

func TestMarkdownMatrixShowsFixtureOverheads(t *testing.T) {
	files := history(t)
	cur := files[2]
	md := renderString(t, func(b *strings.Builder) error { return Markdown(b, files, baselineOpts(t)) })
	header := matrixRow(t, md, "workload")
	for _, w := range []string{"fibonacci", "mandelbrot", "exceptions"} {
		row := matrixRow(t, md, w)
		if len(row) != len(header) {
			t.Fatalf("%s row has %d columns, header %d", w, len(row), len(header))
		}
		for i, mode := range header[1:] {
			c := cellOf(t, cur, w, results.Mode(mode))
			got := row[i+1]
			switch {
			case c.Failure != "":
				if !strings.Contains(got, "failed") {
					t.Errorf("%s/%s: %q, want failed", w, mode, got)
				}
			case mode == "none":
				if !strings.Contains(got, fmtNs(c.MedianNs)) {
					t.Errorf("%s/none: %q lacks the median %s", w, got, fmtNs(c.MedianNs))
				}
			default:
				want := fmtMult(c.Overhead) + " [" + fmtSig(c.OverheadLo) + "–" + fmtSig(c.OverheadHi) + "]"
				if !strings.Contains(got, want) {
					t.Errorf("%s/%s: %q lacks %q", w, mode, got, want)
				}
			}
		}
	}
	// fibonacci/tracing: the thesis's ×110 grown by the fixture's regression.
	ft := cellOf(t, cur, "fibonacci", "tracing")
	if row := matrixRow(t, md, "fibonacci"); !strings.Contains(row[3], fmtMult(ft.Overhead)+" ") || !strings.Contains(row[3], "🔴 ") {
		t.Errorf("fibonacci/tracing cell %q, want %s marked as regressed", row[3], fmtMult(ft.Overhead))
	}
}

// A PR comment puts what needs attention first: changes and failures come
// before the matrix and the folded full table holds every cell.
func TestMarkdownOrderAndDetails(t *testing.T) {
	files := history(t)
	md := renderString(t, func(b *strings.Builder) error { return Markdown(b, files, baselineOpts(t)) })
	changed := strings.Index(md, "**Changed**")
	failed := strings.Index(md, "**Failed**")
	matrix := strings.Index(md, "**Overhead**")
	details := strings.Index(md, "<details>")
	if !(changed >= 0 && changed < failed && failed < matrix && matrix < details) {
		t.Fatalf("sections out of order: changed %d failed %d matrix %d details %d\n%s", changed, failed, matrix, details, md)
	}
	head := md[:matrix]
	if !strings.Contains(head, "`fibonacci/tracing`") || !strings.Contains(head, "`mandelbrot/sampling`") {
		t.Errorf("changes section lacks the regression or improvement:\n%s", head)
	}
	if strings.Index(head, "fibonacci/tracing") > strings.Index(head, "mandelbrot/sampling") {
		t.Errorf("the regression should be listed before the improvement")
	}
	fail := cellOf(t, files[2], "exceptions", "sampling")
	if !strings.Contains(head, "Internal CLR error") || !strings.Contains(head, "7 of 10") {
		t.Errorf("failure row lacks the reason or the run count (%d ok):\n%s", fail.Runs, head)
	}
	folded := md[details:]
	for _, c := range files[2].Results {
		if !strings.Contains(folded, "`"+c.Key()+"`") {
			t.Errorf("details lack %s/%s", c.Workload, c.Mode)
		}
	}
	if !strings.Contains(md, "</details>") {
		t.Error("details not closed")
	}
	if !strings.Contains(md, "> [!WARNING]") {
		t.Error("the fixture's fingerprint warning is not shown")
	}
}

func TestMarkdownWithoutBaseline(t *testing.T) {
	f := readResults(t, "results.json")
	f.Baseline = ""
	for i := range f.Results {
		if f.Results[i].Verdict != results.VerdictFailed {
			f.Results[i].Verdict, f.Results[i].Compare = "", nil
		}
	}
	md := renderString(t, func(b *strings.Builder) error { return Markdown(b, []*results.File{f}, Options{}) })
	if strings.Contains(md, "**Changed**") {
		t.Error("a report without a baseline lists changes")
	}
	if !strings.Contains(md, "12 cells, no baseline, 1 failed") {
		t.Errorf("headline: %s", strings.SplitN(md, "\n", 2)[0])
	}
}

func TestMdEscapeKeepsTablesIntact(t *testing.T) {
	if got := mdEscape("a|b\n<c>"); got != `a\|b &lt;c&gt;` {
		t.Errorf("mdEscape: %q", got)
	}
}

func TestAppendStepSummaryAppends(t *testing.T) {
	p := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(p, []byte("earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", p)
	files := []*results.File{readResults(t, "results.json")}
	for i := 0; i < 2; i++ {
		if err := AppendStepSummary(files, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if !strings.HasPrefix(s, "earlier step\n") || strings.Count(s, "### vbench") != 2 {
		t.Errorf("summary file was not appended to twice:\n%s", s)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	if err := AppendStepSummary(files, Options{}); err != nil {
		t.Errorf("unset GITHUB_STEP_SUMMARY: %v", err)
	}
}

func TestTextReport(t *testing.T) {
	files := history(t)
	txt := renderString(t, func(b *strings.Builder) error { return Text(b, files, baselineOpts(t)) })
	cur := files[2]
	for _, c := range cur.Results {
		key := c.Key()
		var line string
		for _, l := range strings.Split(txt, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), key+" ") {
				line = l
			}
		}
		if line == "" {
			t.Errorf("no line for %s", key)
			continue
		}
		if !strings.Contains(line, fmtNs(c.MedianNs)) {
			t.Errorf("%s: line %q lacks the median %s", key, line, fmtNs(c.MedianNs))
		}
	}
	reg := cellOf(t, cur, "fibonacci", "tracing")
	for _, w := range []string{"Regressed against", "Improved against", "Failed:", "▲" + fmtPct(reg.Compare.Ratio)} {
		if !strings.Contains(txt, w) {
			t.Errorf("text report lacks %q", w)
		}
	}
}
