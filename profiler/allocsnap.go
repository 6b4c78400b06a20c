package main

/*
#include "vb.h"
*/
import "C"

import (
	"fmt"
	"math"
	"sort"
	"unsafe"

	"vbench/internal/profile"
)

// allocTree builds one thread's allocation tree: nodes keyed by parent and
// function, what each node's own frame allocated by type.
type allocTree struct {
	nodes []allocNode
	index map[[2]int]int // parent node+1, function -> node
}

type allocNode struct {
	parent, fn   int
	kids         []int
	self         map[int]*[2]float64 // type -> count, bytes
	count, bytes float64             // inclusive
}

func (t *allocTree) child(parent, fn int) int {
	k := [2]int{parent + 1, fn}
	if i, ok := t.index[k]; ok {
		return i
	}
	i := len(t.nodes)
	t.nodes = append(t.nodes, allocNode{parent: parent, fn: fn})
	if parent >= 0 {
		t.nodes[parent].kids = append(t.nodes[parent].kids, i)
	}
	t.index[k] = i
	return i
}

// add records count objects of type typ and their bytes at path (function
// indices, root first).
func (t *allocTree) add(path []int, typ int, count, bytes float64) {
	n := -1
	for _, fn := range path {
		n = t.child(n, fn)
	}
	nd := &t.nodes[n]
	if nd.self == nil {
		nd.self = map[int]*[2]float64{}
	}
	v := nd.self[typ]
	if v == nil {
		v = &[2]float64{}
		nd.self[typ] = v
	}
	v[0] += count
	v[1] += bytes
	for ; n >= 0; n = t.nodes[n].parent {
		t.nodes[n].count += count
		t.nodes[n].bytes += bytes
	}
}

// flat lists the tree in pre-order, heaviest children first.
func (t *allocTree) flat() []profile.AllocNode {
	var out []profile.AllocNode
	type item struct{ n, parent int }
	var roots []int
	for i := range t.nodes {
		if t.nodes[i].parent < 0 {
			roots = append(roots, i)
		}
	}
	heavy := func(xs []int) {
		sort.SliceStable(xs, func(a, b int) bool { return t.nodes[xs[a]].bytes > t.nodes[xs[b]].bytes })
	}
	heavy(roots)
	var work []item
	for i := len(roots) - 1; i >= 0; i-- {
		work = append(work, item{roots[i], -1})
	}
	for len(work) > 0 {
		it := work[len(work)-1]
		work = work[:len(work)-1]
		nd := &t.nodes[it.n]
		o := profile.AllocNode{Parent: it.parent, Fn: nd.fn, Count: round(nd.count), Bytes: round(nd.bytes)}
		for typ, v := range nd.self {
			o.Types = append(o.Types, profile.AllocSite{Type: typ, Count: round(v[0]), Bytes: round(v[1])})
		}
		sort.Slice(o.Types, func(a, b int) bool { return o.Types[a].Type < o.Types[b].Type })
		me := len(out)
		out = append(out, o)
		heavy(nd.kids)
		for i := len(nd.kids) - 1; i >= 0; i-- {
			work = append(work, item{nd.kids[i], me})
		}
	}
	return out
}

func round(x float64) int64 { return int64(math.Round(x)) }

// synthetic returns the function-table index of a frame vbench names (a
// root standing for what is not a method).
func (b *builder) synthetic(name string) int {
	k := fnKey{name, ""}
	if i, ok := b.index[k]; ok {
		return i
	}
	i := len(b.p.Functions)
	b.p.Functions = append(b.p.Functions, profile.Function{ID: i, Name: name, Callers: []profile.Caller{}})
	b.index[k] = i
	return i
}

// allocations reads the allocation engines' tables (resolved by C before
// the write) into p.Allocations, and the GC records into p.GC.
func (b *builder) allocations(sampled bool) {
	p := b.p
	a := &profile.Allocations{Sampled: sampled, Types: []profile.AllocType{}, Threads: []profile.AllocTree{}}
	typeIdx := map[C.ClassID]int{}
	byName := map[string]int{}
	var typeCount, typeBytes []float64
	typeOf := func(cls C.ClassID) int {
		if i, ok := typeIdx[cls]; ok {
			return i
		}
		var buf [512]C.char
		name := fmt.Sprintf("[vbench: unknown type 0x%x]", uint64(cls))
		if C.vb_type_name(cls, &buf[0], C.size_t(len(buf))) == 0 {
			name = C.GoString(&buf[0])
		}
		i, ok := byName[name]
		if !ok {
			i = len(a.Types)
			a.Types = append(a.Types, profile.AllocType{Name: name})
			typeCount, typeBytes = append(typeCount, 0), append(typeBytes, 0)
			byName[name] = i
		}
		typeIdx[cls] = i
		return i
	}
	values := func(count, bytes C.uint64_t, ecount, ebytes C.double) (float64, float64) {
		if sampled {
			return float64(ecount), float64(ebytes)
		}
		return float64(count), float64(bytes)
	}
	incomplete := -1
	var path []int
	for t := C.vb_atabs; t != nil; t = t.next {
		tree := &allocTree{index: map[[2]int]int{}}
		sites := unsafe.Slice(t.sites, C.VB_ALLOC_SITES)
		var fns []*C.vb_fn
		if t.fns != nil {
			fns = unsafe.Slice(t.fns, t.nresolved)
		}
		for i := range sites {
			s := &sites[i]
			if s.cls == 0 {
				continue
			}
			typ := typeOf(s.cls)
			count, bytes := values(s.count, s.bytes, s.ecount, s.ebytes)
			typeCount[typ] += count
			typeBytes[typ] += bytes
			if sampled {
				a.Samples += int64(s.count)
				a.Types[typ].Samples += int64(s.count)
			}
			path = path[:0]
			if s.rooted == 0 {
				if incomplete < 0 {
					incomplete = b.synthetic(IncompleteStack)
				}
				path = append(path, incomplete)
			}
			// Leaf first in the table: root first here, native frames and
			// frames outside the filter left out (their allocations go to
			// the nearest profiled caller).
			for k := int(s.n) - 1; k >= 0; k-- {
				j := int(s.off) + k
				if j >= len(fns) || fns[j] == nil || fns[j].user == 0 {
					continue
				}
				path = append(path, b.fn(fns[j]))
			}
			if len(path) == 0 || (s.rooted == 0 && len(path) == 1) {
				path = append(path[:0], b.synthetic(profile.OutsideCode))
			}
			tree.add(path, typ, count, bytes)
		}
		if len(tree.nodes) > 0 {
			a.Threads = append(a.Threads, profile.AllocTree{OSID: int(t.tid), Nodes: tree.flat()})
		}
	}
	folded := &allocTree{index: map[[2]int]int{}}
	for i := range C.vb_afolds {
		f := &C.vb_afolds[i]
		if f.cls == 0 {
			continue
		}
		typ := typeOf(f.cls)
		count, bytes := values(f.count, f.bytes, C.double(f.ecount_fx)/1024, C.double(f.ebytes_fx)/1024)
		typeCount[typ] += count
		typeBytes[typ] += bytes
		if sampled {
			a.Samples += int64(f.count)
			a.Types[typ].Samples += int64(f.count)
		}
		folded.add([]int{b.synthetic(profile.FoldedPaths)}, typ, count, bytes)
	}
	if len(folded.nodes) > 0 {
		a.Threads = append(a.Threads, profile.AllocTree{OSID: 0, Nodes: folded.flat()})
	}
	for i := range a.Types {
		a.Types[i].Count, a.Types[i].Bytes = round(typeCount[i]), round(typeBytes[i])
		a.Count += a.Types[i].Count
		a.Bytes += a.Types[i].Bytes
	}
	a.SortTypes() // heaviest first: the types are renumbered, and the sites with them
	a.Folded = int64(C.vb_alloc_folded)
	a.ProfilerBytes = int64(C.vb_alloc_memory())
	p.Allocations = a
	if a.Folded > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d allocated objects were counted by type only, under %q: their thread's table of paths was full (%d paths, %d frames) or the thread had none (after %d threads)",
			a.Folded, profile.FoldedPaths, C.VB_ALLOC_SITES/4*3, C.VB_ALLOC_FRAMES, C.VB_ALLOC_THREADS))
	}
	if n := int64(C.vb_alloc_fold_lost); n > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d allocated objects were not counted: the table of folded types was full (%d types)", n, C.VB_ALLOC_FOLDS))
	}
	if n := int64(C.vb_alloc_walk_short); n > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d allocations' paths were deeper than %d frames: their leaf-most %d are kept, under %q", n, C.VB_ALLOC_DEPTH, C.VB_ALLOC_DEPTH, IncompleteStack))
	}
	if sampled && C.vb_asample_events == 0 {
		p.Warnings = append(p.Warnings, "allocation-sampling received no AllocationSampled event: the runtime did not deliver the event (a runtime without it, or a program that allocated less than ~100 KB); the allocation figures are empty, not zero")
	}
	if n := int64(C.vb_asample_bad); n > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d AllocationSampled events could not be read (an unexpected payload) and were left out", n))
	}
	p.GC = gcs()
}

// gcs reads the garbage collections gc.c recorded.
func gcs() *profile.GC {
	n := uint64(C.vb_gc_count)
	g := &profile.GC{Collections: []profile.GCEvent{}, Count: int64(n), Induced: int64(C.vb_gc_induced), PauseNs: int64(C.vb_gc_pause_ns)}
	for i := range g.Generation {
		g.Generation[i] = int64(C.vb_gc_by_gen[i])
	}
	listed := min(n, uint64(C.VB_GC_MAX))
	for i := uint64(0); i < listed; i++ {
		r := &C.vb_gcs[i]
		reason := profile.GCOther
		if r.induced != 0 {
			reason = profile.GCInduced
		}
		g.Collections = append(g.Collections, profile.GCEvent{Generation: int(r.generation), Reason: reason, PauseNs: int64(r.pause_ns)})
	}
	g.Dropped = int64(n - listed)
	return g
}
