package profile

import (
	"fmt"
	"sort"
)

// Allocations is what the allocation engines record (schema 4): every
// allocated object by type and by the call path that allocated it. Under
// allocations the counts and bytes are exact; under allocation-sampling
// they are estimates, the runtime's AllocationSampled events upscaled
// (Samples says how many there were).
type Allocations struct {
	Sampled bool  `json:"sampled,omitempty"` // estimates from samples, not exact counts
	Samples int64 `json:"samples,omitempty"` // allocation-sampling: events received
	Count   int64 `json:"count"`             // objects, all types
	Bytes   int64 `json:"bytes"`
	// Folded: objects whose path was not kept (a thread's table was full,
	// or the thread had none): they are in Types and under a FoldedPaths
	// root, not under their own path.
	Folded int64 `json:"folded,omitempty"`
	// ProfilerBytes is the memory the engine's tables held: its own cost.
	ProfilerBytes int64       `json:"profiler_bytes"`
	Types         []AllocType `json:"types"` // heaviest (bytes) first
	Threads       []AllocTree `json:"threads"`
}

// FoldedPaths names the root under which folded objects are counted.
const FoldedPaths = "[vbench: allocation paths folded]"

// OutsideCode names the root of allocations made with no profiled frame on
// the stack (the runtime's own, startup, framework code filtered out).
const OutsideCode = "[vbench: no profiled frame]"

// AllocType is one allocated type: Namespace.Type, arrays as Elem[],
// generic types by their definition (List<T>): instantiations are summed.
type AllocType struct {
	Name    string `json:"name"`
	Count   int64  `json:"count"`
	Bytes   int64  `json:"bytes"`
	Samples int64  `json:"samples,omitempty"` // allocation-sampling: events of this type
}

// AllocTree is one thread's allocations as a call tree: a flat list in
// pre-order, each node naming its parent, like Thread's nodes.
type AllocTree struct {
	OSID  int         `json:"os_id"`
	Nodes []AllocNode `json:"nodes"`
	// PID is the thread's process in a profile merged from a process tree
	// (Tree.Merge); 0 means Profile.PID. Not part of profile.json.
	PID int `json:"-"`
}

// AllocNode is one call path: Count and Bytes are inclusive (what the path
// and its callees allocated), Types what the node's own frame allocated,
// by type.
type AllocNode struct {
	Parent int         `json:"parent"` // index of the parent node (smaller); -1: a root
	Fn     int         `json:"fn"`     // index in Profile.Functions
	Count  int64       `json:"count"`
	Bytes  int64       `json:"bytes"`
	Types  []AllocSite `json:"types,omitempty"`
}

// AllocSite is what one frame allocated of one type.
type AllocSite struct {
	Type  int   `json:"type"` // index in Allocations.Types
	Count int64 `json:"count"`
	Bytes int64 `json:"bytes"`
}

// GC is the garbage collections of a profile (the allocation engines).
type GC struct {
	Collections []GCEvent `json:"collections"`       // in order; at most the first 65536
	Count       int64     `json:"count"`             // all of them
	Induced     int64     `json:"induced"`           // of Count, by GC.Collect (reason induced)
	Generation  [3]int64  `json:"by_generation"`     // of Count, by the oldest generation collected
	PauseNs     int64     `json:"pause_ns"`          // the runtime's suspensions for them, summed
	Dropped     int64     `json:"dropped,omitempty"` // collections counted but not listed
}

// GCEvent is one collection.
type GCEvent struct {
	Generation int    `json:"generation"` // 0, 1 or 2 (2: with the large and pinned object heaps)
	Reason     string `json:"reason"`     // GCInduced or GCOther
	PauseNs    int64  `json:"pause_ns"`   // the suspension it ran in
}

// GC reasons.
const (
	GCInduced = "induced"
	GCOther   = "other"
)

// Site returns what the frames at path (function names, root first)
// allocated of type typ, summed over threads; ok false when no such site
// was recorded.
func (a *Allocations) Site(p *Profile, path []string, typ string) (count, bytes int64, ok bool) {
	for ti := range a.Threads {
		nodes := a.Threads[ti].Nodes
		depth := make([]int, len(nodes))
		match := make([]bool, len(nodes))
		for i, n := range nodes {
			d := 0
			parentOK := true
			if n.Parent >= 0 {
				d = depth[n.Parent] + 1
				parentOK = match[n.Parent]
			}
			depth[i] = d
			match[i] = parentOK && d < len(path) && p.Functions[n.Fn].Name == path[d]
			if !match[i] || d != len(path)-1 {
				continue
			}
			for _, s := range n.Types {
				if a.Types[s.Type].Name == typ {
					count += s.Count
					bytes += s.Bytes
					ok = true
				}
			}
		}
	}
	return count, bytes, ok
}

// SelfByFunction sums, over every path ending in function fn (by name),
// what its own frames allocated of type typ.
func (a *Allocations) SelfByFunction(p *Profile, fn, typ string) (count, bytes int64) {
	for ti := range a.Threads {
		for _, n := range a.Threads[ti].Nodes {
			if p.Functions[n.Fn].Name != fn {
				continue
			}
			for _, s := range n.Types {
				if a.Types[s.Type].Name == typ {
					count += s.Count
					bytes += s.Bytes
				}
			}
		}
	}
	return count, bytes
}

// Path is the function names of node i's path, the node's own first, then
// its callers to the root.
func (t *AllocTree) Path(p *Profile, i int) []string {
	var path []string
	for j := i; j >= 0; j = t.Nodes[j].Parent {
		path = append(path, p.Functions[t.Nodes[j].Fn].Name)
	}
	return path
}

// maxGCListed is how many collections a profile lists (the profiler's own
// bound; a merge keeps it).
const maxGCListed = 65536

// mergeAllocations adds process p's allocations (its functions renumbered
// by remap) into m's, by type name: counts, bytes and samples summed, each
// thread's tree kept whole under its process's pid.
func mergeAllocations(m *Allocations, p *Profile, remap []int, index map[string]int) {
	a := p.Allocations
	m.Sampled = m.Sampled || a.Sampled
	m.Samples += a.Samples
	m.Count += a.Count
	m.Bytes += a.Bytes
	m.Folded += a.Folded
	m.ProfilerBytes += a.ProfilerBytes
	types := make([]int, len(a.Types))
	for i, t := range a.Types {
		j, ok := index[t.Name]
		if !ok {
			j = len(m.Types)
			index[t.Name] = j
			m.Types = append(m.Types, AllocType{Name: t.Name})
		}
		m.Types[j].Count += t.Count
		m.Types[j].Bytes += t.Bytes
		m.Types[j].Samples += t.Samples
		types[i] = j
	}
	for _, th := range a.Threads {
		nodes := make([]AllocNode, len(th.Nodes))
		for i, n := range th.Nodes {
			n.Fn = remap[n.Fn]
			sites := make([]AllocSite, len(n.Types))
			for k, s := range n.Types {
				s.Type = types[s.Type]
				sites[k] = s
			}
			n.Types = sites
			nodes[i] = n
		}
		m.Threads = append(m.Threads, AllocTree{OSID: th.OSID, Nodes: nodes, PID: p.PID})
	}
}

// SortTypes puts the heaviest types (bytes) first, as profile.json lists
// them, renumbering every site.
func (a *Allocations) SortTypes() {
	order := make([]int, len(a.Types))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return a.Types[order[i]].Bytes > a.Types[order[j]].Bytes })
	renum := make([]int, len(order))
	types := make([]AllocType, len(order))
	for to, from := range order {
		renum[from] = to
		types[to] = a.Types[from]
	}
	a.Types = types
	for ti := range a.Threads {
		for ni := range a.Threads[ti].Nodes {
			for si := range a.Threads[ti].Nodes[ni].Types {
				s := &a.Threads[ti].Nodes[ni].Types[si]
				s.Type = renum[s.Type]
			}
		}
	}
}

// mergeGC adds g's collections to m's: totals summed, the list kept up to
// the profiler's bound (the rest counted as dropped).
func mergeGC(m, g *GC) {
	m.Count += g.Count
	m.Induced += g.Induced
	for i := range m.Generation {
		m.Generation[i] += g.Generation[i]
	}
	m.PauseNs += g.PauseNs
	m.Dropped += g.Dropped
	keep := min(len(g.Collections), max(0, maxGCListed-len(m.Collections)))
	m.Collections = append(m.Collections, g.Collections[:keep]...)
	m.Dropped += int64(len(g.Collections) - keep)
}

// Type returns the type named name, or nil.
func (a *Allocations) Type(name string) *AllocType {
	for i := range a.Types {
		if a.Types[i].Name == name {
			return &a.Types[i]
		}
	}
	return nil
}

// validate checks the references a reader follows.
func (a *Allocations) validate(nfn int) error {
	for ti, t := range a.Threads {
		for i, n := range t.Nodes {
			if n.Parent < -1 || n.Parent >= i {
				return fmt.Errorf("allocations.threads[%d].nodes[%d]: parent %d is not -1 or the index of an earlier node", ti, i, n.Parent)
			}
			if n.Fn < 0 || n.Fn >= nfn {
				return fmt.Errorf("allocations.threads[%d].nodes[%d]: function %d is not in the function table (%d functions)", ti, i, n.Fn, nfn)
			}
			for _, s := range n.Types {
				if s.Type < 0 || s.Type >= len(a.Types) {
					return fmt.Errorf("allocations.threads[%d].nodes[%d]: type %d is not in allocations.types (%d types)", ti, i, s.Type, len(a.Types))
				}
			}
		}
	}
	return nil
}
