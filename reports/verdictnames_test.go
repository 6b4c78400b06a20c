package reports

import (
	"bytes"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// A verdict names what moved it, in every format, and only a significant
// change is highlighted. A cell regressed by its memory and GC alone, its
// time +14.7% [-3.7%, +25.7%] (p=0.107) not significant, read "regressed:
// rss, gc_count" exactly as one whose time regressed too, and its time
// change was printed bold with ▲ in Markdown and red in HTML; the HTML's
// "What changed" never named memory or GC.
func TestVerdictNamesWhatMovedIt(t *testing.T) {
	f := readResults(t, "results.json")
	figures := func(c *results.Cell) {
		c.Metrics = map[results.Measure]*results.MeasureSummary{
			results.MeasureRSS: {Runs: 10, Median: 94 << 20, Verdict: results.VerdictRegressed,
				Compare: &results.Change{BaselineMedianNs: 65 << 20, Ratio: 94.0 / 65}},
			results.MeasureGCCount: {Runs: 10, Median: 9, Verdict: results.VerdictRegressed,
				Compare: &results.Change{BaselineMedianNs: 5, Ratio: 1.8}},
		}
	}
	only := cellOf(t, f, "fibonacci", modes.Tracing) // memory and GC only
	only.Verdict = results.VerdictRegressed
	only.Compare = &results.Change{BaselineMedianNs: 43.3e9, Ratio: 1.147, RatioLo: 0.963, RatioHi: 1.257, P: 0.107, PAdjusted: 0.32,
		Comparable: true, TimeVerdict: results.VerdictInconclusive, OverheadVerdict: results.VerdictSame}
	figures(only)
	both := cellOf(t, f, "mandelbrot", modes.Tracing) // its time too
	both.Verdict = results.VerdictRegressed
	both.Compare = &results.Change{BaselineMedianNs: 2.2e9, Ratio: 1.226, RatioLo: 1.2, RatioHi: 1.25, P: 0.0001, PAdjusted: 0.0005,
		Comparable: true, TimeVerdict: results.VerdictRegressed, OverheadVerdict: results.VerdictSame}
	figures(both)

	var table, md, html, text, junit bytes.Buffer
	if err := ResultsTable(&table, f); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, []*results.File{f}, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&html, []*results.File{f}, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Text(&text, []*results.File{f}, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := JUnit(&junit, f); err != nil {
		t.Fatal(err)
	}
	line := func(s, prefix string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, prefix) {
				return l
			}
		}
		return ""
	}
	for _, c := range []struct {
		out, where, line, want string
		bad                    []string
	}{
		{table.String(), "results table", "fibonacci   tracing", "regressed: rss, gc_count", []string{"elapsed"}},
		{table.String(), "results table", "mandelbrot  tracing", "regressed: elapsed, rss, gc_count", nil},
		{md.String(), "markdown changed", "`fibonacci/tracing`  ", "🔴 rss, gc\\_count", []string{"**+14.7%**"}},
		{md.String(), "markdown changed", "`mandelbrot/tracing`  ", "🔴 elapsed, rss, gc\\_count", nil},
		{md.String(), "markdown matrix", "| fibonacci ", "▲rss, gc\\_count", []string{"▲+14.7%"}},
		{md.String(), "markdown list", "- `fibonacci/tracing` regressed", "rss +29.00MiB", nil},
		{text.String(), "text changes", "  fibonacci/tracing  ", "rss, gc_count: rss +29.00MiB", []string{"elapsed"}},
		{junit.String(), "junit", `name="fibonacci/tracing"`, "", nil},
	} {
		l := line(c.out, c.line)
		if c.want != "" && !strings.Contains(l, c.want) {
			t.Errorf("%s: line %q lacks %q", c.where, l, c.want)
		}
		for _, b := range c.bad {
			if strings.Contains(l, b) {
				t.Errorf("%s: line %q has %q", c.where, l, b)
			}
		}
	}
	if !strings.Contains(junit.String(), `message="fibonacci/tracing regressed: rss +29.00MiB (×1.45), gc_count +4 (×1.80); elapsed +14.7% (p=0.107) inconclusive against`) {
		t.Errorf("junit:\n%s", junit.String())
	}
	h := html.String()
	for _, want := range []string{`<strong>regressed: rss, gc_count</strong> <code>fibonacci/tracing</code> rss &#43;29.00MiB (×1.45), gc_count &#43;4 (×1.80); `,
		`<strong>regressed: elapsed, rss, gc_count</strong> <code>mandelbrot/tracing</code>`, `<span class="delta">regressed: rss, gc_count</span>`} {
		if !strings.Contains(h, want) {
			t.Errorf("html lacks %q", want)
		}
	}
	if strings.Contains(h, `<span class="delta">+14.7%`) {
		t.Errorf("html highlights the time change that is not significant")
	}
}
