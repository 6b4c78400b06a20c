package profdiff

import (
	"sort"

	"vbench/internal/profile"
)

// Paths is a side's call paths merged across threads, processes and runs:
// what a differential flame graph draws. A node is a function reached
// through its callers (by name); Self and Incl are summed weights (ns or
// samples) over every run added.
type Paths struct {
	Root *PathNode
	Runs int
	// Total is the sum of every node's Self: all the side's time or samples.
	Total int64
}

// PathNode is one call path.
type PathNode struct {
	Name       string
	Self, Incl int64
	children   map[string]*PathNode
}

// NewPaths returns an empty set of paths.
func NewPaths() *Paths { return &Paths{Root: &PathNode{Name: "all"}} }

func (n *PathNode) child(name string) *PathNode {
	if n.children == nil {
		n.children = map[string]*PathNode{}
	}
	c := n.children[name]
	if c == nil {
		c = &PathNode{Name: name}
		n.children[name] = c
	}
	return c
}

// Child returns the child of n named name, or nil.
func (n *PathNode) Child(name string) *PathNode {
	if n == nil {
		return nil
	}
	return n.children[name]
}

// Children lists n's children by name.
func (n *PathNode) Children() []*PathNode {
	out := make([]*PathNode, 0, len(n.children))
	for _, c := range n.children {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// AddProfile adds one run's profile: every thread's call tree, by path.
func (ps *Paths) AddProfile(p *profile.Profile) {
	sampled := p.Sampled()
	var path []*PathNode // the node of each depth on the current path
	for ti := range p.Threads {
		t := &p.Threads[ti]
		profile.Walk(t.Roots, func(n *profile.Node, d int) bool {
			parent := ps.Root
			if d > 0 {
				parent = path[d-1]
			}
			c := parent.child(p.Functions[n.Fn].Name)
			self, incl := n.ExclusiveNs, n.InclusiveNs
			if sampled {
				self, incl = n.ExclusiveSamples, n.InclusiveSamples
			}
			c.Self += self
			c.Incl += incl
			ps.Total += self
			if d == 0 {
				ps.Root.Incl += incl
			}
			path = append(path[:d], c)
			return true
		}, nil)
	}
}

// AddStack adds one weighted stack, root first (a pprof sample's).
func (ps *Paths) AddStack(stack []string, v int64) {
	n := ps.Root
	n.Incl += v
	for _, name := range stack {
		n = n.child(name)
		n.Incl += v
	}
	if n != ps.Root {
		n.Self += v
	}
	ps.Total += v
}
