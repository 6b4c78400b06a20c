package profile

// Walk visits every node of the forest roots depth-first, parents before
// their children and siblings in order, with an explicit stack instead of
// recursion: a call chain a million frames deep costs a few words per level,
// not a goroutine stack of a million frames.
//
// enter is called on reaching a node, with its depth (roots are depth 0);
// when it returns false the node's children are skipped. leave, if not nil,
// is called after the node's children (or right after enter when there are
// none or they were skipped). Nodes may be modified in place but the trees'
// shape must not change during the walk.
func Walk(roots []Node, enter func(n *Node, depth int) bool, leave func(n *Node, depth int)) {
	type level struct {
		ns   []Node
		next int // index in ns of the next sibling to visit
	}
	stack := []level{{ns: roots}}
	for len(stack) > 0 {
		d := len(stack) - 1
		top := &stack[d]
		if top.next == len(top.ns) {
			stack = stack[:d]
			if d > 0 && leave != nil {
				up := &stack[d-1]
				leave(&up.ns[up.next-1], d-1)
			}
			continue
		}
		n := &top.ns[top.next]
		top.next++
		if enter(n, d) && len(n.Children) > 0 {
			stack = append(stack, level{ns: n.Children})
			continue
		}
		if leave != nil {
			leave(n, d)
		}
	}
}

// Depth returns the number of levels of the forest: 0 when empty, 1 for
// roots without children.
func Depth(roots []Node) int {
	deepest := 0
	Walk(roots, func(_ *Node, d int) bool {
		deepest = max(deepest, d+1)
		return true
	}, nil)
	return deepest
}

// Count returns the number of nodes in the forest.
func Count(roots []Node) int {
	c := 0
	Walk(roots, func(*Node, int) bool { c++; return true }, nil)
	return c
}
