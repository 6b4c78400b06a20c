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
		if strings.HasPrefix(line, "| "+w+" ") {
			cells := strings.Split(strings.Trim(line, "| "), " | ")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			return cells
		}
	}
	t.Fatalf("no matrix row for %s in:\n%s", w, md)
	return nil
}

// The matrix holds the fixture's medians (none) and overhead multiples with
// their intervals, marked by verdict: fibonacci/tracing is the Visual Profiler's ×110
// (see genfixtures) grown by the fixture's regression (median 120.87 in [119.62, 121.90]).
func TestMarkdownMatrixShowsFixtureOverheads(t *testing.T) {
	files := history(t)
	md := renderString(t, func(b *strings.Builder) error { return Markdown(b, files, baselineOpts(t, files)) })
	for w, want := range map[string][]string{
		"workload":   {"workload", "none", "null", "tracing", "sampling"},
		"fibonacci":  {"fibonacci", "410.8ms", "×3.04 [3.01, 3.08]", "🔴 ×121 [120, 122] ▲+9.9%", "×1.14 [1.12, 1.15]"},
		"mandelbrot": {"mandelbrot", "1.528s", "×1.04 [1.02, 1.05]", "×1.77 [1.75, 1.80]", "🟢 ×1.09 [1.07, 1.10] ▼-6.6%"},
		"exceptions": {"exceptions", "233.5ms", "🆕 ×1.38 [1.26, 1.40] (new)", "×6.16 [5.66, 6.28]", "✗ failed"},
	} {
		if got := matrixRow(t, md, w); strings.Join(got, " | ") != strings.Join(want, " | ") {
			t.Errorf("%s row:\n got %q\nwant %q", w, got, want)
		}
	}
}

// A PR comment puts what needs attention first: changes and failures come
// before the matrix and the folded full table holds every cell.
func TestMarkdownOrderAndDetails(t *testing.T) {
	files := history(t)
	md := renderString(t, func(b *strings.Builder) error { return Markdown(b, files, baselineOpts(t, files)) })
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
	if got := mdEscape("a|b\n<c>"); got != `a\|b\\n&lt;c&gt;` {
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
	txt := renderString(t, func(b *strings.Builder) error { return Text(b, files, baselineOpts(t, files)) })
	// Every cell's line starts with its runs, median and 95% CI, the fixture's
	// medians as benchstat prints them.
	for _, want := range []string{
		"fibonacci/none 10 410.8ms [409.1ms, 414.9ms]",
		"fibonacci/null 10 1.247s [1.232s, 1.266s]",
		"fibonacci/tracing 10 49.65s [49.40s, 50.58s]",
		"fibonacci/sampling 10 467.8ms [459.4ms, 474.0ms]",
		"mandelbrot/none 10 1.528s [1.518s, 1.552s]",
		"mandelbrot/null 10 1.583s [1.549s, 1.615s]",
		"mandelbrot/tracing 10 2.698s [2.675s, 2.749s]",
		"mandelbrot/sampling 10 1.664s [1.631s, 1.678s]",
		"exceptions/none 10 233.5ms [229.0ms, 255.1ms]",
		"exceptions/null 10 321.2ms [315.5ms, 326.7ms]",
		"exceptions/tracing 10 1.439s [1.426s, 1.464s]",
		"exceptions/sampling 7 281.4ms [276.4ms, 284.8ms]",
	} {
		found := false
		for _, l := range strings.Split(txt, "\n") {
			found = found || strings.HasPrefix(strings.Join(strings.Fields(l), " "), want+" ")
		}
		if !found {
			t.Errorf("no line starting %q in:\n%s", want, txt)
		}
	}
	for _, w := range []string{
		"Regressed against testdata/baseline.json:\n  fibonacci/tracing  elapsed, overhead: 45.44s → 49.65s (medians); change +9.9% [+8.6%, +11.3%] in fast-half means (p<0.001); overhead ×111 → ×121\n",
		"Improved against testdata/baseline.json:\n  mandelbrot/sampling  elapsed, overhead: 1.766s → 1.664s (medians); change -6.6% [-7.7%, -5.5%] in fast-half means (p<0.001); overhead ×1.16 → ×1.09\n",
		"Failed:\n  exceptions/sampling  exit status 134 (SIGABRT): Fatal error. Internal CLR error. (0x80131506) (7 of 10 measured runs succeeded)\n",
		"fibonacci    410.8ms   ×3.04 [3.01, 3.08]         ×121 [120, 122] ▲+9.9%   ×1.14 [1.12, 1.15]\n",
	} {
		if !strings.Contains(txt, w) {
			t.Errorf("text report lacks %q", w)
		}
	}
}
