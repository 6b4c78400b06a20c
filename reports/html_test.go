package reports

import (
	"gonum.org/v1/plot"
	"html/template"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
)

func renderHTML(t *testing.T, files []*results.File, opts Options) string {
	t.Helper()
	return renderString(t, func(b *strings.Builder) error { return HTML(b, files, opts) })
}

// element returns the element with the given id, from its start tag to the
// matching close tag name (no nesting of the same tag inside, which holds
// for the <td> and <svg> elements looked up here).
func element(t *testing.T, doc, tag, id string) string {
	t.Helper()
	start := regexp.MustCompile(`<` + tag + `\s[^>]*\bid="` + regexp.QuoteMeta(id) + `"`).FindStringIndex(doc)
	if start == nil {
		t.Fatalf("no <%s id=%q>", tag, id)
	}
	end := strings.Index(doc[start[0]:], "</"+tag+">")
	if end < 0 {
		t.Fatalf("<%s id=%q> is not closed", tag, id)
	}
	return doc[start[0] : start[0]+end]
}

func TestHTMLIsSelfContained(t *testing.T) {
	files := history(t)
	doc := renderHTML(t, files, baselineOpts(t, files))
	// The only URLs allowed are XML namespace names, which nothing fetches.
	urls := regexp.MustCompile(`(?i)(https?:|//[a-z0-9.-]+\.[a-z]{2,}/|file:)[^"'\s)<]*`).FindAllString(doc, -1)
	for _, u := range urls {
		if u != "http://www.w3.org/2000/svg" && u != "http://www.w3.org/1999/xlink" {
			t.Errorf("external reference %q", u)
		}
	}
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "@import", "url("} {
		if strings.Contains(strings.ToLower(doc), bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	if !strings.HasPrefix(doc, "<!doctype html>") || !strings.Contains(doc, "<style>") {
		t.Error("not an HTML page with inline CSS")
	}
	if strings.Contains(doc, "<?xml") {
		t.Error("an inlined SVG kept its XML prolog")
	}
}

func TestHTMLMatrixCells(t *testing.T) {
	files := history(t)
	doc := renderHTML(t, files, baselineOpts(t, files))
	cur := files[2]
	// Each matrix cell: its verdict's class, the multiple (×1 and the median
	// for none) and the interval, as the fixture's numbers print.
	for id, want := range map[string][]string{
		"cell-fibonacci-none":      {`class="v-same"`, ">×1<", ">410.8ms<"},
		"cell-fibonacci-null":      {`class="v-same"`, ">×3.04<", ">[3.01, 3.08]<"},
		"cell-fibonacci-tracing":   {`class="v-regressed"`, ">×121<", ">[120, 122]<", ">&#43;9.9% vs baseline<", "(p&lt;0.001)"},
		"cell-fibonacci-sampling":  {`class="v-same"`, ">×1.14<", ">[1.12, 1.15]<"},
		"cell-mandelbrot-none":     {`class="v-same"`, ">×1<", ">1.528s<"},
		"cell-mandelbrot-sampling": {`class="v-improved"`, ">×1.09<", ">[1.07, 1.10]<", ">-6.6% vs baseline<"},
		"cell-exceptions-null":     {`class="v-new"`, ">×1.38<", ">[1.26, 1.40]<", ">new<"},
		"cell-exceptions-sampling": {`class="v-failed"`, "✗ failed", "7 of 10 runs ok"},
	} {
		td := element(t, doc, "td", id)
		for _, w := range want {
			if !strings.Contains(td, w) {
				t.Errorf("%s lacks %q: %s", id, w, td)
			}
		}
	}
	// The fingerprint and the fixture's warning are in the header.
	for _, want := range []string{cur.Machine.CPUModel, cur.Machine.DotnetRuntime, cur.Machine.VbenchCommit, cur.Warnings[0]} {
		if !strings.Contains(doc, template.HTMLEscapeString(want)) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Every cell has a row of absolute numbers.
	medians := element(t, doc, "table", "medians")
	for _, c := range cur.Results {
		if !strings.Contains(medians, "<code>"+c.Key()+"</code>") {
			t.Errorf("medians table lacks %s/%s", c.Workload, c.Mode)
		}
	}
	for _, want := range []string{"410.8ms", "49.65s", "1.664s", "281.4ms"} {
		if !strings.Contains(medians, want) {
			t.Errorf("medians table lacks %s", want)
		}
	}
	// The verdict column is the one marked as such (a stale index marked
	// "overhead vs base" instead).
	if !regexp.MustCompile(`<td data-label="verdict" class="verdict">`).MatchString(medians) || strings.Contains(medians, `data-label="overhead vs base" class="verdict"`) {
		t.Errorf("the medians table's verdict class is on the wrong column")
	}
}

var barPath = regexp.MustCompile(`<path d="M([\d.]+),([\d.]+)L[\d.]+,([\d.]+)L([\d.]+),[\d.]+L[\d.]+,[\d.]+Z" style="fill:(#[0-9A-F]{6})"`)

// The overhead chart has one bar per (workload, non-none mode) cell that did
// not fail, in the mode's colour, and the bars' heights are proportional to
// log10 of the fixture's overhead multiples (bars start at ×1).
func TestOverheadChartBars(t *testing.T) {
	files := history(t)
	doc := renderHTML(t, files, baselineOpts(t, files))
	svg := element(t, doc, "svg", "overhead-chart")
	m, err := NewMatrix(files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	heights := map[string][]float64{} // colour -> bar heights, left to right
	for _, b := range barPath.FindAllStringSubmatch(svg, -1) {
		y0, _ := strconv.ParseFloat(b[2], 64)
		y1, _ := strconv.ParseFloat(b[3], 64)
		heights[b[5]] = append(heights[b[5]], y1-y0)
	}
	var scale float64
	for _, mode := range m.Modes {
		if mode == "none" {
			continue
		}
		col := strings.ToUpper(hexColor(m.ModeColor(mode)))
		var want []float64
		for _, w := range m.Workloads {
			if c := m.Cell(w, mode); c != nil && !c.Failed() {
				want = append(want, math.Log10(c.Overhead))
			}
		}
		got := heights[col]
		if len(got) != len(want) {
			t.Fatalf("mode %s: %d bars in %s, want %d (one per cell that ran)", mode, len(got), col, len(want))
		}
		for i := range want {
			if math.Abs(want[i]) < 0.01 {
				continue // too short to measure a ratio on
			}
			k := got[i] / want[i]
			if scale == 0 {
				scale = k
			}
			if math.Abs(k/scale-1) > 0.02 {
				t.Errorf("mode %s bar %d: height %.2f for log10(overhead) %.3f: scale %.2f, others %.2f", mode, i, got[i], want[i], k, scale)
			}
		}
	}
	if !strings.Contains(svg, "✗ failed") {
		t.Error("the failed cell is not marked in the overhead chart")
	}
}

func TestDistributionAndTrendCharts(t *testing.T) {
	files := history(t)
	m, err := NewMatrix(files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dist, err := DistributionCharts(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(dist) != len(m.Workloads) {
		t.Fatalf("%d distribution charts, want one per workload (%d)", len(dist), len(m.Workloads))
	}
	// One dot per measured successful run that is not an outlier, in the
	// mode's colour; outliers are crosses.
	for i, w := range m.Workloads {
		for _, mode := range m.Modes {
			c := m.Cell(w, mode)
			n := 0
			for _, r := range c.Samples {
				if !r.Warmup && r.Error == "" && !r.Outlier {
					n++
				}
			}
			col := strings.ToUpper(hexColor(m.ModeColor(mode)))
			// A dot is one path filled with the opaque colour; the box is translucent.
			got := strings.Count(string(dist[i].SVG), `style="fill:`+col+`"`)
			if got != n {
				t.Errorf("%s/%s: %d dots, want %d runs", w, mode, got, n)
			}
		}
	}
	trend, err := TrendCharts(m)
	if err != nil || len(trend) != len(m.Workloads) {
		t.Fatalf("trend charts: %d, %v", len(trend), err)
	}
	single, err := NewMatrix(files[2:], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr, _ := TrendCharts(single); tr != nil {
		t.Error("trend charts without a history")
	}
	doc := renderHTML(t, files[2:], Options{})
	if strings.Contains(doc, "trend-chart") || strings.Contains(doc, `id="history"`) {
		t.Error("a single file's report shows a history")
	}
}

func TestMultipleTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		// A tick per doubling, up to one at or above the highest value.
		{1, 150, "×1 ×2 ×4 ×8 ×16 ×32 ×64 ×128 ×256"},
		{1, 5, "×1 ×2 ×4 ×8"},
		// A narrow range gets finer steps, still covering the data.
		{1, 3.5, "×1 ×1.2 ×1.5 ×2 ×3 ×4"},
		{1, 1.4, "×1 ×1.1 ×1.2 ×1.3 ×1.5"},
	} {
		p := plot.New()
		multipleAxis(p, math.Log10(tc.lo), math.Log10(tc.hi), 0, 0)
		var labels []string
		for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
			labels = append(labels, tk.Label)
			if got := math.Pow(10, tk.Value); strings.TrimPrefix(tk.Label, "×") != strconv.FormatFloat(math.Round(got*100)/100, 'f', -1, 64) {
				t.Errorf("tick at ×%v labelled %q", got, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("ticks over [%v, %v]: %s, want %s", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// A suite without the none mode has medians but no overheads; a cell whose
// runs all failed has neither. Every renderer still works, and nothing is
// called failed that did not fail.
func TestReportsWithoutNoneModeOrRuns(t *testing.T) {
	f := readResults(t, "results.json")
	var kept []results.Cell
	for _, c := range f.Results {
		if c.Mode != modes.None {
			c.Overhead, c.OverheadLo, c.OverheadHi = 0, 0, 0
			kept = append(kept, c)
		}
	}
	f.Results = kept
	f.Settings.Modes = f.Settings.Modes[1:]
	// One more cell whose every run failed.
	dead := kept[0]
	dead.Workload, dead.Runs, dead.MedianNs, dead.CILoNs, dead.CIHiNs = "crashes", 0, 0, 0, 0
	dead.Failure, dead.Verdict = "every run crashed", results.VerdictFailed
	dead.Samples = []results.Run{{Seq: 1, ExitCode: 139, Signal: "SIGSEGV", Error: "killed by SIGSEGV"}}
	f.Results = append(f.Results, dead)
	files := []*results.File{f}
	doc := renderHTML(t, files, Options{})
	if strings.Contains(doc, `id="overhead-chart"`) {
		t.Error("an overhead chart without a none mode")
	}
	// Without overheads the matrix shows medians.
	for id, median := range map[string]string{"cell-fibonacci-null": ">1.247s<", "cell-fibonacci-tracing": ">49.65s<", "cell-exceptions-null": ">321.2ms<"} {
		if !strings.Contains(element(t, doc, "td", id), median) {
			t.Errorf("%s: matrix cell lacks the median %s", id, median)
		}
	}
	if n := len(regexp.MustCompile(`<td id="cell-[^"]*" class="v-failed"`).FindAllString(doc, -1)); n != 2 {
		t.Errorf("%d failed cells in the matrix, want the fixture's one plus the crashed one", n)
	}
	for _, render := range []func(*strings.Builder) error{
		func(b *strings.Builder) error { return Markdown(b, files, Options{}) },
		func(b *strings.Builder) error { return Text(b, files, Options{}) },
		func(b *strings.Builder) error { return JUnit(b, f) },
		func(b *strings.Builder) error { return GoBench(b, f) },
	} {
		out := renderString(t, render)
		if strings.Contains(out, "×0") || strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
			t.Errorf("output shows a bogus number:\n%s", out)
		}
	}
}
