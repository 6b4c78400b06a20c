package profile

import "sort"

// Derive recomputes the per-function totals of p.Functions from the threads'
// call trees: calls and exclusive figures summed over every node of the
// function; inclusive figures summed only over outermost frames (a node with
// no ancestor of the same function), so recursion is not counted twice;
// callers are the direct parents' functions ("<root>" for top-level frames)
// with the calls (and inclusive samples) made through them.
func (p *Profile) Derive() {
	type callerKey struct {
		fn     int
		caller string
	}
	callers := map[callerKey]*Caller{}
	for i := range p.Functions {
		f := &p.Functions[i]
		f.Calls, f.InclusiveNs, f.ExclusiveNs, f.InclusiveSamples, f.ExclusiveSamples = 0, 0, 0, 0, 0
		f.Callers = []Caller{}
	}
	// Frames of each function on the current path: a node adds its inclusive
	// figures only when its function is not open above it. O(1) per node, so
	// a recursion a million deep costs no more than a million calls side by side.
	open := make([]int, len(p.Functions))
	var path []string // function names of the current node's ancestors, by depth
	for _, t := range p.Threads {
		Walk(t.Roots, func(n *Node, d int) bool {
			f := &p.Functions[n.Fn]
			f.Calls += n.Calls
			f.ExclusiveNs += n.ExclusiveNs
			f.ExclusiveSamples += n.ExclusiveSamples
			if open[n.Fn] == 0 {
				f.InclusiveNs += n.InclusiveNs
				f.InclusiveSamples += n.InclusiveSamples
			}
			parent := RootCaller
			if d > 0 {
				parent = path[d-1]
			}
			k := callerKey{n.Fn, parent}
			c := callers[k]
			if c == nil {
				c = &Caller{Name: parent}
				callers[k] = c
			}
			c.Calls += n.Calls
			c.Samples += n.InclusiveSamples
			open[n.Fn]++
			path = append(path[:d], f.Name)
			return true
		}, func(n *Node, _ int) { open[n.Fn]-- })
	}
	p.deriveLines()
	for k, c := range callers {
		f := &p.Functions[k.fn]
		f.Callers = append(f.Callers, *c)
	}
	for i := range p.Functions {
		cs := p.Functions[i].Callers
		sort.Slice(cs, func(a, b int) bool {
			if cs[a].Calls != cs[b].Calls {
				return cs[a].Calls > cs[b].Calls
			}
			if cs[a].Samples != cs[b].Samples {
				return cs[a].Samples > cs[b].Samples
			}
			return cs[a].Name < cs[b].Name
		})
	}
}

// Sampled reports whether the profile counts samples rather than calls.
func (p *Profile) Sampled() bool { return p.Mode.Samples() }

// Top returns the n functions with the most exclusive time (tracing) or
// exclusive samples (sampling), ties broken by inclusive figures then name.
// n <= 0 returns all of them. A focused view (Focused) lists only the
// functions its focus matches.
func (p *Profile) Top(n int) []Function {
	var fs []Function
	for i := range p.Functions {
		if p.Focus == nil || p.Focus.Matches(&p.Functions[i]) {
			fs = append(fs, p.Functions[i])
		}
	}
	key := func(f Function) (int64, int64) {
		if p.Sampled() {
			return f.ExclusiveSamples, f.InclusiveSamples
		}
		return f.ExclusiveNs, f.InclusiveNs
	}
	sort.SliceStable(fs, func(i, j int) bool {
		ei, ii := key(fs[i])
		ej, ij := key(fs[j])
		if ei != ej {
			return ei > ej
		}
		if ii != ij {
			return ii > ij
		}
		return fs[i].Name < fs[j].Name
	})
	if n > 0 && n < len(fs) {
		fs = fs[:n]
	}
	return fs
}

// Function returns the row named name (the first, if modules differ), or nil.
func (p *Profile) Function(name string) *Function {
	for i := range p.Functions {
		if p.Functions[i].Name == name {
			return &p.Functions[i]
		}
	}
	return nil
}

// KernelView is p narrowed to its kernel window: every node's samples are
// those it took between the program's kernel marks, the function table
// derived again. nil when p marked no kernel.
func (p *Profile) KernelView() *Profile {
	if !p.KernelMarked {
		return nil
	}
	v := *p
	v.Functions = make([]Function, len(p.Functions))
	for i, f := range p.Functions {
		v.Functions[i] = Function{ID: f.ID, Name: f.Name, Module: f.Module, Assembly: f.Assembly,
			Token: f.Token, ModulePath: f.ModulePath, File: f.File, Line: f.Line}
	}
	v.Threads = make([]Thread, len(p.Threads))
	for i, t := range p.Threads {
		flat := Flatten(t.Roots)
		var samples int64
		for k := range flat {
			n := &flat[k]
			n.InclusiveSamples, n.ExclusiveSamples, n.Lines = n.KernelInclusive, n.KernelExclusive, nil
			if n.Parent == -1 {
				samples += n.InclusiveSamples
			}
		}
		roots, _ := Unflatten(flat) // Flatten's order is always valid
		v.Threads[i] = t
		v.Threads[i].Roots, v.Threads[i].Samples = roots, samples
	}
	v.Whole, v.Focus, v.FoldedBy = nil, nil, nil
	v.Derive()
	return &v
}
