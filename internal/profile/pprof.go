package profile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"strconv"

	"github.com/google/pprof/profile"

	"vbench/internal/modes"
)

// PprofMaxStack is the deepest stack a profile.pb.gz sample holds. pprof
// lists every sample's whole stack, so a call chain N deep would cost N²/2
// location references (5·10⁹ for a 100,000-deep recursion), and pprof
// itself walks them all. Deeper stacks keep their PprofMaxStack/2 root-side
// frames and PprofMaxStack/2-1 leaf-side frames around one ElidedFrames frame;
// the leaf (pprof's flat figures) and the outermost callers (their cumulative
// figures) stay right. Samples whose cut stacks are equal are merged.
const PprofMaxStack = 128

// ElidedFrames names the frame that stands for the middle of a stack too deep
// to keep whole (in profile.pb.gz beyond PprofMaxStack frames; in sampled
// stacks beyond the profiler's VBENCH_MAX_STACK).
const ElidedFrames = "[vbench: frames elided]"

// The frames a sampler puts samples under that have no frame of a selected
// method to go to, so that every sample is in a frame and a profile's totals
// agree (profile.json's samples, the threads', the table's, pprof's). The
// sampling engine names a stack with no managed frame for the code its
// interrupted IP lies in: the JIT (libclrjit), the runtime (libcoreclr: the
// GC is part of it, unless the standalone GC is loaded: libclrgc), other
// native code. UnselectedFrame holds the self samples of methods outside the
// include/exclude filter that no selected method called (a thread pool
// thread in framework code).
const (
	NativeFrame     = "[native]"
	JITFrame        = "[JIT]"
	RuntimeFrame    = "[runtime]"
	GCFrame         = "[GC]"
	UnselectedFrame = "[unselected code]"
)

// WritePprof writes p in pprof's gzipped protobuf format: one sample per call
// path (tree node), with the node's exclusive values, so pprof's flat figures
// are exclusive and its cumulative ones inclusive. Tracing: calls/count and
// wall/nanoseconds; sampling: samples/count and wall/nanoseconds (samples ×
// interval: wall time under suspend-sampling, which samples every thread on
// the wall clock; CPU time and waits under sampling).
// Every function has one location (and id: its index + 1); the
// thread and the process are labels on each sample ("thread", and the
// numeric "pid": a profile merged from a process tree is split with
// -tagfocus pid=N). Paths deeper than PprofMaxStack are cut
// in the middle (see there).
//
// The protobuf is encoded by hand, one sample at a time, straight into the
// gzip stream: through github.com/google/pprof/profile every sample is a
// struct with its own stack slice (and the library makes a second one, then
// the whole uncompressed message, before compressing), which for the ~2
// million nodes of a traced C# compiler took over 3 GB and most of the
// writer's time. Protobuf fields may come in any order, so the string table
// and the function and location lists go last, once every string is known.
func (p *Profile) WritePprof(w io.Writer) error {
	// BestSpeed: for the traced compiler's ~300 MB of protobuf, half the time
	// of the default level (2.4 s against 4.8 s) for a quarter more bytes.
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	e := pbWriter{w: bufio.NewWriterSize(zw, 1<<16), strings: map[string]int64{"": 0}, table: []string{""}}
	pb := &e.msg
	valueType := func(field int, typ, unit string) {
		e.msg = e.msg[:0]
		pb.int(1, e.str(typ))
		pb.int(2, e.str(unit))
		e.field(field)
	}
	if p.Allocations != nil {
		return p.writeAllocPprof(zw, &e)
	}
	if p.Sampled() {
		clock := p.SampleClock()
		valueType(1, "samples", "count")
		valueType(1, clock, "nanoseconds")
		valueType(11, clock, "nanoseconds")
		e.top(12, p.IntervalNs)
		e.top(14, e.str(clock))
	} else {
		valueType(1, "calls", "count")
		valueType(1, "wall", "nanoseconds")
		if len(p.Executions) > 0 {
			// Instrumentation with lines: each line's executions, a third
			// value (pprof -sample_index=executions -list Method).
			valueType(1, "executions", "count")
			e.pad = 1
		}
		valueType(11, "wall", "nanoseconds")
		e.top(12, 1)
		e.top(14, e.str("wall"))
	}
	e.top(9, p.Start.UnixNano())
	e.top(10, p.DurationNs)

	elided := uint64(0) // its location id, once used
	const keepRoot = PprofMaxStack / 2
	const keepLeaf = PprofMaxStack - keepRoot - 1
	var stack []uint64 // location ids, root first
	var ids []uint64   // one sample's, leaf first
	// sites[d]: the location of the frame at depth d-1 on the line of its
	// call to the node at depth d, 0 when that line is not known (then the
	// frame's function location, which has no line in a sampled profile:
	// before, a caller sat on its first line, which is a statement).
	var sites []uint64
	for ti := range p.Threads {
		t := &p.Threads[ti]
		thread := e.str(strconv.Itoa(t.OSID))
		proc := int64(t.PID)
		if proc == 0 {
			proc = int64(p.PID)
		}
		// Cut stacks are merged before they are written: their values by
		// the stack's varint bytes, in first-seen order.
		cut := map[string]int{}
		var cutIDs [][]uint64
		var cutVals [][2]int64
		Walk(t.Roots, func(n *Node, d int) bool {
			stack = append(stack[:d], uint64(n.Fn)+1)
			site := uint64(0)
			if d > 0 && p.Sampled() {
				if file, line, ok := n.callLine(); ok {
					site = e.lineLoc(p, int(stack[d-1]-1), file, line)
				}
			}
			sites = append(sites[:d], site)
			v := [2]int64{n.Calls, n.ExclusiveNs}
			if p.Sampled() {
				v = [2]int64{n.ExclusiveSamples, n.ExclusiveSamples * p.IntervalNs}
			}
			if v[0] == 0 && v[1] == 0 {
				return true
			}
			ids = ids[:0]
			if len(stack) <= PprofMaxStack {
				for i := len(stack) - 1; i >= 0; i-- {
					if i+1 < len(stack) && sites[i+1] != 0 {
						ids = append(ids, sites[i+1])
					} else {
						ids = append(ids, stack[i])
					}
				}
				if p.Sampled() && len(n.Lines) > 0 {
					// The leaf's samples on each known line, at a location of
					// their own; the rest (no line known) at the function's.
					for _, l := range n.Lines {
						if l.Line <= 0 || l.Samples <= 0 || l.Samples > v[0] {
							continue
						}
						ids[0] = e.lineLoc(p, n.Fn, l.File, l.Line)
						e.sample(ids, [2]int64{l.Samples, l.Samples * p.IntervalNs}, thread, proc)
						v = [2]int64{v[0] - l.Samples, (v[0] - l.Samples) * p.IntervalNs}
					}
					ids[0] = uint64(n.Fn) + 1
					if v[0] == 0 {
						return e.err == nil
					}
				}
				e.sample(ids, v, thread, proc)
				return e.err == nil
			}
			if elided == 0 {
				elided = uint64(len(p.Functions)) + 1
			}
			for i := len(stack) - 1; i >= len(stack)-keepLeaf; i-- {
				ids = append(ids, stack[i])
			}
			ids = append(ids, elided)
			for i := keepRoot - 1; i >= 0; i-- {
				ids = append(ids, stack[i])
			}
			var key []byte
			for _, id := range ids {
				key = binary.AppendUvarint(key, id)
			}
			if i, ok := cut[string(key)]; ok {
				cutVals[i][0] += v[0]
				cutVals[i][1] += v[1]
				return true
			}
			cut[string(key)] = len(cutIDs)
			cutIDs = append(cutIDs, append([]uint64(nil), ids...))
			cutVals = append(cutVals, v)
			return true
		}, nil)
		for i := range cutIDs {
			e.sample(cutIDs[i], cutVals[i], thread, proc)
		}
	}

	e.writeExecutions(p)
	return e.finish(p, zw, elided)
}

// writeExecutions writes the instrumentation engine's executions per line
// (Profile.Executions), one sample per line with the line's location alone
// (the counts are per method, not per call path) and the pid label, its
// calls and time 0.
func (e *pbWriter) writeExecutions(p *Profile) {
	for _, x := range p.Executions {
		if x.Line <= 0 || x.Executions <= 0 || e.err != nil {
			continue
		}
		e.msg = e.msg[:0]
		e.msg.packed(1, []uint64{e.lineLoc(p, x.Fn, x.File, x.Line)})
		e.msg.packed(2, []uint64{0, 0, uint64(x.Executions)})
		e.label = e.label[:0]
		e.label.int(1, e.str("pid"))
		e.label.int(3, int64(p.PID))
		e.msg.bytes(3, e.label)
		e.field(2)
	}
}

// finish writes the one mapping, a function and a location per function
// (and the elided-frames one, when elided is its id), the string table,
// and closes the stream.
func (e *pbWriter) finish(p *Profile, zw io.Closer, elided uint64) error {
	pb := &e.msg
	e.msg = e.msg[:0]
	pb.int(1, 1)
	pb.int(5, e.str("managed"))
	pb.int(7, 1) // has_functions
	e.field(3)
	function := func(id uint64, name, file string, start int) {
		e.msg = e.msg[:0]
		pb.int(1, int64(id))
		pb.int(2, e.str(name))
		pb.int(3, e.str(name)) // system_name
		pb.int(4, e.str(file))
		if start > 0 {
			pb.int(5, int64(start))
		}
		e.field(5)
	}
	location := func(id, fnID uint64, lineNo int) {
		line := pbuf(nil)
		line.int(1, int64(fnID)) // function_id
		if lineNo > 0 {
			line.int(2, int64(lineNo))
		}
		e.msg = e.msg[:0]
		pb.int(1, int64(id))
		pb.int(2, 1) // mapping_id
		pb.bytes(4, line)
		e.field(4)
	}
	for i := range p.Functions {
		f := &p.Functions[i]
		function(uint64(i)+1, f.Name, f.sourceFile(), f.Line)
		// A sampled frame with a line has a location of its own (lineLoc):
		// this one is for frames whose line is not known.
		at := f.Line
		if p.Sampled() {
			at = 0
		}
		location(uint64(i)+1, uint64(i)+1, at)
	}
	if elided != 0 {
		function(elided, ElidedFrames, "", 0)
		location(elided, elided, 0)
	}
	// Lines in another file than their function's get a function of their
	// own (pprof keeps one file per function).
	for _, k := range e.lineOrder {
		fnID := uint64(k.fn) + 1
		if f := &p.Functions[k.fn]; k.file != "" && k.file != f.File {
			fnID = e.lines[k]
			function(fnID, f.Name, k.file, 0)
		}
		location(e.lines[k], fnID, k.line)
	}
	for _, s := range e.table {
		e.msg = append(e.msg[:0], s...)
		e.field(6)
	}
	if e.err == nil {
		e.err = e.w.Flush()
	}
	if err := zw.Close(); e.err == nil {
		e.err = err
	}
	return e.err
}

// Pprof returns what WritePprof writes, parsed by pprof's own package.
func (p *Profile) Pprof() (*profile.Profile, error) {
	var b bytes.Buffer
	if err := p.WritePprof(&b); err != nil {
		return nil, err
	}
	return profile.Parse(&b)
}

// pbuf appends protobuf fields (wire types varint and length-delimited).
type pbuf []byte

func (b *pbuf) tag(field, wire int) { *b = binary.AppendUvarint(*b, uint64(field)<<3|uint64(wire)) }

// int appends an int64 or uint64 field (negative numbers take 10 bytes).
func (b *pbuf) int(field int, v int64) {
	b.tag(field, 0)
	*b = binary.AppendUvarint(*b, uint64(v))
}

func (b *pbuf) bytes(field int, s []byte) {
	b.tag(field, 2)
	*b = binary.AppendUvarint(*b, uint64(len(s)))
	*b = append(*b, s...)
}

// packed appends a packed repeated int64/uint64 field.
func (b *pbuf) packed(field int, vs []uint64) {
	n := 0
	for _, v := range vs {
		n += uvarintLen(v)
	}
	b.tag(field, 2)
	*b = binary.AppendUvarint(*b, uint64(n))
	for _, v := range vs {
		*b = binary.AppendUvarint(*b, v)
	}
}

func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// lineKey is a location of one source line of one function.
type lineKey struct {
	fn   int
	file string
	line int
}

// lineLoc returns the location id of line (in file, "" for the function's
// own) of function fn, adding it if new: ids after the functions' and the
// elided frame's.
func (e *pbWriter) lineLoc(p *Profile, fn int, file string, line int) uint64 {
	k := lineKey{fn, file, line}
	if id, ok := e.lines[k]; ok {
		return id
	}
	if e.lines == nil {
		e.lines = map[lineKey]uint64{}
	}
	id := uint64(len(p.Functions)) + 2 + uint64(len(e.lineOrder))
	e.lines[k] = id
	e.lineOrder = append(e.lineOrder, k)
	return id
}

// callLine is the line of the caller's call that every sample through n
// came by, when the profile knows one line for all of them: a callee called
// from two lines of one caller, or through a call whose site the walk did
// not know, leaves it unknown (the samples' split among n's callees is not
// recorded per call site).
func (n *Node) callLine() (file string, line int, ok bool) {
	var known int64
	for _, l := range n.CallLines {
		if l.Line <= 0 {
			continue
		}
		if ok && (l.File != file || l.Line != line) {
			return "", 0, false
		}
		file, line, ok = l.File, l.Line, true
		known += l.Samples
	}
	if !ok || known != n.InclusiveSamples {
		return "", 0, false
	}
	return file, line, true
}

// sourceFile is the file pprof shows for f: its source file when known,
// else its module.
func (f *Function) sourceFile() string {
	if f.File != "" {
		return f.File
	}
	return f.Module
}

// pbWriter streams the top-level fields of a pprof Profile message.
type pbWriter struct {
	lines     map[lineKey]uint64 // line locations (lineLoc), in the order made
	lineOrder []lineKey
	w         *bufio.Writer
	msg       pbuf // the message being built, written by field
	out       pbuf
	label     pbuf
	strings   map[string]int64 // string table index by string
	table     []string
	err       error
	pad       int      // zero values after a node sample's two (the executions')
	vals      []uint64 // a sample's values, reused
}

// str returns s's index in the string table, adding it if new.
func (e *pbWriter) str(s string) int64 {
	i, ok := e.strings[s]
	if !ok {
		i = int64(len(e.table))
		e.strings[s] = i
		e.table = append(e.table, s)
	}
	return i
}

// field writes e.msg as top-level field n.
func (e *pbWriter) field(n int) {
	e.out = e.out[:0]
	e.out.bytes(n, e.msg)
	e.write()
}

// top writes a top-level varint field.
func (e *pbWriter) top(n int, v int64) {
	e.out = e.out[:0]
	e.out.int(n, v)
	e.write()
}

func (e *pbWriter) write() {
	if e.err == nil {
		_, e.err = e.w.Write(e.out)
	}
}

// writeAllocPprof writes an allocation engine's profile like a Go heap
// profile's allocation half: sample types alloc_objects (count) and
// alloc_space (bytes, the default), one sample per (path, type) with the
// type's name as label "type" (go tool pprof -tagfocus type=System.String),
// plus "thread" and "pid". Stacks deeper than PprofMaxStack keep their
// leaf-most frames.
func (p *Profile) writeAllocPprof(zw io.Closer, e *pbWriter) error {
	pb := &e.msg
	valueType := func(field int, typ, unit string) {
		e.msg = e.msg[:0]
		pb.int(1, e.str(typ))
		pb.int(2, e.str(unit))
		e.field(field)
	}
	valueType(1, "alloc_objects", "count")
	valueType(1, "alloc_space", "bytes")
	e.top(14, e.str("alloc_space"))
	e.top(9, p.Start.UnixNano())
	e.top(10, p.DurationNs)
	a := p.Allocations
	var ids []uint64
	for _, t := range a.Threads {
		thread := e.str(strconv.Itoa(t.OSID))
		pid := int64(p.PID)
		if t.PID != 0 { // a merged process tree's
			pid = int64(t.PID)
		}
		for i, n := range t.Nodes {
			if len(n.Types) == 0 {
				continue
			}
			ids = ids[:0]
			for j := i; j >= 0 && len(ids) < PprofMaxStack; j = t.Nodes[j].Parent {
				ids = append(ids, uint64(t.Nodes[j].Fn)+1)
			}
			for _, s := range n.Types {
				e.msg = e.msg[:0]
				e.msg.packed(1, ids)
				e.msg.packed(2, []uint64{uint64(s.Count), uint64(s.Bytes)})
				for _, l := range [][2]int64{{e.str("type"), e.str(a.Types[s.Type].Name)}, {e.str("thread"), thread}} {
					e.label = e.label[:0]
					e.label.int(1, l[0])
					e.label.int(2, l[1])
					e.msg.bytes(3, e.label)
				}
				e.label = e.label[:0]
				e.label.int(1, e.str("pid"))
				e.label.int(3, pid)
				e.msg.bytes(3, e.label)
				e.field(2)
			}
		}
	}
	return e.finish(p, zw, 0)
}

// sample writes one Sample: its location ids (leaf first), its two values,
// the thread label (the string table index of its value) and the numeric
// pid label.
func (e *pbWriter) sample(ids []uint64, v [2]int64, thread, pid int64) {
	e.msg = e.msg[:0]
	e.msg.packed(1, ids)
	e.vals = append(e.vals[:0], uint64(v[0]), uint64(v[1]))
	for range e.pad {
		e.vals = append(e.vals, 0)
	}
	e.msg.packed(2, e.vals)
	e.label = e.label[:0]
	e.label.int(1, e.str("thread"))
	e.label.int(2, thread)
	e.msg.bytes(3, e.label)
	e.label = e.label[:0]
	e.label.int(1, e.str("pid"))
	e.label.int(3, pid) // num: -tagfocus pid=4242 matches it as a number
	e.msg.bytes(3, e.label)
	e.field(2)
}

// SampleClock is what a sampled profile's samples are intervals of, as
// pprof names its sample type: "wall" for the suspending sampler (every
// thread's stack on the wall clock, a blocked one too); "cpu" for the
// signal sampler (each thread every interval of its own CPU time), and
// "cpu+wait" when it also weighed waits by the time waited (WaitSamples).
func (p *Profile) SampleClock() string {
	switch {
	case p.Mode == modes.EngineSuspendSampling:
		return "wall"
	case p.WaitSamples > 0:
		return "cpu+wait"
	case p.Mode == modes.EngineSampling || p.Mode == modes.EngineCPUSampling:
		return "cpu"
	}
	return "wall" // another tool's samples (a nettrace's): taken on the wall clock
}
