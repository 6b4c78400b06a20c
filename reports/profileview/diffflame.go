package profileview

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"io"
	"math"
	"strings"

	"vbench/internal/numfmt"
	"vbench/internal/profdiff"
	"vbench/internal/results"
	"vbench/reports/shared"
)

// The differential flame graph (Brendan Gregg's): NEW's call paths laid out
// as FlameGraph lays out a profile, each frame as wide as its inclusive
// weight in NEW, and coloured by how its self weight changed from OLD: red
// where it grew, blue where it shrank, the deeper the larger the change
// (relative to the largest change of any frame); white where it did not.
// Weights are per run (time: the mean of a side's runs) or shares of the
// side's samples, so sides of different lengths compare. A path OLD had
// and NEW lost has no width in NEW, so it is not drawn.

// DiffFlameOptions shape a differential flame graph.
type DiffFlameOptions struct {
	Title    string // default "Differential flame graph"
	Width    float64
	MaxDepth int // levels drawn; 0: DefaultFlameDepth
}

// diffFrame is a drawn frame's figures, normalised (per run, or a share).
type diffFrame struct{ oldSelf, newSelf, oldIncl, newIncl float64 }

// DiffFlameGraph writes the differential flame graph of old and new, whose
// weights are in unit.
func DiffFlameGraph(w io.Writer, old, new *profdiff.Paths, unit profdiff.Unit, opts DiffFlameOptions) error {
	if new.Root.Incl == 0 {
		return fmt.Errorf("NEW has no %s recorded: nothing to draw", map[bool]string{true: "samples", false: "time"}[unit == profdiff.Share])
	}
	if opts.Width <= 0 {
		opts.Width = 1200
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultFlameDepth
	}
	opts.MaxDepth = min(opts.MaxDepth, MaxTreeDepth)
	norm := func(ps *profdiff.Paths) func(int64) float64 {
		d := float64(max(ps.Runs, 1))
		if unit == profdiff.Share {
			d = float64(max(ps.Total, 1))
		}
		return func(v int64) float64 { return float64(v) / d }
	}
	no, nn := norm(old), norm(new)
	figures := map[*flameNode]diffFrame{}
	var build func(o, n *profdiff.PathNode, level int) *flameNode
	build = func(o, n *profdiff.PathNode, level int) *flameNode {
		f := &flameNode{name: n.Name, fn: 0, calls: -1, incl: n.Incl, excl: n.Self}
		d := diffFrame{newSelf: nn(n.Self), newIncl: nn(n.Incl)}
		if o != nil {
			d.oldSelf, d.oldIncl = no(o.Self), no(o.Incl)
		}
		figures[f] = d
		if level+1 < opts.MaxDepth {
			for _, c := range n.Children() {
				f.children = append(f.children, build(o.Child(c.Name), c, level+1))
			}
		}
		return f
	}
	root := build(old.Root, new.Root, 0)
	root.fn = flameRoot
	largest := 0.0
	for _, d := range figures {
		largest = math.Max(largest, math.Abs(d.newSelf-d.oldSelf))
	}
	fmtv := func(x float64) string {
		if unit == profdiff.Share {
			return numfmt.Percent(x)
		}
		return numfmt.Duration(x)
	}
	change := func(x float64) string {
		if unit == profdiff.Share {
			return numfmt.SignedBy(100*x, func(v float64) string { return fmt.Sprintf("%.2f", v) }) + " pts"
		}
		return numfmt.SignedBy(x, numfmt.Duration)
	}
	color := func(f *flameNode) string {
		d := figures[f]
		if largest == 0 {
			return "rgb(255,255,255)"
		}
		k := (d.newSelf - d.oldSelf) / largest // -1 .. 1
		fade := int(math.Round(255 * (1 - math.Min(1, math.Abs(k)))))
		switch {
		case k > 0:
			return fmt.Sprintf("rgb(255,%d,%d)", fade, fade)
		case k < 0:
			return fmt.Sprintf("rgb(%d,%d,255)", fade, fade)
		}
		return "rgb(255,255,255)"
	}
	tooltip := func(f *flameNode) string {
		d := figures[f]
		return fmt.Sprintf("%s\nself %s → %s (%s) · inclusive %s → %s (%s)", f.name,
			fmtv(d.oldSelf), fmtv(d.newSelf), change(d.newSelf-d.oldSelf),
			fmtv(d.oldIncl), fmtv(d.newIncl), change(d.newIncl-d.oldIncl))
	}
	title := opts.Title
	if title == "" {
		title = "Differential flame graph"
	}
	basis := "self time per run"
	if unit == profdiff.Share {
		basis = "share of samples"
	}
	width := opts.Width
	height := flameTop + float64(root.depth())*flameFrameH + flameMargin
	ew := shared.NewWriter(w)
	fmt.Fprintf(ew, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" class="flame diff" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="'Liberation Sans',Arial,Helvetica,sans-serif" font-size="%.0f">
<style>.frame text{pointer-events:none;fill:#111} .frame rect{stroke:#ccc;stroke-width:0.5} .frame:hover rect{stroke:#111;stroke-width:1}</style>
<rect width="100%%" height="100%%" fill="#fbfbf8"/>
<text x="%.1f" y="24" text-anchor="middle" font-size="17">%s</text>
<text x="%.1f" y="44" fill="#555">width: NEW's inclusive weight · colour: change of %s from OLD, red grew, blue shrank · hover a frame for its numbers</text>
`, width, height, width, height, flameFontPx, width/2, html.EscapeString(title), flameMargin, basis)
	drawFlame(ew, root, width, height, 0.1, color, tooltip)
	fmt.Fprintln(ew, "</svg>")
	return ew.Err()
}

// PairFlame is the differential flame graph of an A/B pair, old the cell new
// was judged against, from the profiles the run kept (results.Cell.Profile,
// every measured run), as inline SVG for the report's why; "" when they are
// gone or were never kept (the report then shows the list alone).
func PairFlame(old, new *results.Cell) template.HTML {
	if old.Profile == "" || new.Profile == "" {
		return ""
	}
	o, err := profdiff.Read(old.Profile, nil, nil)
	if err != nil {
		return ""
	}
	n, err := profdiff.Read(new.Profile, nil, nil)
	if err != nil || o.Side.Unit != n.Side.Unit {
		return ""
	}
	var b bytes.Buffer
	if err := DiffFlameGraph(&b, o.Paths, n.Paths, n.Side.Unit, DiffFlameOptions{Title: new.Key() + " against " + old.Key()}); err != nil {
		return ""
	}
	svg := b.String()
	if i := strings.Index(svg, "<svg"); i > 0 { // inline: no XML declaration
		svg = svg[i:]
	}
	return template.HTML(svg) // our own SVG, every name in it escaped
}
