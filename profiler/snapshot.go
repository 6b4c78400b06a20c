package main

/*
#include "vb.h"
*/
import "C"

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
	"unsafe"

	"vbench/internal/modes"
	"vbench/internal/profile"
)

// snapshot turns the C call trees into a profile. It may run while managed
// threads still run (the exit-path fallback, or background threads during
// Shutdown): the C trees are only ever appended to with release stores, so a
// reader sees a consistent, if slightly stale, tree. Frames still open are
// closed at this instant (their in-flight time is added, nothing in C changes).
func snapshot(cfg *config, complete bool) *profile.Profile {
	nowTSC := uint64(C.vb_tsc_now())
	nowMono := int64(C.vb_mono_ns())
	elapsed := nowMono - int64(C.vb_mono_start_ns)
	nsPerTick := 0.0
	if ticks := nowTSC - uint64(C.vb_tsc_start); ticks > 0 {
		nsPerTick = float64(elapsed) / float64(ticks)
	}
	start := startTime()
	p := &profile.Profile{
		Schema:         profile.SchemaVersion,
		Mode:           cfg.engine,
		RuntimeVersion: C.GoString(&C.vb_runtime_version[0]),
		PID:            os.Getpid(),
		ParentPID:      cfg.ppid,
		Command:        cfg.command,
		Start:          start,
		End:            start.Add(time.Duration(elapsed)),
		DurationNs:     elapsed,
		Include:        cfg.include,
		Exclude:        cfg.exclude,
		Complete:       complete,
		Functions:      []profile.Function{},
		Threads:        []profile.Thread{},
	}
	if cfg.engine.Samples() {
		p.IntervalNs = cfg.interval.Nanoseconds()
		p.Samples = int64(C.vb_samples_taken)
		p.KernelMarked = C.vb_kernel_marked != 0
	}
	if cfg.mode == cModeSampling {
		// Every thread's ticks, one per interval of its CPU time, and of
		// the time it waited with managed frames on its stack.
		p.WaitSamples = int64(C.vb_cpu_wait_weight)
		p.Samples = int64(C.vb_cpu_weight) + p.WaitSamples
	}
	if cfg.engine.CountsCalls() {
		p.TimeSample = int64(cfg.timeSample)
	}
	if cfg.mode == cModeNull {
		return p
	}
	b := &builder{p: p, index: map[fnKey]int{}, byID: map[uint32]int{}, nsPerTick: nsPerTick,
		sampling: cfg.engine.Samples(), nowTSC: nowTSC}

	if cfg.mode == cModeInstrumentation {
		b.clockFloor()
	}
	if cfg.engine.Allocates() {
		b.allocations(cfg.mode == cModeAllocSampling)
	}
	if cfg.mode == cModeSampling && C.vb_lines != 0 {
		b.leafLines()
	}
	if cfg.mode == cModeInstrumentation && C.vb_lines != 0 {
		for lb := C.vb_lblocks_head; lb != nil; lb = lb.next {
			fn := b.fn(lb.fn)
			offs, counts := unsafe.Slice(lb.offs, lb.n), unsafe.Slice(lb.counts, lb.n)
			for k := range offs {
				p.Blocks = append(p.Blocks, profile.BlockCount{Fn: fn, Token: uint32(lb.fn.token), IL: int32(offs[k]), Executions: int64(counts[k])})
			}
		}
	}
	for t := C.vb_threads_head(); t != nil; t = t.next_thread {
		if th, ok := b.thread(t); ok {
			p.Threads = append(p.Threads, th)
		}
	}
	if cfg.mode == cModeSampling {
		// The profile's samples are its threads': every one of them is in
		// a frame (a named one when no method's), so profile.json, the
		// table and pprof agree. Taken but on no thread's tree (a tree
		// the arena had no room for): said, not hidden.
		var sum int64
		for _, th := range p.Threads {
			sum += th.Samples
		}
		if lost := p.Samples - sum; lost > 0 {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%d samples were taken on threads with no call tree (the arena had no room for it) and are in no total", lost))
		}
		p.Samples = sum
	}
	if b.fitted > 0 {
		paths := "call paths"
		if b.fitted == 1 {
			paths = "call path"
		}
		why := "" // timing every call leaves nothing to extrapolate: a fit there would be news
		if cfg.timeSample > 1 {
			why = fmt.Sprintf(": a hot path is timed on 1 in %d of its calls after its first 1024, and a timed call takes longer than an untimed one, so a tiny, very hot method's self time is overstated "+
				"and its caller's understated (vbench profile --time-sample 1, a suite mode's time_sample: 1 or %s=1 times every call)", cfg.timeSample, modes.EnvVar("time_sample"))
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("on %d %s the callees' estimated times exceeded their caller's, by up to %.0f%%, and were scaled down to fit%s", b.fitted, paths, 100*(b.fitFactor-1), why))
	}
	if len(b.short) > 0 {
		names := make([]string, 0, len(b.short))
		for n := range b.short {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) > 5 {
			names = append(names[:5], "…")
		}
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d %s too short to time (%s): even the shortest timed call of them took under twice the shortest timed call here (%.0f ns, mostly the clock's own cost), so their time is left in their callers' self time and only their calls are counted",
			len(b.short), map[bool]string{true: "method was", false: "methods were"}[len(b.short) == 1], strings.Join(names, ", "), b.floor*b.nsPerTick))
	}
	if n := int64(C.vb_stacks_elided); n > 0 && cfg.mode == cModeSampling {
		// The signal handler keeps a fixed number of frames, whatever
		// VBENCH_MAX_STACK says (which only the suspending sampler reads).
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d sampled stacks were deeper than %d frames: each kept its %d leaf-most and %d root-most frames, with one %q frame for the middle (the sampling engine's signal handler keeps no more; suspend-sampling keeps up to %s)",
			n, C.VB_CPU_LEAD+C.VB_CPU_RING, C.VB_CPU_LEAD, C.VB_CPU_RING, profile.ElidedFrames, modes.EnvVar("max_stack")))
	} else if n > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d sampled stacks were deeper than %d frames (%s): each kept its %d leaf-most and %d root-most frames, with one %q frame for the middle",
			n, cfg.maxStack, modes.EnvVar("max_stack"), cfg.maxStack/2, cfg.maxStack-cfg.maxStack/2, profile.ElidedFrames))
	}
	if n := int64(C.vb_stacks_dropped); n > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d stacks were not sampled: a tick's stacks held more than %d frames together", n, C.VB_MAXFRAMES))
	}
	if cfg.mode == cModeSampling {
		p.Warnings = append(p.Warnings, cpuWarnings()...)
	}
	if cfg.mode == cModeSuspendSampling && C.vb_leaf_recovery < 0 {
		p.Warnings = append(p.Warnings, "the sampler could not wrap CoreCLR's SIGRTMIN handler: each stack's leaf is where the runtime stopped the thread (a GC safe point), so methods without one (no loop, no call) get no exclusive samples")
	}
	if n := int64(C.vb_stacks_failed); n > 0 {
		p.Warnings = append(p.Warnings, fmt.Sprintf("%d stack walks failed part way and were left out", n))
	}
	if C.vb_arena_exhausted() != 0 {
		p.Warnings = append(p.Warnings, "the call-tree arena ran out: some frames were not recorded")
	}
	if cfg.mode == cModeInstrumentation {
		p.Skipped = skipped()
		switch n := len(p.Skipped); {
		case n == 1:
			p.Warnings = append(p.Warnings, "1 selected method was left uninstrumented, so its calls are not counted (see skipped)")
		case n > 1:
			p.Warnings = append(p.Warnings, fmt.Sprintf("%d selected methods were left uninstrumented, so their calls are not counted (see skipped)", n))
		}
	}
	p.Derive()
	return p
}

// skipped lists the selected methods the instrumentation engine left alone,
// with the reason, in the order they were met.
func skipped() []profile.Skipped {
	var out []profile.Skipped
	n := uint32(C.vb_fn_count())
	for i := uint32(0); i < n; i++ {
		f := C.vb_fn_at(C.uint32_t(i))
		if f.instr == C.VB_INSTR_SKIPPED {
			out = append(out, profile.Skipped{Name: C.GoString(f.name), Module: C.GoString(f.module), Reason: C.GoString(f.skip_reason)})
		}
	}
	return out
}

type fnKey struct{ name, module string }

type builder struct {
	p         *profile.Profile
	index     map[fnKey]int  // function table position by name+module
	byID      map[uint32]int // C record id -> function table position
	nsPerTick float64
	sampling  bool
	nowTSC    uint64
	extra     map[*C.vb_node]uint64 // in-flight ticks of open, timed frames
	outs      []outNode             // the output tree of the current thread; [0] is its top
	wide      map[uint64]int32      // children of nodes with more than outScan, by parent<<32|fn
	// With lines: the leaf IPs' counts of each raw node (leafLines), and
	// those of each output node, by (token, IL offset).
	hits     map[*C.vb_node][]C.vb_lsample
	outLines map[int32][]profile.LineCount
	// ... and the call sites in its caller of the samples through each raw
	// node (lines.c's site entries), and of each output node.
	sites        map[*C.vb_node][]C.vb_lsample
	outCallLines map[int32][]profile.LineCount
	// Paths whose children's estimates exceeded the node's time by more
	// than fitWarn (and fitMinNs at least), and the largest such factor:
	// a warning says their times were scaled down (see project).
	fitted    int
	fitFactor float64
	// Instrumentation: the shortest timed frame of a tiny method (clockFloor),
	// and the functions whose timed calls were too short to time (tooShort).
	floor float64
	short map[string]bool
}

// tinyIL is the largest IL body whose shortest timed frame says what
// timing a call costs: the JIT's always-inline size, a getter's.
const tinyIL = 16

// clockFloor finds what a timed call's own clock reads and calls cost:
// an empty timed frame through the same C functions (vb_timed_floor,
// ~10 ns on this VM), raised to the shortest timed frame of any tiny
// method (IL <= tinyIL bytes, no recorded callee) where that is within 3x
// of it (beyond, the tiny method does something: a call the filter does
// not count). The instrumentation engine times a hot node on 1 call in
// 256: a tiny getter's timed call measured mostly the clock and the
// slow path around it (its mean timed call ran to ~50 ns, its untimed ones
// cost ~3), and extrapolated it was 29 % of a program where the sampler
// saw 2.65 %.
func (b *builder) clockFloor() {
	c0 := float64(C.vb_timed_floor())
	defer func() {
		if c0 > 0 && (b.floor == 0 || b.floor > 3*c0) {
			b.floor = c0
		}
		b.floor = max(b.floor, c0)
	}()
	var work []*C.vb_node
	for t := C.vb_threads_head(); t != nil; t = t.next_thread {
		work = append(work[:0], &t.root)
		for len(work) > 0 {
			c := work[len(work)-1]
			work = work[:len(work)-1]
			for k := c.first; k != nil; k = k.next {
				work = append(work, k)
			}
			if c.fn == nil || c.fn.user == 0 || c.fn.il_size == 0 || c.fn.il_size > tinyIL || c.first != nil || c.min_ticks == 0 {
				continue
			}
			if m := float64(c.min_ticks - 1); b.floor == 0 || m < b.floor {
				b.floor = m
			}
		}
	}
}

// tooShort: node c's shortest timed call took under twice the clock's
// floor, so at least half of what even that call measured is the clock's
// cost, and no estimate of its own time can be made from its calls. Its
// time stays in its caller's. (Its shortest call, not its mean: on a busy
// machine a tiny method's mean timed call ran 5x the floor at 1 in 1 and
// under 2x at 1 in 256, from run to run; the minimum is what the method
// costs at least, and stays put.)
func (b *builder) tooShort(c *C.vb_node) bool {
	if b.floor == 0 || c.min_ticks == 0 || float64(c.min_ticks-1) >= 2*b.floor {
		return false
	}
	if b.short == nil {
		b.short = map[string]bool{}
	}
	b.short[C.GoString(c.fn.name)] = true
	return true
}

// A fit is worth a warning from 10% over, on a node of at least 1 ms: below
// that, the sampling of timed calls alone moves estimates by as much.
const (
	fitWarn  = 1.10
	fitMinNs = 1e6
)

// outNode is a node of the projected, merged output tree. The tree lives in
// one slice (builder.outs, reused across threads) and links by index: for a
// traced C# compiler's ~2 million nodes, a heap object, a child slice and
// an interface-free but pointer-holding profile.Node per node cost several
// times the C arena and kept the garbage collector busy.
type outNode struct {
	fn                 int32
	first, last, next  int32 // children list (in order of first appearance); 0: none
	kids               int32
	calls              int64
	inclNs, exclNs     int64
	inclSmpl, exclSmpl int64
	kIncl, kExcl       int64 // of the samples, the kernel window's
}

// Up to outScan children are found by a scan of the list: most nodes have
// one or two. Wider nodes are looked up in builder.wide, keyed by parent
// index and function.
const outScan = 8

// child returns the index of o's child for function fn, adding it if new.
func (b *builder) child(o int32, fn int) int32 {
	if b.outs[o].kids > outScan {
		if c, ok := b.wide[uint64(o)<<32|uint64(fn)]; ok {
			return c
		}
	} else {
		for c := b.outs[o].first; c != 0; c = b.outs[c].next {
			if int(b.outs[c].fn) == fn {
				return c
			}
		}
	}
	c := int32(len(b.outs))
	b.outs = append(b.outs, outNode{fn: int32(fn)})
	po := &b.outs[o]
	if po.last != 0 {
		b.outs[po.last].next = c
	} else {
		po.first = c
	}
	po.last = c
	po.kids++
	if po.kids == outScan+1 {
		for k := po.first; k != 0; k = b.outs[k].next {
			b.wide[uint64(o)<<32|uint64(b.outs[k].fn)] = k
		}
	} else if po.kids > outScan {
		b.wide[uint64(o)<<32|uint64(fn)] = c
	}
	return c
}

// fn returns the function-table index of a C record. Overloads and generic
// instantiations share a name and so share one row.
func (b *builder) fn(f *C.vb_fn) int {
	if i, ok := b.byID[uint32(f.id)]; ok {
		return i
	}
	k := fnKey{C.GoString(f.name), C.GoString(f.module)}
	i, ok := b.index[k]
	if !ok {
		i = len(b.p.Functions)
		b.p.Functions = append(b.p.Functions, profile.Function{
			ID: i, Name: k.name, Module: k.module, Assembly: C.GoString(f.assembly), Callers: []profile.Caller{},
			Token: uint32(f.token), ModulePath: C.GoString(f.module_path),
		})
		b.index[k] = i
	}
	b.byID[uint32(f.id)] = i
	return i
}

func (b *builder) thread(t *C.vb_thread) (profile.Thread, bool) {
	th := profile.Thread{
		OSID:      int(t.os_tid),
		ManagedID: uint64(t.managed_id),
		CPUNs:     int64(C.vb_thread_cpu_ns(t)),
		Samples:   int64(t.samples),
	}
	root := &t.root
	// Open frames: from the active node up to the root.
	b.extra = map[*C.vb_node]uint64{}
	if !b.sampling {
		active := t.active
		if t.lost != 0 {
			active = t.lost_saved
		}
		for n := active; n != nil && n != root && n.fn != nil; n = n.parent {
			if d := b.nowTSC - uint64(n.start); n.start != 0 && int64(d) > 0 {
				b.extra[n] = d
			}
		}
	}
	b.outs = append(b.outs[:0], outNode{})
	b.wide = map[uint64]int32{}
	b.outLines = map[int32][]profile.LineCount{}
	b.outCallLines = map[int32][]profile.LineCount{}
	b.project(root)
	if b.outs[0].kids == 0 {
		return th, false
	}
	th.Roots = b.finish()
	return th, true
}

// project adds the raw tree below root under top. It walks with an explicit
// stack: a recursion a million calls deep is a million-node chain here.
//
// In sampling mode the raw tree holds every frame; a frame outside the
// user-code filter is dropped and its children reattached to the nearest user
// ancestor, which also takes its exclusive samples (at the top level, with no
// user ancestor, they are lost).
//
// Hot nodes are timed on a sample of their calls, so a node's children's
// estimates can add up to more than the node's own. They are then scaled to
// fit inside it: exclusive time is never negative, and a subtree's exclusive
// times add up to its root's inclusive time, which for rarely called nodes
// near the top of the tree is measured exactly.
func (b *builder) project(root *C.vb_node) {
	// A raw node to add under projected parent o; eff is its inclusive ticks
	// as its parent fitted them; top: o is the thread's top.
	type item struct {
		c   *C.vb_node
		o   int32
		top bool
		eff float64
	}
	var work []item
	// push queues c's children so that they pop in list order.
	var kids []*C.vb_node
	push := func(c *C.vb_node, o int32, top bool, eff func(*C.vb_node) float64) {
		kids = kids[:0]
		for k := c.first; k != nil; k = k.next {
			kids = append(kids, k)
		}
		for i := len(kids) - 1; i >= 0; i-- {
			work = append(work, item{kids[i], o, top, eff(kids[i])})
		}
	}
	push(root, 0, true, b.inclusive)
	for len(work) > 0 {
		it := work[len(work)-1]
		work = work[:len(work)-1]
		c := it.c
		if c.fn == nil {
			continue
		}
		if b.sampling && c.fn.user == 0 {
			if !it.top {
				b.outs[it.o].exclSmpl += int64(c.excl_samples)
				b.outs[it.o].kExcl += int64(c.kexcl_samples)
			} else if c.excl_samples > 0 {
				// No selected caller to take them: a frame of their own, so
				// the thread's samples all stay in its tree.
				d := &b.outs[b.child(0, b.synthetic(profile.UnselectedFrame))]
				d.inclSmpl += int64(c.excl_samples)
				d.exclSmpl += int64(c.excl_samples)
				d.kIncl += int64(c.kexcl_samples)
				d.kExcl += int64(c.kexcl_samples)
			}
			push(c, it.o, it.top, func(*C.vb_node) float64 { return 0 })
			continue
		}
		di := b.child(it.o, b.fn(c.fn))
		d := &b.outs[di] // valid until the next child call
		d.calls += int64(c.calls)
		d.inclSmpl += int64(c.incl_samples)
		d.exclSmpl += int64(c.excl_samples)
		d.kIncl += int64(c.kincl_samples)
		d.kExcl += int64(c.kexcl_samples)
		if hs := b.hits[c]; len(hs) > 0 {
			b.outLines[di] = addLines(b.outLines[di], uint32(c.fn.token), hs)
		}
		if ss := b.sites[c]; len(ss) > 0 && !it.top {
			b.outCallLines[di] = addLines(b.outCallLines[di], 0, ss)
		}
		var sum float64
		for k := c.first; k != nil; k = k.next {
			sum += b.inclusive(k)
		}
		scale := 1.0
		if sum > it.eff && sum > 0 {
			scale = it.eff / sum
			// Against the node's own estimate, not its fitted time: an
			// ancestor's scaling is that ancestor's path, counted there.
			if own := b.inclusive(c); sum > own*fitWarn && b.ns(own) >= fitMinNs {
				b.fitted++
				b.fitFactor = max(b.fitFactor, sum/own)
			}
		}
		d.inclNs += b.ns(it.eff)
		d.exclNs += b.ns(it.eff - sum*scale)
		push(c, di, false, func(k *C.vb_node) float64 { return b.inclusive(k) * scale })
	}
}

// inclusive estimates node c's inclusive ticks: the timed frames' ticks
// (plus an open timed frame's time so far) scaled by calls/timed. A node's
// first calls are all timed, so rarely called nodes are exact; hot nodes are
// timed on a random sample of their calls.
func (b *builder) inclusive(c *C.vb_node) float64 {
	ticks, timed := float64(c.incl_ticks), float64(c.timed)
	if x, ok := b.extra[c]; ok {
		ticks += float64(x)
		timed++
	}
	if timed == 0 || c.calls == 0 || b.tooShort(c) {
		return 0
	}
	return ticks * float64(c.calls) / timed
}

func (b *builder) ns(ticks float64) int64 { return int64(ticks * b.nsPerTick) }

// finish converts the output tree, heaviest children first. All nodes share
// one backing array (each Children slice capped at its length, as
// profile.Unflatten makes them), and each level's slice is carved out before
// its nodes are filled in, so no recursion is needed.
func (b *builder) finish() []profile.Node {
	type item struct {
		o  int32          // output node whose children go into ns
		ns []profile.Node // len: its number of children
	}
	all := make([]profile.Node, len(b.outs)-1)
	carve := func(n int32) []profile.Node {
		s := all[:n:n]
		all = all[n:]
		return s
	}
	roots := carve(b.outs[0].kids)
	work := []item{{0, roots}}
	var kids []int32
	for len(work) > 0 {
		it := work[len(work)-1]
		work = work[:len(work)-1]
		kids = kids[:0]
		for k := b.outs[it.o].first; k != 0; k = b.outs[k].next {
			kids = append(kids, k)
		}
		sort.SliceStable(kids, func(i, j int) bool {
			x, y := &b.outs[kids[i]], &b.outs[kids[j]]
			if b.sampling {
				return x.inclSmpl > y.inclSmpl
			}
			return x.inclNs > y.inclNs
		})
		for i, k := range kids {
			o := &b.outs[k]
			it.ns[i] = profile.Node{Fn: int(o.fn), Calls: o.calls, InclusiveNs: o.inclNs, ExclusiveNs: o.exclNs,
				InclusiveSamples: o.inclSmpl, ExclusiveSamples: o.exclSmpl, KernelInclusiveSamples: o.kIncl, KernelExclusiveSamples: o.kExcl}
			it.ns[i].Lines = b.outLines[k]
			it.ns[i].CallLines = b.outCallLines[k]
			if o.kids > 0 {
				it.ns[i].Children = carve(o.kids)
				work = append(work, item{k, it.ns[i].Children})
			}
		}
	}
	return roots
}

// startTime is when the profiler started in this process (Initialize).
func startTime() time.Time { return time.Unix(0, int64(C.vb_realtime_start_ns)).UTC() }

func cmdline() []string {
	b, err := os.ReadFile("/proc/self/cmdline")
	if err != nil || len(b) == 0 {
		return nil
	}
	var args []string
	for _, a := range bytes.Split(bytes.TrimRight(b, "\x00"), []byte{0}) {
		args = append(args, string(a))
	}
	return args
}

// cpuWarnings says what the sampling engine could not attribute.
func cpuWarnings() []string {
	var w []string
	if n := int64(C.vb_cpu_incomplete); n > 0 {
		w = append(w, fmt.Sprintf("%d of %d sampled stacks stopped short of the thread's first frame (a frame pointer that was none): their frames lie under %q", n, int64(C.vb_cpu_signals), IncompleteStack))
	}
	if n := int64(C.vb_cpu_full); n > 0 {
		w = append(w, fmt.Sprintf("%d samples were lost: a thread's ring of samples was full", n))
	}
	if n := int64(C.vb_cpu_timer_fail); n > 0 {
		w = append(w, fmt.Sprintf("%d threads were not sampled: their CPU timer could not be made", n))
	}
	return w
}

// leafLines reads the sampling engine's line table (lines.c): each sampled
// leaf's weight by (node, IP), and the IL offset the runtime mapped the IP to.
func (b *builder) leafLines() {
	if C.vb_ltab == nil {
		return
	}
	tab := unsafe.Slice(C.vb_ltab, C.VB_LTAB)
	b.hits = map[*C.vb_node][]C.vb_lsample{}
	b.sites = map[*C.vb_node][]C.vb_lsample{}
	for i := range tab {
		e := tab[i]
		if e.node == nil || e.w == 0 {
			continue
		}
		if e.site != 0 {
			b.sites[e.node] = append(b.sites[e.node], e)
		} else {
			b.hits[e.node] = append(b.hits[e.node], e)
		}
	}
	if n := int64(C.vb_lines_lost); n > 0 {
		b.p.Warnings = append(b.p.Warnings, fmt.Sprintf("%d samples have no line: the line table was full", n))
	}
}

// addLines adds a raw node's line entries to an output node's counts ls,
// by IL offset, as token's (0: each entry's own method's, a call site's
// caller). Still pending at the write (noted inside a runtime callback, the
// stop): the IL offset is not known.
func addLines(ls []profile.LineCount, token uint32, hs []C.vb_lsample) []profile.LineCount {
	for _, h := range hs {
		token := token
		if token == 0 {
			if f := C.vb_fn_lookup(h.fid); f != nil {
				token = uint32(f.token)
			}
		}
		il := int32(h.il)
		if il == C.VB_IL_PENDING {
			il = C.VB_IL_UNKNOWN
		}
		found := false
		for j := range ls {
			if ls[j].Token == token && ls[j].IL == il {
				ls[j].Samples += int64(h.w)
				found = true
				break
			}
		}
		if !found {
			ls = append(ls, profile.LineCount{Token: token, IL: il, Samples: int64(h.w)})
		}
	}
	sort.Slice(ls, func(i, j int) bool {
		return ls[i].Token < ls[j].Token || ls[i].Token == ls[j].Token && ls[i].IL < ls[j].IL
	})
	return ls
}
