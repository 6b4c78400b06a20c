package verdict

import (
	"fmt"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
)

var growthTestSizes = []float64{250, 500, 1000, 2000}

// scaledCells are a scaled workload's cells under mode tracing: cost(n)
// per run (six runs ±0.1%) and each function's calls(n).
func scaledCells(of string, metric results.Metric, cost func(n float64) float64, calls map[string]func(n float64) int64) []results.Cell {
	var out []results.Cell
	for i, n := range growthTestSizes {
		c := results.Cell{Workload: fmt.Sprintf("%s@n=%g", of, n), Mode: modes.Mode("tracing"), Runs: 6, Metric: metric,
			Scale: &results.Scale{Of: of, Arg: "--n", Size: n}, Calls: map[string][]int64{}}
		v := cost(n)
		c.MedianNs, c.CILoNs, c.CIHiNs = v, v*0.999, v*1.001
		for r := 0; r < 6; r++ {
			x := v * (1 + 0.001*float64(r%3-1))
			c.Samples = append(c.Samples, results.Run{Seq: 100*i + r, Round: r + 1, ElapsedNs: int64(x), WallNs: int64(x), Instructions: int64(x)})
		}
		for name, f := range calls {
			k := f(n)
			c.Calls[name] = []int64{k, k, k, k, k, k}
		}
		out = append(out, c)
	}
	return out
}

// A pair of builds of one scaled program: head turns W.Probe from linear
// into quadratic (the same calls at the smallest size) while its cost
// barely moves; an unchanged build (again) keeps every class; a build
// whose cost per item is half again as large regresses on its
// coefficient (in time, only where its largest cell regressed too). The
// regressions are the file's, for the exit code.
func TestComplexityVerdict(t *testing.T) {
	line := func(n float64) float64 { return 1e7 + 4000*n }
	linear := map[string]func(float64) int64{
		"W.Probe": func(n float64) int64 { return int64(2 * n) },
		"W.Step":  func(n float64) int64 { return int64(n) },
		"W.Main":  func(float64) int64 { return 1 },
	}
	quad := map[string]func(float64) int64{
		"W.Probe": func(n float64) int64 { return int64(2 * n * (n - 1) / 250) },
		"W.Step":  func(n float64) int64 { return int64(n) },
		"W.Main":  func(float64) int64 { return 1 },
	}
	f := &results.File{Settings: results.Settings{Alpha: 0.01, Threshold: 0.05,
		WorkloadAgainst: map[string]string{}}}
	add := func(of string, cells []results.Cell, against string) {
		for _, c := range cells {
			if against != "" {
				f.Settings.WorkloadAgainst[c.Workload] = strings.Replace(c.Workload, of, against, 1)
			}
			f.Results = append(f.Results, c)
		}
	}
	ins, el := results.MetricInstructions, results.MetricElapsed
	add("base", scaledCells("base", ins, line, linear), "")
	add("head", scaledCells("head", ins, func(n float64) float64 { return line(n) + 8*n*n/250 }, quad), "base")
	add("again", scaledCells("again", ins, line, linear), "base")
	add("slower", scaledCells("slower", ins, func(n float64) float64 { return 1e7 + 6000*n }, linear), "base")
	add("tbase", scaledCells("tbase", el, line, linear), "")
	add("tslower", scaledCells("tslower", el, func(n float64) float64 { return 1e7 + 4400*n }, linear), "tbase")
	add("tquad", scaledCells("tquad", el, func(n float64) float64 { return 1e7 + 4*n*n }, linear), "tbase")
	Apply(f, nil, OptionsOf(f))

	find := func(w, fn string) *results.Growth {
		for i := range f.Complexity {
			if g := &f.Complexity[i]; g.Workload == w && g.Function == fn {
				return g
			}
		}
		t.Fatalf("no growth series %s %s in %+v", w, fn, f.Complexity)
		return nil
	}
	if g := find("head", "W.Probe"); g.Verdict != results.VerdictRegressed || !strings.HasPrefix(g.Sentence, "head/tracing W.Probe: n → n² (at size 2000: 4000 → 3.198e+04)") {
		t.Errorf("head's Probe: %s %q", g.Verdict, g.Sentence)
	}
	if g := find("head", "W.Step"); g.Verdict != results.VerdictSame || g.Model.Class != "n" {
		t.Errorf("head's Step: %s %q", g.Verdict, g.Sentence)
	}
	if g := find("base", ""); g.Model.Class != "n" || g.Verdict != "" || g.Model.R2 < 0.9999 {
		t.Errorf("base's cost: %+v", g)
	}
	for _, g := range f.Complexity {
		if g.Workload == "again" && g.Verdict != results.VerdictSame {
			t.Errorf("an unchanged build: %s %q", g.Verdict, g.Sentence)
		}
	}
	if g := find("slower", ""); g.Verdict != results.VerdictRegressed || !strings.Contains(g.Sentence, "slower/tracing: n, its coefficient ×1.5") {
		t.Errorf("slower's cost: %s %q", g.Verdict, g.Sentence)
	}
	// In time, a coefficient 10 % larger whose largest cell is not shown
	// regressed (6 runs a side, ±0.1 %: inconclusive) stays inconclusive.
	if g := find("tslower", ""); g.Verdict == results.VerdictRegressed || f.Find("tslower@n=2000", "tracing").Verdict != results.VerdictRegressed && g.Verdict != results.VerdictInconclusive {
		t.Errorf("tslower's cost: %s %q (its largest cell %s)", g.Verdict, g.Sentence, f.Find("tslower@n=2000", "tracing").Verdict)
	}
	// In time, a class the points decide (n → n²) whose largest cell is
	// not shown regressed stays inconclusive too: ten A/A runs of an
	// unchanged build at load 15-35 "decided" two classes otherwise.
	if c := f.Find("tquad@n=2000", "tracing"); c.Verdict == results.VerdictRegressed {
		t.Fatalf("tquad's largest cell regressed: the case needs one that did not")
	}
	if g := find("tquad", ""); g.Model.Class != "n²" || g.RefModel == nil || g.RefModel.Class != "n" || g.Verdict != results.VerdictInconclusive ||
		!strings.Contains(g.Sentence, "not confirmed: the cell at size 2000 is inconclusive") {
		t.Errorf("tquad's cost: %s %q (%+v)", g.Verdict, g.Sentence, g.Model)
	}
	if got := strings.Join(f.GrowthRegressions(), "\n"); !strings.Contains(got, "W.Probe: n → n²") || !strings.Contains(got, "slower/tracing: n, its") {
		t.Errorf("regressions %q", got)
	}
	for _, g := range f.Complexity {
		if g.Function == "W.Main" {
			t.Errorf("a function called once is kept: %+v", g)
		}
	}
}

// Exact line counts (instrumentation with lines) are series of their own:
// the line in W.Run that calls Probe turns quadratic in head and is named
// with its place; the loop's other lines keep their class, and a line
// that runs once a process is no series.
func TestComplexityVerdictOfLines(t *testing.T) {
	line := func(n float64) float64 { return 1e7 + 4000*n }
	lines := func(probe func(n float64) int64) func(n float64) map[string]map[string][]int64 {
		return func(n float64) map[string]map[string][]int64 {
			k, s := probe(n), int64(n)
			return map[string]map[string][]int64{"W.Run": {
				"Program.cs:30": {1, 1},
				"Program.cs:32": {s, s},
				"Program.cs:41": {k, k},
			}}
		}
	}
	f := &results.File{Settings: results.Settings{Alpha: 0.01, Threshold: 0.05, WorkloadAgainst: map[string]string{}}}
	for _, w := range []struct {
		of, against string
		probe       func(n float64) int64
	}{
		{"base", "", func(n float64) int64 { return int64(2 * n) }},
		{"head", "base", func(n float64) int64 { return int64(2 * n * n / 250) }},
		{"again", "base", func(n float64) int64 { return int64(2 * n) }},
	} {
		at := lines(w.probe)
		for _, c := range scaledCells(w.of, results.MetricInstructions, line, nil) {
			c.LineExecutions = at(c.Scale.Size)
			if w.against != "" {
				f.Settings.WorkloadAgainst[c.Workload] = strings.Replace(c.Workload, w.of, w.against, 1)
			}
			f.Results = append(f.Results, c)
		}
	}
	Apply(f, nil, OptionsOf(f))
	find := func(w, at string) *results.Growth {
		for i := range f.Complexity {
			if g := &f.Complexity[i]; g.Workload == w && g.Function == "W.Run" && g.Line == at {
				return g
			}
		}
		return nil
	}
	if g := find("head", "Program.cs:41"); g == nil || g.Verdict != results.VerdictRegressed || !strings.HasPrefix(g.Sentence, "head/tracing W.Run (Program.cs:41): n → n²") {
		t.Fatalf("head's probe line: %+v", g)
	}
	if g := find("head", "Program.cs:32"); g == nil || g.Verdict != results.VerdictSame || g.Model.Class != "n" {
		t.Errorf("head's loop line: %+v", g)
	}
	for _, w := range []string{"base", "head", "again"} {
		if g := find(w, "Program.cs:30"); g != nil {
			t.Errorf("a line run once is a series: %+v", g)
		}
	}
	for _, g := range f.Complexity {
		if g.Workload == "again" && g.Verdict != results.VerdictSame {
			t.Errorf("an unchanged build: %s %q", g.Verdict, g.Sentence)
		}
	}
	if got := strings.Join(f.GrowthRegressions(), "\n"); !strings.Contains(got, "W.Run (Program.cs:41): n → n²") {
		t.Errorf("regressions %q", got)
	}
}
