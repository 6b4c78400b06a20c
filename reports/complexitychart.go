package reports

// The complexity charts of the HTML report: a scaled workload's cost
// against its sizes under each mode, the points with their 95% intervals
// and the fitted growth curve, its reference's (the other build's) beside
// it, dashed.

import (
	"fmt"
	"image/color"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"vbench/internal/results"
	"vbench/stats"
)

var refColor = color.RGBA{0x9c, 0xa3, 0xaf, 0xff}

// GrowthCharts draws each cost series of the current file (results.Growth
// with no function), nil when the suite scaled nothing.
func GrowthCharts(m *Matrix) ([]*Chart, error) {
	f := m.Current
	var out []*Chart
	for i, g := range f.Complexity {
		if g.Function != "" {
			continue
		}
		p := newPlot()
		p.X.Label.Text = "size"
		p.Y.Label.Text = "cost"
		if c := cellOfGrowth(f, &g); c != nil {
			p.Y.Label.Text = c.Metric.OrDefault().Phrase()
		}
		if g.Overhead {
			p.Y.Label.Text += " minus none's"
		}
		if ref := growthNamed(f, g.Against, g.Overhead); ref != nil {
			if err := addGrowth(p, ref, ref.Model, refColor, true); err != nil {
				return nil, err
			}
		} else if g.RefModel != nil {
			addCurve(p, g.Sizes, *g.RefModel, refColor, true)
		}
		if err := addGrowth(p, &g, g.Model, m.ModeColor(g.Mode), false); err != nil {
			return nil, err
		}
		title := fmt.Sprintf("%s: %s", g.Name(), g.Model)
		if g.Sentence != "" {
			title = fmt.Sprintf("%s — %s", g.Verdict, g.Sentence)
		}
		svg, err := render(p, 5*vg.Inch, 3*vg.Inch, fmt.Sprintf("growth-%d", i), "growth", title)
		if err != nil {
			return nil, err
		}
		out = append(out, &Chart{ID: fmt.Sprintf("growth-%d", i), Title: title, SVG: svg})
	}
	return out, nil
}

// growthNamed is the cost (or overhead) series "workload/mode" of f, nil
// when none.
func growthNamed(f *results.File, name string, overhead bool) *results.Growth {
	i := slices.IndexFunc(f.Complexity, func(g results.Growth) bool {
		return g.Function == "" && g.Overhead == overhead && g.Workload+"/"+string(g.Mode) == name
	})
	if i < 0 {
		return nil
	}
	return &f.Complexity[i]
}

// cellOfGrowth is one cell of g's series, for its metric.
func cellOfGrowth(f *results.File, g *results.Growth) *results.Cell {
	for i := range f.Results {
		if c := &f.Results[i]; c.Scale != nil && c.Scale.Of == g.Workload && c.Mode == g.Mode {
			return c
		}
	}
	return nil
}

// growthPoints are a series' points with their intervals as whiskers.
type growthPoints struct{ x, y, lo, hi []float64 }

func (g growthPoints) Len() int                { return len(g.x) }
func (g growthPoints) XY(i int) (x, y float64) { return g.x[i], g.y[i] }
func (g growthPoints) YError(i int) (float64, float64) {
	if i >= len(g.lo) || g.hi[i] <= g.lo[i] {
		return 0, 0
	}
	return g.y[i] - g.lo[i], g.hi[i] - g.y[i]
}

// addGrowth draws g's points (whiskers: their intervals) and model.
func addGrowth(p *plot.Plot, g *results.Growth, mod results.Model, clr color.Color, dashed bool) error {
	pts := growthPoints{g.Sizes, g.Values, g.Lo, g.Hi}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	eb, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return err
	}
	eb.LineStyle.Color = clr
	p.Add(sc, eb)
	l := addCurve(p, g.Sizes, mod, clr, dashed)
	p.Legend.Add(fmt.Sprintf("%s/%s: %s", g.Workload, g.Mode, mod.Class), sc, l)
	return nil
}

// addCurve draws y = a + b·g(n) over sizes' range.
func addCurve(p *plot.Plot, sizes []float64, mod results.Model, clr color.Color, dashed bool) *plotter.Function {
	c, _ := stats.ClassNamed(mod.Class)
	fit := stats.GrowthFit{Class: c, Intercept: mod.Intercept, Coef: mod.Coef}
	fn := plotter.NewFunction(fit.At)
	fn.XMin, fn.XMax = slices.Min(sizes), slices.Max(sizes)
	fn.Samples = 100
	fn.LineStyle = draw.LineStyle{Color: clr, Width: vg.Points(1.2)}
	if dashed {
		fn.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(fn)
	return fn
}
