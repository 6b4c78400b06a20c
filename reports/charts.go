package reports

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"html/template"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"vbench/internal/modes"
	"vbench/internal/numfmt"
)

// The charts are drawn by gonum/plot on its SVG canvas and inlined in the
// HTML report. Each mode keeps one colour across every chart and the legend.

var modeColors = map[modes.Mode]color.RGBA{
	modes.None:     {0x6b, 0x72, 0x80, 0xff}, // grey: the reference
	modes.Null:     {0x8b, 0x5c, 0xf6, 0xff}, // violet
	modes.Tracing:  {0x25, 0x63, 0xeb, 0xff}, // blue
	modes.Sampling: {0x0d, 0x94, 0x88, 0xff}, // teal
}

// extraColors are the colours of modes a suite defines: distinct from the
// built-in modes' and from each other.
var extraColors = []color.RGBA{
	{0xd9, 0x77, 0x06, 0xff}, // amber
	{0xdb, 0x27, 0x77, 0xff}, // pink
	{0x65, 0xa3, 0x0d, 0xff}, // lime
	{0x0e, 0xa5, 0xe9, 0xff}, // sky
	{0xdc, 0x26, 0x26, 0xff}, // red
	{0x4f, 0x46, 0xe5, 0xff}, // indigo
	{0x92, 0x40, 0x0e, 0xff}, // brown
	{0x05, 0x96, 0x69, 0xff}, // emerald
	{0xc0, 0x26, 0xd3, 0xff}, // fuchsia
	{0x57, 0x53, 0x4e, 0xff}, // stone
}

// ModeColor is the colour of mode in every chart: fixed for the four
// built-in modes; for a mode a suite defines, a hash of its name picks one
// of extraColors, so the same mode has the same colour in every report.
// Should two modes of one report hash alike, the one later by name takes
// the next free colour (modes are probed in name order, not suite order,
// so that too is the same wherever both appear).
func (m *Matrix) ModeColor(mode modes.Mode) color.RGBA {
	if c, ok := modeColors[mode]; ok {
		return c
	}
	var others []modes.Mode
	for _, x := range m.Modes {
		if _, builtin := modeColors[x]; !builtin {
			others = append(others, x)
		}
	}
	if !slices.Contains(others, mode) {
		others = append(others, mode)
	}
	slices.Sort(others)
	taken := map[int]bool{}
	for _, x := range others {
		i := colorIndex(x)
		for n := 0; taken[i] && n < len(extraColors); n++ {
			i = (i + 1) % len(extraColors)
		}
		taken[i] = true
		if x == mode {
			return extraColors[i]
		}
	}
	return extraColors[colorIndex(mode)]
}

// colorIndex is the mode's own place in extraColors: FNV-1a of its name.
func colorIndex(mode modes.Mode) int {
	h := fnv.New32a()
	h.Write([]byte(mode))
	return int(h.Sum32() % uint32(len(extraColors)))
}

func hexColor(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

func withAlpha(c color.RGBA, a uint8) color.NRGBA { return color.NRGBA{c.R, c.G, c.B, a} }

var (
	inkColor   = color.RGBA{0x37, 0x41, 0x51, 0xff}
	faintColor = color.RGBA{0xd1, 0xd5, 0xdb, 0xff}
	failColor  = color.RGBA{0xb9, 0x1c, 0x1c, 0xff}
)

func sans(size float64) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(size)}
}

// newPlot is a plot in the report's style: sans-serif text, grey axes, no title
// (the HTML around it carries the title).
func newPlot() *plot.Plot {
	p := plot.New()
	p.BackgroundColor = nil // the page shows through
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(10)
		a.Label.TextStyle.Color = inkColor
		a.Tick.Label.Font = sans(9)
		a.Tick.Label.Color = inkColor
		a.LineStyle.Color = faintColor
		a.Tick.LineStyle.Color = faintColor
	}
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	g.Horizontal.Color = color.RGBA{0xe5, 0xe7, 0xeb, 0xff}
	p.Add(g)
	return p
}

// Chart is one rendered chart, ready to inline.
type Chart struct {
	ID    string
	Title string
	SVG   template.HTML
}

// render draws p on an SVG canvas of w×h points and makes the document
// inlinable: no XML prolog, an id and class for scripts and tests, and a font
// stack that falls back to metric-compatible fonts where Liberation is absent.
func render(p *plot.Plot, w, h vg.Length, id, class, label string) (template.HTML, error) {
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", err
	}
	s := buf.String()
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", fmt.Errorf("chart %s: gonum/plot wrote no <svg> element", id)
	}
	s = s[i:]
	// max-width: the page may shrink a chart to fit, never blow it up (a
	// 300-point chart stretched over a one-column grid was huge).
	s = strings.Replace(s, "<svg", fmt.Sprintf(`<svg id=%q class=%q role="img" aria-label=%q style="max-width:%.0fpx"`,
		id, class, template.HTMLEscapeString(label), w.Dots(96)), 1)
	s = fontFamily.ReplaceAllString(s, `font-family:'$1',Arial,Helvetica,sans-serif;`)
	return template.HTML(s), nil
}

var fontFamily = regexp.MustCompile(`font-family:([^;"']+);`)

// log10 axis: overhead multiples span ×1.1 to ×100 and more in one chart, so
// bars are drawn in log10 space from ×1 (where "no overhead" sits) and the
// ticks are labelled with multiples: one per doubling (×1, ×2, ×4, …), or
// finer steps where the chart spans less than ×4 (finer still below ×1.6).
// Ticks only every ×1, ×2, ×5 left a bar of ×3.5 with ticks at ×1 and ×2
// alone.
func multipleTickValues(lo, hi float64) []float64 {
	var vs []float64
	if hi-lo < math.Log10(4) {
		steps := []float64{1, 1.2, 1.5, 2, 3, 4, 5, 7}
		if hi-lo < math.Log10(1.6) {
			steps = []float64{1, 1.1, 1.2, 1.3, 1.5, 1.7, 2, 2.5, 3, 4, 5, 7}
		}
		for d := math.Floor(lo) - 1; d <= math.Ceil(hi)+1; d++ {
			for _, s := range steps {
				vs = append(vs, d+math.Log10(s))
			}
		}
		return vs
	}
	for k := math.Floor(lo/math.Log10(2)) - 1; k <= math.Ceil(hi/math.Log10(2))+1; k++ {
		vs = append(vs, k*math.Log10(2))
	}
	return vs
}

// multipleAxis sets p's y axis for data from lo to hi (log10 multiples) with
// pad below and above: it reaches up at least to the first tick at or above
// the data, so the ticks cover every bar and whisker, and labels every tick
// in range.
func multipleAxis(p *plot.Plot, lo, hi, padLo, padHi float64) {
	vs := multipleTickValues(lo, hi)
	thi := hi
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i] >= hi-1e-9 {
			thi = vs[i]
		}
	}
	p.Y.Min, p.Y.Max = lo-padLo, math.Max(thi, hi+padHi)
	var ticks plot.ConstantTicks
	for _, v := range vs {
		if v >= p.Y.Min-1e-9 && v <= p.Y.Max+1e-9 {
			ticks = append(ticks, plot.Tick{Value: v, Label: numfmt.MultipleTick(math.Pow(10, v))})
		}
	}
	p.Y.Tick.Marker = ticks
}

// fitXLabels turns a nominal x axis's labels upright when, side by side, they
// would run together ("instrumentationsampling") in the width w points the
// chart's data area has; it returns how much taller the chart must be to
// hold them.
func fitXLabels(p *plot.Plot, labels []string, w vg.Length) vg.Length {
	if len(labels) == 0 {
		return 0
	}
	slot := w / vg.Length(len(labels))
	widest := vg.Length(0)
	for _, l := range labels {
		widest = max(widest, p.X.Tick.Label.Width(l))
	}
	if widest <= slot*0.9 {
		return 0
	}
	p.X.Tick.Label.Rotation = math.Pi / 2
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	p.Y.Padding = 0 // NominalX padded for a label lying flat
	return widest - p.X.Tick.Label.Height(labels[0])
}

// OverheadChart draws one bar per (workload, mode) cell with a measured
// overhead, grouped by workload, with the 95% interval as whiskers and the
// multiple written above. Failed cells get no bar but a "failed" mark.
func OverheadChart(m *Matrix) (*Chart, error) {
	var shown []modes.Mode
	for _, mode := range m.Modes {
		if mode != modes.None {
			shown = append(shown, mode)
		}
	}
	if len(shown) == 0 {
		return nil, nil
	}
	const w, h = 720, 300
	p := newPlot()
	p.Y.Label.Text = "overhead (median over none, log scale)"
	p.NominalX(m.Workloads...)
	groupW := vg.Points((w - 80) / float64(len(m.Workloads)))
	barW := min(groupW*0.8/vg.Length(len(shown)), 40)

	lo, hi := 0.0, math.Log10(2)
	var labels plotter.XYLabels
	var labelOffsets []vg.Length
	var fails plotter.XYLabels
	var failOffsets []vg.Length
	for j, mode := range shown {
		off := (vg.Length(j) - vg.Length(len(shown)-1)/2) * barW
		for i, wl := range m.Workloads {
			c := m.Cell(wl, mode)
			if c == nil {
				continue
			}
			if c.Failed() {
				fails.XYs = append(fails.XYs, plotter.XY{X: float64(i), Y: 0})
				fails.Labels = append(fails.Labels, "✗")
				failOffsets = append(failOffsets, off)
				continue
			}
			if !c.HasOverhead() {
				continue // no none cell to compare with
			}
			x, xlo, xhi := c.Overhead, c.OverheadLo, c.OverheadHi
			y := math.Log10(x)
			if err := addBar(p, float64(i), off, y, barW, m.ModeColor(mode)); err != nil {
				return nil, err
			}
			top := y
			if xlo > 0 && xhi > 0 {
				p.Add(&whisker{x: float64(i), off: off, lo: math.Log10(xlo), hi: math.Log10(xhi), capW: barW / 3})
				top = math.Max(top, math.Log10(xhi))
				lo, hi = math.Min(lo, math.Log10(xlo)), math.Max(hi, math.Log10(xhi))
			}
			lo, hi = math.Min(lo, y), math.Max(hi, y)
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(i), Y: math.Max(top, 0)})
			labels.Labels = append(labels.Labels, numfmt.Multiple(x))
			labelOffsets = append(labelOffsets, off)
		}
	}
	// The reference: ×1, no overhead.
	ref, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 0}, {X: float64(len(m.Workloads)) - 0.5, Y: 0}})
	if err != nil {
		return nil, err
	}
	ref.LineStyle = draw.LineStyle{Color: inkColor, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
	p.Add(ref)
	if len(labels.Labels) == 0 {
		return nil, nil // no overheads at all: the suite has no none mode
	}
	for i := range labels.Labels {
		p.Add(label(labels.XYs[i], labels.Labels[i], labelOffsets[i], vg.Points(3), inkColor))
	}
	for i := range fails.Labels {
		p.Add(label(fails.XYs[i], "✗ failed", failOffsets[i], vg.Points(3), failColor))
	}
	pad := (hi - lo) * 0.12
	multipleAxis(p, lo, hi, pad/3, pad)
	p.X.Min, p.X.Max = -0.5, float64(len(m.Workloads))-0.5
	svg, err := render(p, w, h+fitXLabels(p, m.Workloads, w-80), "overhead-chart", "chart overhead-chart",
		"Overhead multiple per workload and mode, bars with 95% interval whiskers")
	if err != nil {
		return nil, err
	}
	return &Chart{ID: "overhead-chart", Title: "Overhead per workload and mode", SVG: svg}, nil
}

// addBar adds one bar of height y at group x, shifted by off, in the mode's
// colour: a cell of a grouped bar chart.
func addBar(p *plot.Plot, x float64, off vg.Length, y float64, w vg.Length, clr color.Color) error {
	bar, err := plotter.NewBarChart(plotter.Values{y}, w)
	if err != nil {
		return err
	}
	bar.XMin, bar.Offset = x, off
	bar.Color = clr
	bar.LineStyle.Width = 0
	p.Add(bar)
	return nil
}

// label is one text label centred above (x, y), shifted by off points.
func label(xy plotter.XY, s string, off, up vg.Length, clr color.Color) *plotter.Labels {
	l, _ := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{xy}, Labels: []string{s}})
	l.TextStyle[0].Font = sans(8.5)
	l.TextStyle[0].Color = clr
	l.TextStyle[0].XAlign = draw.XCenter
	l.TextStyle[0].YAlign = draw.YBottom
	l.Offset = vg.Point{X: off, Y: up}
	return l
}

// whisker is an interval drawn at a bar's position. plotter.YErrorBars cannot
// follow a bar's Offset (it is in points, not data units), hence this.
type whisker struct {
	x      float64
	off    vg.Length
	lo, hi float64
	capW   vg.Length
}

func (w *whisker) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	x := trX(w.x) + w.off
	ylo, yhi := trY(w.lo), trY(w.hi)
	sty := draw.LineStyle{Color: inkColor, Width: vg.Points(1)}
	c.StrokeLines(sty,
		[]vg.Point{{X: x, Y: ylo}, {X: x, Y: yhi}},
		[]vg.Point{{X: x - w.capW, Y: ylo}, {X: x + w.capW, Y: ylo}},
		[]vg.Point{{X: x - w.capW, Y: yhi}, {X: x + w.capW, Y: yhi}})
}

func (w *whisker) DataRange() (xmin, xmax, ymin, ymax float64) {
	return w.x, w.x, w.lo, w.hi
}

// DistributionCharts draws, per workload, every measured run of each mode
// relative to its cell's median, as a box plot with the runs strewn over it:
// the noise of each cell at a glance, comparable across cells whose medians
// differ a hundredfold. Outlier runs are red crosses.
func DistributionCharts(m *Matrix) ([]*Chart, error) {
	var out []*Chart
	for wi, wl := range m.Workloads {
		p := newPlot()
		p.Y.Label.Text = "run vs cell median (%)"
		var names []string
		ylo, yhi := math.Inf(1), math.Inf(-1)
		for j, mode := range m.Modes {
			names = append(names, string(mode))
			c := m.Cell(wl, mode)
			if c == nil || c.MedianNs == 0 {
				continue
			}
			var vals plotter.Values
			var pts, outl plotter.XYs
			k := 0
			for _, r := range c.Measured() {
				v := (float64(c.Metric.Of(&r))/c.MedianNs - 1) * 100
				vals = append(vals, v)
				ylo, yhi = math.Min(ylo, v), math.Max(yhi, v)
				// Deterministic jitter (golden-ratio sequence) so runs with
				// equal times stay visible.
				jit := (math.Mod(float64(k)*0.618034, 1) - 0.5) * 0.3
				k++
				if r.Outlier {
					outl = append(outl, plotter.XY{X: float64(j) + jit, Y: v})
				} else {
					pts = append(pts, plotter.XY{X: float64(j) + jit, Y: v})
				}
			}
			if len(vals) == 0 {
				continue
			}
			col := m.ModeColor(mode)
			box, err := plotter.NewBoxPlot(vg.Points(26), float64(j), vals)
			if err != nil {
				return nil, err
			}
			box.FillColor = withAlpha(col, 0x30)
			box.BoxStyle.Color, box.MedianStyle.Color, box.WhiskerStyle.Color = col, col, col
			box.MedianStyle.Width = vg.Points(1.6)
			box.GlyphStyle.Shape = noGlyph{} // the strip below shows every run
			p.Add(box)
			for _, strip := range []struct {
				xys plotter.XYs
				sty draw.GlyphStyle
			}{
				{pts, draw.GlyphStyle{Color: col, Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}},
				{outl, draw.GlyphStyle{Color: failColor, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}},
			} {
				if len(strip.xys) == 0 {
					continue
				}
				s, err := plotter.NewScatter(strip.xys)
				if err != nil {
					return nil, err
				}
				s.GlyphStyle = strip.sty
				p.Add(s)
			}
		}
		p.NominalX(names...)
		p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
		if ylo <= yhi {
			// The axis spans every run with room to spare, so no marker
			// (an outlier is often the extreme) sits on or past its end.
			pad := math.Max((yhi-ylo)*0.08, 0.5)
			p.Y.Min, p.Y.Max = ylo-pad, yhi+pad
		}
		c, err := smallChart(p, "dist-chart", wi, wl, "Runs of "+wl+" relative to each cell's median", fitXLabels(p, names, smallW-50))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// The per-workload charts' size in points.
const smallW, smallH = 300, 220

// smallChart renders one of the per-workload charts laid out in a grid:
// id "<kind>-<index>", classes "chart <kind>".
// extraH is added to its height for upright x labels.
func smallChart(p *plot.Plot, kind string, i int, workload, label string, extraH vg.Length) (*Chart, error) {
	id := fmt.Sprintf("%s-%d", kind, i)
	svg, err := render(p, smallW, smallH+extraH, id, "chart "+kind, label)
	if err != nil {
		return nil, err
	}
	return &Chart{ID: id, Title: workload, SVG: svg}, nil
}

type noGlyph struct{}

func (noGlyph) DrawGlyph(*draw.Canvas, draw.GlyphStyle, vg.Point) {}

// TrendCharts draws, per workload, each mode's median over the files of the
// history relative to its first appearance, with the 95% interval: a
// regression shows as a line leaving 0%. Nil without history.
func TrendCharts(m *Matrix) ([]*Chart, error) {
	if len(m.Files) < 2 {
		return nil, nil
	}
	var ticks plot.ConstantTicks
	for i, f := range m.Files {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: historyLabel(f.Started, m.Names[i])})
	}
	var out []*Chart
	for wi, wl := range m.Workloads {
		p := newPlot()
		p.Y.Label.Text = "median vs first file (%)"
		for j, mode := range m.Modes {
			hist := m.HistoryOf(wl, mode)
			var first float64
			var seg plotter.XYs
			var errs plotter.YErrors
			col := m.ModeColor(mode)
			// Modes sit a little apart so their whiskers do not overlap.
			dx := (float64(j) - float64(len(m.Modes)-1)/2) * 0.04
			flush := func() error {
				if len(seg) == 0 {
					return nil
				}
				l, s, err := plotter.NewLinePoints(seg)
				if err != nil {
					return err
				}
				l.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.6)}
				s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.4), Shape: draw.CircleGlyph{}}
				e, err := plotter.NewYErrorBars(struct {
					plotter.XYs
					plotter.YErrors
				}{seg, errs})
				if err != nil {
					return err
				}
				e.LineStyle = draw.LineStyle{Color: withAlpha(col, 0x60), Width: vg.Points(0.7)}
				e.CapWidth = vg.Points(4)
				p.Add(l, s, e)
				seg, errs = nil, nil
				return nil
			}
			for i, c := range hist {
				if c == nil || c.MedianNs == 0 || c.Failure != "" {
					// A gap: the cell is missing or failed in this file.
					if err := flush(); err != nil {
						return nil, err
					}
					continue
				}
				if first == 0 {
					first = c.MedianNs
				}
				y := (c.MedianNs/first - 1) * 100
				seg = append(seg, plotter.XY{X: float64(i) + dx, Y: y})
				elo, ehi := 0.0, 0.0
				if c.CILoNs > 0 && c.CIHiNs > 0 {
					elo, ehi = y-(c.CILoNs/first-1)*100, (c.CIHiNs/first-1)*100-y
				}
				errs = append(errs, struct{ Low, High float64 }{elo, ehi})
			}
			if err := flush(); err != nil {
				return nil, err
			}
		}
		zero, err := plotter.NewLine(plotter.XYs{{X: -0.3, Y: 0}, {X: float64(len(m.Files)) - 0.7, Y: 0}})
		if err != nil {
			return nil, err
		}
		zero.LineStyle = draw.LineStyle{Color: inkColor, Width: vg.Points(0.6), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
		p.Add(zero)
		p.X.Tick.Marker = ticks
		p.X.Min, p.X.Max = -0.3, float64(len(m.Files))-0.7
		var names []string
		for _, tk := range ticks {
			names = append(names, tk.Label)
		}
		c, err := smallChart(p, "trend-chart", wi, wl, "Median of "+wl+" per mode over the history", fitXLabels(p, names, smallW-50))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}
