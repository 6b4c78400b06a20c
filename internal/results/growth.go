package results

import (
	"cmp"
	"fmt"
	"slices"

	"vbench/internal/modes"
)

// Scale places a cell on a scaled workload's sizes (a suite workload's
// scale:): the workload it was expanded from, the argument that sets the
// size, and this cell's size.
type Scale struct {
	Of   string  `json:"of"`
	Arg  string  `json:"arg"`
	Size float64 `json:"size"`
}

// Growth is one series of a scaled workload under one mode against its
// sizes: the cells' metric (Function "") or one function's exact calls per
// run, with the growth class that fits it best (stats.FitGrowth) and, when
// it has a reference (the OLD build, the workload's against:, the
// baseline), the reference's class and the verdict on the two.
type Growth struct {
	Workload string     `json:"workload"` // Scale.Of
	Mode     modes.Mode `json:"mode"`
	Function string     `json:"function,omitempty"`
	// Line, with Function, makes the series one of the function's lines'
	// exact executions per run ("Program.cs:41").
	Line string `json:"line,omitempty"`
	// Overhead marks the profiler's cost: the mode's medians minus the
	// none mode's at each size (does a tracer's cost per call grow with
	// the work?).
	Overhead bool      `json:"overhead,omitempty"`
	Sizes    []float64 `json:"sizes"`
	Values   []float64 `json:"values"` // the cells' medians, or the function's calls per run
	Lo       []float64 `json:"lo,omitempty"`
	Hi       []float64 `json:"hi,omitempty"`
	Model    Model     `json:"model"`

	// Against names the reference series: "baseline", or the workload and
	// mode of the same run ("app-base/tracing").
	Against  string  `json:"against,omitempty"`
	RefModel *Model  `json:"ref_model,omitempty"`
	Verdict  Verdict `json:"verdict,omitempty"` // regressed, improved, same, inconclusive
	Sentence string  `json:"sentence,omitempty"`
}

// Model is a fitted growth class: y = Intercept + Coef·g(n).
type Model struct {
	Class     string  `json:"class"` // "1", "log n", "n", "n log n", "n²", "n³"
	Intercept float64 `json:"intercept"`
	Coef      float64 `json:"coef"`
	CoefSE    float64 `json:"coef_se,omitempty"`
	R2        float64 `json:"r2"`
	// Margin is how much higher the next best class's BIC is: above 10
	// the data decide the class.
	Margin float64 `json:"margin"`
}

// Name is the series' name: "sort/tracing", "sort/tracing overhead",
// "sort/tracing Sort.Insert" or "sort/instrumentation Sort.Insert
// (Sort.cs:41)".
func (g *Growth) Name() string {
	s := g.Workload + "/" + string(g.Mode)
	if g.Overhead {
		s += " overhead"
	}
	if g.Function != "" {
		s += " " + g.Subject()
	}
	return s
}

// Subject is what a function's series counts: "Sort.Insert" (its calls)
// or "Sort.Insert (Sort.cs:41)" (that line's executions).
func (g *Growth) Subject() string {
	if g.Line != "" {
		return g.Function + " (" + g.Line + ")"
	}
	return g.Function
}

// GrowthRegressions are the sentences of the file's growth series that
// regressed: a complexity regression exits 1 as a cell's does.
func (f *File) GrowthRegressions() []string {
	var out []string
	for _, g := range f.Complexity {
		if g.Verdict == VerdictRegressed {
			out = append(out, g.Sentence)
		}
	}
	return out
}

// ScaledCells are the cells of f on scaled workloads, grouped by
// (Scale.Of, mode) in file order, each group by size.
func (f *File) ScaledCells() [][]*Cell {
	var groups [][]*Cell
	at := map[string]int{}
	for i := range f.Results {
		c := &f.Results[i]
		if c.Scale == nil {
			continue
		}
		k := c.Scale.Of + "/" + string(c.Mode)
		j, ok := at[k]
		if !ok {
			j = len(groups)
			at[k] = j
			groups = append(groups, nil)
		}
		groups[j] = append(groups[j], c)
	}
	for _, g := range groups {
		slices.SortFunc(g, func(a, b *Cell) int { return cmp.Compare(a.Scale.Size, b.Scale.Size) })
	}
	return groups
}

// String is the model as a sentence shows it: "n² (R² 1.000)".
func (m Model) String() string { return fmt.Sprintf("%s (R² %.3f)", m.Class, m.R2) }
