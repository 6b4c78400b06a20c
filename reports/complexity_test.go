package reports

import (
	"fmt"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// growthFile is a run of two builds of a scaled workload (app against
// app-base) whose Probe calls went from n to n² and whose cost did not
// move, as internal/verdict leaves it: the cells, and the growth series.
func growthFile() *results.File {
	f := &results.File{Suite: results.Suite{Name: "g"}, Settings: results.Settings{Modes: []modes.Mode{"tracing"}, Alpha: 0.01, Threshold: 0.05}}
	sizes := []float64{250, 500, 1000, 2000}
	for _, w := range []string{"app", "app-base"} {
		for _, n := range sizes {
			v := 1e6 + 1000*n
			f.Results = append(f.Results, results.Cell{Workload: fmt.Sprintf("%s@n=%g", w, n), Mode: "tracing", Runs: 1,
				MedianNs: v, CILoNs: v * 0.98, CIHiNs: v * 1.02, Scale: &results.Scale{Of: w, Arg: "--n", Size: n},
				Samples: []results.Run{{Seq: 1, ElapsedNs: int64(v)}}, Verdict: results.VerdictSame})
		}
		g := results.Growth{Workload: w, Mode: "tracing", Sizes: sizes, Values: []float64{1.25e6, 1.5e6, 2e6, 3e6},
			Lo: []float64{1.2e6, 1.45e6, 1.9e6, 2.9e6}, Hi: []float64{1.3e6, 1.55e6, 2.1e6, 3.1e6},
			Model: results.Model{Class: "n", Intercept: 1e6, Coef: 1000, R2: 1}}
		if w == "app" {
			g.Against, g.RefModel, g.Verdict, g.Sentence = "app-base/tracing", &g.Model, results.VerdictSame, "app/tracing: n, as app-base/tracing"
		}
		f.Complexity = append(f.Complexity, g)
	}
	f.Complexity = append(f.Complexity, results.Growth{Workload: "app", Mode: "tracing", Function: "Work.Probe", Sizes: sizes,
		Values: []float64{500, 2000, 8000, 32000}, Model: results.Model{Class: "n²", Coef: 0.008, R2: 1}, Against: "app-base/tracing",
		RefModel: &results.Model{Class: "n", Coef: 2, R2: 1}, Verdict: results.VerdictRegressed, Sentence: "app/tracing Work.Probe: n → n² (at size 2000: 4000 → 3.2e+04)"})
	return f
}

// The complexity verdict is in every output: the table's and Markdown's
// notes, JUnit's failures, the report's warnings; the HTML report draws
// each cost series with its reference's.
func TestComplexityInEveryOutput(t *testing.T) {
	f := growthFile()
	want := "complexity regressed: app/tracing Work.Probe: n → n² (at size 2000: 4000 → 3.2e+04)"
	for _, format := range []string{"table", "markdown", "junit"} {
		var b strings.Builder
		if err := WriteResults(&b, f, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s lacks %q:\n%s", format, want, b.String())
		}
	}
	var b strings.Builder
	if err := WriteResults(&b, f, "table"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "complexity app/tracing: cost n (R² 1.000), Work.Probe: n²") {
		t.Errorf("the table lacks the models:\n%s", b.String())
	}
	doc := renderHTML(t, []*results.File{f}, Options{})
	if w := "complexity regressed: app/tracing Work.Probe: n → n²"; !strings.Contains(doc, w) {
		t.Errorf("the HTML report lacks %q", w)
	}
	svg := element(t, doc, "svg", "growth-0")
	for _, s := range []string{"app/tracing: n", "app-base/tracing: n"} {
		if !strings.Contains(svg, s) {
			t.Errorf("the growth chart's legend lacks %q", s)
		}
	}
}
