package main

/*
#include "vb.h"
*/
import "C"

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"vbench/internal/atomicfile"
	"vbench/internal/profile"
	"vbench/internal/timeline"
)

// writeTimeline drains the C timeline (timeline.c, hot.c) into
// timeline.json in dir, once, at the write: every thread's kept calls, the
// GCs, JIT compilations and exceptions on their threads. Threads may still
// run (the exit path): a frame still open is closed at this instant.
func writeTimeline(cfg *config, dir string) *profile.Timeline {
	nowTSC := uint64(C.vb_tsc_now())
	elapsed := int64(C.vb_mono_ns()) - int64(C.vb_mono_start_ns)
	usPerTick := 0.0
	if ticks := nowTSC - uint64(C.vb_tsc_start); ticks > 0 {
		usPerTick = float64(elapsed) / float64(ticks) / 1e3
	}
	start := uint64(C.vb_tsc_start)
	us := func(tsc uint64) float64 {
		if tsc < start {
			return 0
		}
		return float64(tsc-start) * usPerTick
	}
	pid := os.Getpid()
	info := &profile.Timeline{File: timeline.File, Cap: int64(cfg.timelineCap), MinNs: cfg.timelineMin.Nanoseconds()}
	names := map[*C.vb_fn]string{}
	name := func(f *C.vb_fn) string {
		if f == nil {
			return "?"
		}
		n, ok := names[f]
		if !ok {
			n = C.GoString(f.name)
			names[f] = n
		}
		return n
	}
	var ev []timeline.Event
	ev = append(ev, timeline.Event{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": processName(cfg.command, pid)}})
	if cfg.engine.Samples() {
		ev = append(ev, sampleEvents(cfg, pid, us, info)...)
	}
	for t := C.vb_threads_head(); t != nil; t = t.next_thread {
		l := t.tl
		if l == nil || cfg.engine.Samples() {
			continue
		}
		tid := int(l.os_tid)
		ev = append(ev, timeline.Event{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"name": fmt.Sprintf("thread %d", tid)}})
		n := uint64(C.vb_tl_n(l))
		evs := unsafe.Slice(l.ev, n)
		for i := range evs {
			e := &evs[i]
			ts, dur := uint64(e.ts), uint64(e.dur)
			var args map[string]any
			if dur == 0 { // still open at the write
				dur = nowTSC - ts
				args = map[string]any{"open": true}
			}
			ev = append(ev, timeline.Event{Name: name(e.fn), Cat: timeline.CatCall, Ph: "X", Ts: us(ts), Dur: float64(dur) * usPerTick, Pid: pid, Tid: tid, Args: args})
			info.Calls++
		}
		info.Folded += int64(l.folded)
		info.Dropped += int64(l.dropped)
		if end := uint64(l.end_tsc); end != 0 {
			ev = append(ev, timeline.Event{Name: "thread exit", Cat: timeline.CatThread, Ph: "i", S: "t", Ts: us(end), Pid: pid, Tid: tid})
		}
	}
	if cfg.engine.Allocates() {
		ev = append(ev, allocationEvents(pid, us, info)...)
	}
	ngc := min(uint64(C.vb_gc_count), C.VB_GC_MAX)
	for _, g := range unsafe.Slice(&C.vb_gcs[0], ngc) {
		if g.t0 == 0 || g.t1 < g.t0 {
			continue // still running, or no suspension seen
		}
		why := "other"
		if g.induced != 0 {
			why = "induced"
		}
		ts, dur := us(uint64(g.t0)), float64(g.t1-g.t0)*usPerTick
		if cfg.engine.Samples() { // on the grid the sample slices it cuts are on (timeline.Slices)
			ts, dur = timeline.Grid(ts), timeline.Grid(us(uint64(g.t1)))-timeline.Grid(ts)
		}
		ev = append(ev, timeline.Event{Name: fmt.Sprintf("GC gen%d (%s)", int(g.generation), why), Cat: timeline.CatGC, Ph: "X",
			Ts: ts, Dur: dur, Pid: pid, Tid: int(g.tid),
			Args: map[string]any{"generation": int(g.generation), "reason": why, "pause_ns": int64(g.pause_ns)}})
	}
	njit := min(uint64(C.vb_tl_njit), C.VB_TL_JITS)
	for _, j := range unsafe.Slice(&C.vb_tl_jits[0], njit) {
		if j.tid == 0 || j.t1 < j.t0 {
			continue
		}
		ev = append(ev, timeline.Event{Name: "JIT " + name(j.fn), Cat: timeline.CatJIT, Ph: "X", Ts: us(uint64(j.t0)), Dur: float64(j.t1-j.t0) * usPerTick, Pid: pid, Tid: int(j.tid)})
	}
	nexc := min(uint64(C.vb_tl_nexc), C.VB_TL_EXCS)
	var buf [512]C.char
	for _, x := range unsafe.Slice(&C.vb_tl_excs[0], nexc) {
		if x.tid == 0 {
			continue
		}
		cls := "?"
		if x.cls != 0 && C.vb_type_name(x.cls, &buf[0], C.size_t(len(buf))) == 0 {
			cls = C.GoString(&buf[0])
		}
		ev = append(ev, timeline.Event{Name: "throw " + cls, Cat: timeline.CatException, Ph: "i", S: "t", Ts: us(uint64(x.ts)), Pid: pid, Tid: int(x.tid), Args: map[string]any{"type": cls}})
	}
	info.Events = int64(len(ev))
	what := fmt.Sprintf("calls shorter than %v were folded into their callers (%d of them); %d calls or allocations were dropped at the cap of %d events", cfg.timelineMin, info.Folded, info.Dropped, info.Cap)
	if cfg.engine.Samples() {
		what = fmt.Sprintf("%d samples as %d nested slices (a sample stands for its weight before its tick); %d samples were dropped at the cap of %d events", info.Samples, info.Slices, info.Dropped, info.Cap)
	}
	timeline.Sort(ev)
	tr := &timeline.Trace{TraceEvents: ev, OtherData: map[string]any{
		"producer": "vbench profile --timeline", "mode": string(cfg.engine), "pid": pid,
		"calls": info.Calls, "allocations": info.Allocations, "samples": info.Samples, "folded_calls": info.Folded, "dropped": info.Dropped,
		"cap_events": info.Cap, "min_duration_ns": info.MinNs, "note": what,
	}}
	err := atomicfile.Write(filepath.Join(dir, timeline.File), 0o666, func(w io.Writer) error {
		n, err := timeline.Write(w, tr)
		info.Bytes = n
		return err
	})
	if err != nil {
		info.File, info.Error = "", fmt.Sprintf("writing %s: %v", timeline.File, err)
	}
	return info
}

// sampleEvents are the sampling engines' timeline: each thread's samples
// in time order (stamped at the tick: sampling_handler.c, suspend_sampling.c),
// their stacks the profile's (frames outside the filter left out), as
// nested slices (timeline.Slices), cut at the thread's GCs so that the GC
// slices nest with them. Past the cap (samples kept in C; slices here) the
// samples are counted as dropped.
func sampleEvents(cfg *config, pid int, us func(uint64) float64, info *profile.Timeline) []timeline.Event {
	var ev []timeline.Event
	cuts := map[int][]float64{}
	for _, g := range unsafe.Slice(&C.vb_gcs[0], min(uint64(C.vb_gc_count), C.VB_GC_MAX)) {
		if g.t0 != 0 && g.t1 >= g.t0 {
			cuts[int(g.tid)] = append(cuts[int(g.tid)], us(uint64(g.t0)), us(uint64(g.t1)))
		}
	}
	ivUs := float64(cfg.interval.Nanoseconds()) / 1e3
	stacks := map[*C.vb_node][]string{}
	stack := func(leaf *C.vb_node) []string {
		st, ok := stacks[leaf]
		if ok {
			return st
		}
		for n := leaf; n != nil; n = n.parent {
			if n.fn != nil && n.fn.user != 0 {
				st = append(st, C.GoString(n.fn.name))
			}
		}
		slices.Reverse(st)
		if len(st) == 0 {
			st = []string{profile.UnselectedFrame}
		}
		stacks[leaf] = st
		return st
	}
	left := cfg.timelineCap
	for t := C.vb_threads_head(); t != nil; t = t.next_thread {
		l := t.tl
		if l == nil {
			continue
		}
		tid := int(l.os_tid)
		raw := unsafe.Slice((*C.vb_tl_smp)(unsafe.Pointer(l.ev)), uint64(C.vb_tl_n(l)))
		samples := make([]timeline.Sample, len(raw))
		for i, e := range raw {
			samples[i] = timeline.Sample{Ts: us(uint64(e.ts)), Dur: float64(e.weight) * ivUs, Stack: stack(e.leaf)}
		}
		sl, used := timeline.Slices(pid, tid, samples, cuts[tid], ivUs, left)
		left -= len(sl)
		info.Samples += int64(used)
		info.Slices += int64(len(sl))
		info.Dropped += int64(l.dropped) + int64(len(samples)-used)
		ev = append(ev, timeline.Event{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"name": fmt.Sprintf("thread %d", tid)}})
		ev = append(ev, sl...)
	}
	return ev
}

// allocationEvents are the allocation engines' timeline: each object (or
// sample) an instant on its thread, with its type, bytes and call path
// (root first), after the write resolved the tables' IPs.
func allocationEvents(pid int, us func(uint64) float64, info *profile.Timeline) []timeline.Event {
	var ev []timeline.Event
	types := map[C.ClassID]string{}
	var buf [512]C.char
	typeName := func(cls C.ClassID) string {
		n, ok := types[cls]
		if !ok {
			n = fmt.Sprintf("[vbench: unknown type 0x%x]", uint64(cls))
			if C.vb_type_name(cls, &buf[0], C.size_t(len(buf))) == 0 {
				n = C.GoString(&buf[0])
			}
			types[cls] = n
		}
		return n
	}
	for t := C.vb_atabs; t != nil; t = t.next {
		info.Dropped += int64(t.dropped)
		if t.ev == nil {
			continue
		}
		tid := int(t.tid)
		sites := unsafe.Slice(t.sites, C.VB_ALLOC_SITES)
		var fns []*C.vb_fn
		if t.fns != nil {
			fns = unsafe.Slice(t.fns, t.nresolved)
		}
		paths := map[uint32]string{}
		path := func(site uint32) string {
			if site == C.VB_ASITE_NONE || site >= C.VB_ALLOC_SITES {
				return profile.FoldedPaths
			}
			p, ok := paths[site]
			if ok {
				return p
			}
			s := &sites[site]
			var names []string
			for k := int(s.n) - 1; k >= 0; k-- { // leaf first in the table
				if i := int(s.off) + k; i < len(fns) && fns[i] != nil {
					names = append(names, C.GoString(fns[i].name))
				}
			}
			p = strings.Join(names, " > ")
			paths[site] = p
			return p
		}
		ev = append(ev, timeline.Event{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"name": fmt.Sprintf("thread %d", tid)}})
		n := uint64(C.vb_aev_n(t))
		for _, e := range unsafe.Slice(t.ev, n) {
			typ := typeName(e.cls)
			ev = append(ev, timeline.Event{Name: "new " + typ, Cat: timeline.CatAlloc, Ph: "i", S: "t", Ts: us(uint64(e.ts)), Pid: pid, Tid: tid,
				Args: map[string]any{"type": typ, "bytes": uint64(e.bytes), "stack": path(uint32(e.site))}})
			info.Allocations++
		}
	}
	return ev
}

// processName is how Perfetto names the process: its command, short.
func processName(cmd []string, pid int) string {
	s := strings.Join(cmd, " ")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	if s == "" {
		s = fmt.Sprintf("pid %d", pid)
	}
	return s
}
