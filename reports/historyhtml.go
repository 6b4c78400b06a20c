package reports

import (
	_ "embed"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	hist "vbench/internal/history"
	"vbench/internal/modes"
	"vbench/internal/numfmt"
	"vbench/internal/results"
	"vbench/stats"
)

//go:embed history.html.tmpl
var historySource string

var historyTemplate = template.Must(template.New("history").Funcs(template.FuncMap{
	"date":   func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 MST") },
	"short":  short,
	"value":  SeriesValue,
	"word":   ChangeWord,
	"change": func(c hist.Change) string { return ChangeText(&c) },
	"gate":   gateMark,
	"env":    EnvironmentText,
}).Parse(historySource))

// historyPage is what history.html.tmpl draws.
type historyPage struct {
	Name    string
	Suite   string
	Entries []hist.Entry
	Cells   []*historyCell
	Changes int
	// First and Last are the oldest and newest runs (nil when none).
	First, Last *hist.Entry
}

// historyCell is one series drawn, with its change points.
type historyCell struct {
	ID      string
	Series  *hist.Series
	Changes []hist.Change
	SVG     template.HTML
	// Blind is what CI cannot judge yet in the series (nil: nothing, or
	// a series CI does not judge).
	Blind *hist.Blind
}

// History charts' colours: points in ink, stable stretches in the mode's
// colour, change points in red.
var changeColor = color.RGBA{0xdc, 0x26, 0x26, 0xff}

// HistoryHTML writes a history as one self-contained HTML page: per cell
// and series, the values over the appended runs with their 95% intervals,
// each stable stretch's median, the change points marked; then every run's
// commit and date. Inline CSS and SVG (gonum/plot), no scripts or URLs.
func HistoryHTML(w io.Writer, name string, a *hist.Analysis) error {
	page := &historyPage{Name: name, Entries: a.Entries, Changes: len(a.All())}
	if n := len(a.Entries); n > 0 {
		page.First, page.Last = &a.Entries[0], &a.Entries[n-1]
		page.Suite = page.Last.Suite.Name
	}
	m := &Matrix{} // for the modes' colours
	for _, s := range a.Series {
		if !containsMode(m.Modes, s.Mode) {
			m.Modes = append(m.Modes, s.Mode)
		}
	}
	for i, s := range a.Series {
		c := &historyCell{ID: fmt.Sprintf("history-%d", i), Series: s, Changes: a.Changes[i]}
		if i < len(a.Blind) && (a.Blind[i] != hist.Blind{}) {
			b := a.Blind[i]
			c.Blind = &b
		}
		svg, err := historyChart(c, len(a.Entries), m.ModeColor(s.Mode))
		if err != nil {
			return fmt.Errorf("chart of %s: %w", s.Key(), err)
		}
		c.SVG = svg
		page.Cells = append(page.Cells, c)
	}
	return historyTemplate.Execute(w, page)
}

func containsMode(ms []modes.Mode, m modes.Mode) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

const historyW, historyH = 720, 240

// historyChart draws one series: a point per run with its interval, the
// stable stretches' medians as lines in the mode's colour, and a red
// dashed line before each change point's first run, labelled with the
// change.
func historyChart(c *historyCell, runs int, col color.RGBA) (template.HTML, error) {
	s := c.Series
	p := newPlot()
	scale, unit := 1.0, "×"
	if s.Kind == hist.KindTime {
		scale, unit = timeScale(s.Values())
		p.Y.Label.Text = fmt.Sprintf("%s (%s)", s.Metric.Phrase(), unit)
	} else if s.Kind == hist.KindCalibrated {
		p.Y.Label.Text = "time over the calibration's (×)"
	} else if m := results.Measure(s.Kind); m.Valid() {
		scale, unit = measureScale(m, s.Values())
		p.Y.Label.Text = fmt.Sprintf("%s (%s)", m, unit)
	} else {
		p.Y.Label.Text = "overhead multiple (× none)"
	}
	p.X.Label.Text = "run (index, commit)"
	var pts plotter.XYs
	var errs plotter.YErrors
	for _, pt := range s.Points {
		y := pt.Value / scale
		pts = append(pts, plotter.XY{X: float64(pt.Entry), Y: y})
		lo, hi := 0.0, 0.0
		if pt.Lo > 0 && pt.Hi > 0 {
			lo, hi = y-pt.Lo/scale, pt.Hi/scale-y
		}
		errs = append(errs, struct{ Low, High float64 }{lo, hi})
	}
	// Stable stretches: the median of each, from its first run to its last.
	xs := s.Values()
	var cps []stats.ChangePoint
	for _, ch := range c.Changes {
		for i, pt := range s.Points {
			if pt.Entry == ch.Index {
				cps = append(cps, stats.ChangePoint{Index: i})
			}
		}
	}
	for _, seg := range stats.Segments(len(xs), cps) {
		if seg[1] <= seg[0] {
			continue
		}
		y := stats.Median(xs[seg[0]:seg[1]]) / scale
		l, err := plotter.NewLine(plotter.XYs{{X: float64(s.Points[seg[0]].Entry) - 0.4, Y: y}, {X: float64(s.Points[seg[1]-1].Entry) + 0.4, Y: y}})
		if err != nil {
			return "", err
		}
		l.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(2.5)}
		p.Add(l)
	}
	if len(pts) > 0 {
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return "", err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: inkColor, Radius: vg.Points(2.2), Shape: draw.CircleGlyph{}}
		e, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{pts, errs})
		if err != nil {
			return "", err
		}
		e.LineStyle = draw.LineStyle{Color: withAlpha(inkColor, 0x70), Width: vg.Points(0.7)}
		e.CapWidth = vg.Points(3)
		p.Add(e, sc)
	}
	// Change points: found after the y range is known, so their lines span it.
	ymin, ymax := p.Y.Min, p.Y.Max
	for _, ch := range c.Changes {
		x := float64(ch.Index) - 0.5
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: ymin}, {X: x, Y: ymax}})
		if err != nil {
			return "", err
		}
		l.LineStyle = draw.LineStyle{Color: changeColor, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}
		p.Add(l, label(plotter.XY{X: x, Y: ymax}, numfmt.Change(1+ch.Change), vg.Points(3), -vg.Points(10), changeColor))
	}
	p.X.Min, p.X.Max = -0.6, float64(max(runs, 1))-0.4
	p.X.Tick.Marker = commitTicks(s, runs)
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign = draw.XRight
	return render(p, historyW, historyH, c.ID, "chart history-chart", "History of "+s.Key())
}

// timeScale picks a unit for a series of nanoseconds: ms, s or µs.
// measureScale is a whole-program figure's axis unit: a time's as
// timeScale, bytes in MiB (KiB when small), a count as it is.
func measureScale(m results.Measure, xs []float64) (float64, string) {
	switch m.Unit() {
	case "ns":
		return timeScale(xs)
	case "B":
		if stats.Median(xs) >= 1<<20 {
			return 1 << 20, "MiB"
		}
		return 1 << 10, "KiB"
	}
	return 1, "count"
}

func timeScale(xs []float64) (float64, string) {
	m := stats.Median(xs)
	switch {
	case m >= 10e9:
		return 1e9, "s"
	case m >= 10e6:
		return 1e6, "ms"
	}
	return 1e3, "µs"
}

// commitTicks labels at most about 16 runs with "index commit".
func commitTicks(s *hist.Series, runs int) plot.ConstantTicks {
	step := max(1, (runs+15)/16)
	var ticks plot.ConstantTicks
	for _, pt := range s.Points {
		if pt.Entry%step == 0 || pt.Entry == runs-1 {
			ticks = append(ticks, plot.Tick{Value: float64(pt.Entry), Label: fmt.Sprintf("%d %s", pt.Entry, short7(pt.Commit))})
		}
	}
	return ticks
}

func short7(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return commit
}
