package profileview

import (
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/reports/shared"
)

// The flame graph is hand-written SVG: none of the modules we may use draws
// one (google/pprof's flame graph is an HTML/JS viewer inside its web UI, and
// gonum/plot has no such plotter). It follows Brendan Gregg's layout: the root
// at the bottom, callees stacked above their callers, each frame as wide as
// its inclusive weight (time when tracing, samples when sampling), siblings
// sorted by name so the same program always draws the same picture.

// DefaultFlameDepth is how many levels of calls a flame graph draws unless
// told otherwise (4,600 pixels tall). A deeper path ends in one grey
// "… N more levels" frame as wide as what it stands for: a recursion
// 100,000 deep drawn whole would be 1.8 million pixels tall.
const DefaultFlameDepth = 256

// FlameOptions shape a flame graph.
type FlameOptions struct {
	PerThread bool    // one tower per thread instead of merging equal call paths across threads
	MaxDepth  int     // levels of calls drawn (1: roots only); 0: DefaultFlameDepth; at most MaxTreeDepth
	Width     float64 // of the SVG in pixels; default 1200
	MinWidth  float64 // frames narrower than this (pixels) are left out with their callees; default 0.1
	Title     string  // default: mode and process
}

// flameNode is a call path merged across threads (or a synthetic root,
// thread or "more levels" frame, with fn < 0).
type flameNode struct {
	name     string
	fn       int
	calls    int64 // -1: not known
	incl     int64
	objects  int64 // allocation flame graphs: the objects the path allocated
	excl     int64
	more     int // flameMore: levels of calls it stands for
	children []*flameNode
}

// fn of the synthetic frames: the root, the one standing for the levels below
// the depth limit, and thread ti's (flameThread).
const (
	flameRoot = -1
	flameMore = -2
)

func flameThread(ti int) int { return -3 - ti }

func (n *flameNode) child(fn int, name string) *flameNode {
	for _, c := range n.children {
		if c.fn == fn && (c.name == name || fn == flameMore) { // a flameMore frame's name follows its depth
			return c
		}
	}
	c := &flameNode{name: name, fn: fn}
	n.children = append(n.children, c)
	return c
}

// add merges src, at call depth level, under n. The levels from maxDepth on
// become one flameMore frame, so the recursion is bounded by maxDepth.
func (n *flameNode) add(p *profile.Profile, wt weigh, src *profile.Node, level, maxDepth int) {
	d := n.child(src.Fn, p.Functions[src.Fn].Name)
	d.calls += src.Calls
	d.incl += wt.incl(src)
	d.excl += wt.excl(src)
	if len(src.Children) == 0 {
		return
	}
	if level+1 >= maxDepth {
		m := d.child(flameMore, "")
		for i := range src.Children {
			m.incl += wt.incl(&src.Children[i])
		}
		m.more = max(m.more, profile.Depth(src.Children))
		m.name = fmt.Sprintf("… %d more levels below the depth limit of %d", m.more, maxDepth)
		return
	}
	for i := range src.Children {
		d.add(p, wt, &src.Children[i], level+1, maxDepth)
	}
}

// flameTree merges the profile's threads under one root, down to maxDepth
// levels of calls.
func flameTree(p *profile.Profile, perThread bool, maxDepth int) *flameNode {
	wt := weighOf(p)
	root := &flameNode{name: "all", fn: flameRoot}
	for ti := range p.Threads {
		t := &p.Threads[ti]
		parent := root
		if perThread {
			name := fmt.Sprintf("thread %d", t.OSID)
			if t.ManagedID != 0 {
				name += fmt.Sprintf(" (managed %d)", t.ManagedID)
			}
			parent = root.child(flameThread(ti), name)
			parent.incl = wt.threadTotal(t)
		}
		for ri := range t.Roots {
			parent.add(p, wt, &t.Roots[ri], 0, maxDepth)
		}
		root.incl += wt.threadTotal(t)
	}
	sortFlame(root)
	return root
}

func sortFlame(n *flameNode) {
	slices.SortStableFunc(n.children, func(a, b *flameNode) int { return strings.Compare(a.name, b.name) })
	for _, c := range n.children {
		sortFlame(c)
	}
}

func (n *flameNode) depth() int {
	d := 0
	for _, c := range n.children {
		d = max(d, c.depth())
	}
	return d + 1
}

const (
	flameFrameH = 18.0
	flameTop    = 56.0
	flameMargin = 10.0
	flameFontPx = 12.0
	flameCharPx = 7.0 // average advance of a 12px sans-serif character
)

// FlameGraph writes p as a flame graph SVG with a <title> tooltip per frame.
func FlameGraph(w io.Writer, p *profile.Profile, opts FlameOptions) error {
	if p.Mode == modes.EngineNull {
		return ErrNoCallData
	}
	if opts.Width <= 0 {
		opts.Width = 1200
	}
	if opts.MinWidth <= 0 {
		opts.MinWidth = 0.1
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultFlameDepth
	}
	opts.MaxDepth = min(opts.MaxDepth, MaxTreeDepth)
	if p.Allocations != nil {
		return allocFlame(w, p, opts)
	}
	wt := weighOf(p)
	root := flameTree(p, opts.PerThread, opts.MaxDepth)
	if root.incl == 0 {
		return fmt.Errorf("the profile has no %s recorded: nothing to draw", map[bool]string{true: wt.noun(), false: "time"}[wt.sampling])
	}
	title, scope := flameTitle(p, opts, "Flame graph")
	if p.Focus != nil {
		scope += ", from the calls of functions matching --focus " + p.Focus.String()
	}
	width := opts.Width
	height := flameTop + float64(root.depth())*flameFrameH + flameMargin

	ew := shared.NewWriter(w)
	flameHead(ew, width, height, title, fmt.Sprintf("width: inclusive %s (%s total), %s · hover a frame for its numbers", wt.unit(), wt.fmt(root.incl), scope))

	drawFlame(ew, root, width, height, opts.MinWidth, flameColor, func(n *flameNode) string { return flameTooltip(n, wt, root.incl) })
	fmt.Fprintln(ew, "</svg>")
	return ew.Err()
}

// flameHead starts a flame graph's SVG: its size, style, title and the
// line under it.
func flameHead(ew *shared.Writer, width, height float64, title, subtitle string) {
	fmt.Fprintf(ew, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" class="flame" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="'Liberation Sans',Arial,Helvetica,sans-serif" font-size="%.0f">
<style>.frame text{pointer-events:none;fill:#111} .frame:hover rect{stroke:#111;stroke-width:1}</style>
<rect width="100%%" height="100%%" fill="#fbfbf8"/>
<text x="%.1f" y="24" text-anchor="middle" font-size="17">%s</text>
<text x="%.1f" y="44" fill="#555">%s</text>
`, width, height, width, height, flameFontPx, width/2, html.EscapeString(title), flameMargin, html.EscapeString(subtitle))
}

// drawFlame draws root's frames (the root at the bottom, as wide as the
// graph), each with its colour and tooltip, leaving out those narrower
// than minWidth pixels with what they called.
func drawFlame(ew *shared.Writer, root *flameNode, width, height, minWidth float64, color, tooltip func(*flameNode) string) {
	scale := (width - 2*flameMargin) / float64(root.incl)
	var draw func(n *flameNode, x float64, level int)
	draw = func(n *flameNode, x float64, level int) {
		wpx := float64(n.incl) * scale
		if wpx < minWidth {
			return
		}
		y := height - flameMargin - float64(level+1)*flameFrameH
		calls := "" // unknown (a differential graph's paths count no calls): no attribute rather than 0
		if n.calls >= 0 {
			calls = fmt.Sprintf(` data-calls="%d"`, n.calls)
		}
		fmt.Fprintf(ew, `<g class="frame" data-name="%s" data-incl="%d"%s data-depth="%d">`,
			html.EscapeString(n.name), n.incl, calls, level)
		fmt.Fprintf(ew, "<title>%s</title>", html.EscapeString(tooltip(n)))
		fmt.Fprintf(ew, `<rect x="%.3f" y="%.1f" width="%.3f" height="%.1f" rx="2" fill="%s"/>`,
			x, y, wpx, flameFrameH-1, color(n))
		if lbl := fitLabel(n.name, wpx); lbl != "" {
			fmt.Fprintf(ew, `<text x="%.2f" y="%.1f">%s</text>`, x+3, y+flameFrameH-5.5, html.EscapeString(lbl))
		}
		fmt.Fprintln(ew, "</g>")
		cx := x
		for _, c := range n.children {
			draw(c, cx, level+1)
			cx += float64(c.incl) * scale
		}
	}
	draw(root, flameMargin, 0)
}

func flameTooltip(n *flameNode, wt weigh, total int64) string {
	s := n.name + "\n"
	if n.fn >= 0 && !wt.sampling {
		s += fmt.Sprintf("calls %d · ", n.calls)
	}
	s += fmt.Sprintf("inclusive %s (%s)", wt.fmt(n.incl), share(n.incl, total))
	if n.fn >= 0 {
		s += fmt.Sprintf(" · exclusive %s (%s)", wt.fmt(n.excl), share(n.excl, total))
	}
	return s
}

// fitLabel truncates name to what fits in a frame wpx pixels wide, ending in
// ".." when cut; "" when not even three characters fit.
func fitLabel(name string, wpx float64) string {
	fit := int((wpx - 6) / flameCharPx)
	if fit < 3 {
		return ""
	}
	if utf8.RuneCountInString(name) <= fit {
		return name
	}
	r := []rune(name)
	return string(r[:fit-2]) + ".."
}

// flameColor gives each function a stable warm colour (the classic palette):
// the same function has the same colour in every graph.
func flameColor(n *flameNode) string {
	if n.fn < 0 {
		return "rgb(222,222,214)"
	}
	h := fnv.New32a()
	h.Write([]byte(n.name))
	v := h.Sum32()
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+v%50, 80+(v>>8)%150, (v>>16)%60)
}

// flameTitle is a flame graph's title (opts.Title, or kind, the profile's
// engine, pid and command) and what its towers are: one per call path of
// the merged threads, or one per thread.
func flameTitle(p *profile.Profile, opts FlameOptions, kind string) (title, scope string) {
	title = opts.Title
	if title == "" {
		title = fmt.Sprintf("%s · %s profile of pid %d", kind, profileKind(p), p.PID)
		if len(p.Command) > 0 {
			title += " · " + strings.Join(p.Command, " ")
		}
	}
	scope = "threads merged by call path"
	if opts.PerThread {
		scope = "one tower per thread"
	}
	return title, scope
}
