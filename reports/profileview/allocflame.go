package profileview

import (
	"fmt"
	"io"

	"vbench/internal/numfmt"
	"vbench/internal/profile"
	"vbench/reports/shared"
)

// flameTypeBase numbers an allocation flame graph's type frames (what a
// path's own frame allocated, one frame per type, on top of it) apart from
// its functions.
const flameTypeBase = 1 << 30

// allocFlameTree merges p's allocation trees under one root (per thread
// with perThread), each frame as wide as the bytes its path allocated, the
// types each frame allocated itself as frames above it; paths deeper than
// maxDepth end in one "… more levels" frame.
func allocFlameTree(p *profile.Profile, perThread bool, maxDepth int) *flameNode {
	a := p.Allocations
	root := &flameNode{name: "all", fn: flameRoot, calls: -1}
	for ti, t := range a.Threads {
		parent := root
		if perThread {
			parent = root.child(flameThread(ti), fmt.Sprintf("thread %d", t.OSID))
			parent.calls = -1
		}
		at := make([]*flameNode, len(t.Nodes))
		depth := make([]int, len(t.Nodes))
		for i, n := range t.Nodes {
			up := parent
			if n.Parent >= 0 {
				up, depth[i] = at[n.Parent], depth[n.Parent]+1
			} else {
				parent.incl += n.Bytes
				parent.objects += n.Count
			}
			switch {
			case depth[i] > maxDepth: // inside a "more levels" frame already counted
				at[i] = up
				continue
			case depth[i] == maxDepth:
				m := up.child(flameMore, "")
				m.calls, m.incl, m.objects = -1, m.incl+n.Bytes, m.objects+n.Count
				m.more = max(m.more, maxDepth) // at least; the profiler keeps at most 64 frames
				m.name = fmt.Sprintf("… more levels below the depth limit of %d", maxDepth)
				at[i] = m
				continue
			}
			d := up.child(n.Fn, p.Functions[n.Fn].Name)
			d.calls = -1
			d.incl += n.Bytes
			d.objects += n.Count
			for _, s := range n.Types {
				d.excl += s.Bytes
				tf := d.child(flameTypeBase+s.Type, a.Types[s.Type].Name)
				tf.calls = -1
				tf.incl += s.Bytes
				tf.excl += s.Bytes
				tf.objects += s.Count
			}
			at[i] = d
		}
		if perThread {
			root.incl += parent.incl
			root.objects += parent.objects
		}
	}
	sortFlame(root)
	return root
}

// allocFlame is FlameGraph for an allocation profile: width is bytes.
func allocFlame(w io.Writer, p *profile.Profile, opts FlameOptions) error {
	root := allocFlameTree(p, opts.PerThread, opts.MaxDepth)
	if root.incl == 0 {
		return fmt.Errorf("the profile has no allocations recorded: nothing to draw")
	}
	title, scope := flameTitle(p, opts, "Allocation flame graph")
	what := "bytes allocated"
	if p.Allocations.Sampled {
		what = "bytes allocated, estimated from samples"
	}
	width := opts.Width
	height := flameTop + float64(root.depth())*flameFrameH + flameMargin
	ew := shared.NewWriter(w)
	flameHead(ew, width, height, title, fmt.Sprintf("width: %s (%s in all), %s; blue: the types a frame allocated itself · hover a frame for its numbers", what, numfmt.Bytes(float64(root.incl)), scope))
	drawFlame(ew, root, width, height, opts.MinWidth, allocFlameColor, func(n *flameNode) string {
		s := fmt.Sprintf("%s\n%s (%s) · %d objects", n.name, numfmt.Bytes(float64(n.incl)), share(n.incl, root.incl), n.objects)
		if n.fn >= 0 && n.fn < flameTypeBase {
			s += fmt.Sprintf(" · itself %s", numfmt.Bytes(float64(n.excl)))
		}
		return s
	})
	fmt.Fprintln(ew, "</svg>")
	return ew.Err()
}

// allocFlameColor: functions warm as in every flame graph, types blue.
func allocFlameColor(n *flameNode) string {
	if n.fn >= flameTypeBase {
		c := flameColor(n) // stable per name
		var r, g, b int
		fmt.Sscanf(c, "rgb(%d,%d,%d)", &r, &g, &b)
		return fmt.Sprintf("rgb(%d,%d,%d)", b+60, g, r) // the warm palette mirrored into blues
	}
	return flameColor(n)
}
