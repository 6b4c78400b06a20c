package profile

import (
	"encoding/binary"
	"io"
	"strconv"

	"github.com/google/pprof/profile"
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

// Pprof converts p to pprof's format: one sample per call path (tree node),
// with the node's exclusive values, so pprof's flat figures are exclusive and
// its cumulative ones inclusive. Tracing: calls/count and wall/nanoseconds;
// sampling: samples/count and cpu/nanoseconds (samples × interval). Every
// function has one location; the thread is a label on each sample. Paths
// deeper than PprofMaxStack are cut in the middle (see there).
func (p *Profile) Pprof() *profile.Profile {
	pp := &profile.Profile{
		TimeNanos:     p.Start.UnixNano(),
		DurationNanos: p.DurationNs,
	}
	if p.Sampled() {
		pp.SampleType = []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}
		pp.PeriodType = &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}
		pp.Period = p.IntervalNs
		pp.DefaultSampleType = "cpu"
	} else {
		pp.SampleType = []*profile.ValueType{{Type: "calls", Unit: "count"}, {Type: "wall", Unit: "nanoseconds"}}
		pp.PeriodType = &profile.ValueType{Type: "wall", Unit: "nanoseconds"}
		pp.Period = 1
		pp.DefaultSampleType = "wall"
	}
	m := &profile.Mapping{ID: 1, File: "managed", HasFunctions: true}
	pp.Mapping = []*profile.Mapping{m}
	locs := make([]*profile.Location, len(p.Functions))
	for i, f := range p.Functions {
		locs[i] = addLocation(pp, m, f.Name, f.Module)
	}
	var elided *profile.Location // made on first use
	const keepRoot = PprofMaxStack / 2
	const keepLeaf = PprofMaxStack - keepRoot - 1
	for ti := range p.Threads {
		t := &p.Threads[ti]
		label := map[string][]string{"thread": {strconv.Itoa(t.OSID)}}
		cut := map[string]*profile.Sample{} // merged samples of cut stacks, by location ids
		var stack []*profile.Location       // root first
		var key []byte
		Walk(t.Roots, func(n *Node, d int) bool {
			stack = append(stack[:d], locs[n.Fn])
			var v []int64
			if p.Sampled() {
				v = []int64{n.ExclusiveSamples, n.ExclusiveSamples * p.IntervalNs}
			} else {
				v = []int64{n.Calls, n.ExclusiveNs}
			}
			if v[0] == 0 && v[1] == 0 {
				return true
			}
			if len(stack) <= PprofMaxStack {
				ls := make([]*profile.Location, len(stack)) // leaf first
				for i := range stack {
					ls[i] = stack[len(stack)-1-i]
				}
				pp.Sample = append(pp.Sample, &profile.Sample{Location: ls, Value: v, Label: label})
				return true
			}
			if elided == nil {
				elided = addLocation(pp, m, ElidedFrames, "")
			}
			// The cut stack, leaf first: its key first, the slice only when new.
			key = key[:0]
			for i := len(stack) - 1; i >= len(stack)-keepLeaf; i-- {
				key = binary.AppendUvarint(key, stack[i].ID)
			}
			for i := keepRoot - 1; i >= 0; i-- {
				key = binary.AppendUvarint(key, stack[i].ID)
			}
			if s := cut[string(key)]; s != nil {
				s.Value[0] += v[0]
				s.Value[1] += v[1]
				return true
			}
			ls := make([]*profile.Location, 0, PprofMaxStack)
			for i := len(stack) - 1; i >= len(stack)-keepLeaf; i-- {
				ls = append(ls, stack[i])
			}
			ls = append(ls, elided)
			for i := keepRoot - 1; i >= 0; i-- {
				ls = append(ls, stack[i])
			}
			s := &profile.Sample{Location: ls, Value: v, Label: label}
			cut[string(key)] = s
			pp.Sample = append(pp.Sample, s)
			return true
		}, nil)
	}
	return pp
}

// addLocation adds a function and its one location.
func addLocation(pp *profile.Profile, m *profile.Mapping, name, file string) *profile.Location {
	id := uint64(len(pp.Function) + 1)
	fn := &profile.Function{ID: id, Name: name, SystemName: name, Filename: file}
	pp.Function = append(pp.Function, fn)
	l := &profile.Location{ID: id, Mapping: m, Line: []profile.Line{{Function: fn}}}
	pp.Location = append(pp.Location, l)
	return l
}

// WritePprof writes p in pprof's gzipped protobuf format.
func (p *Profile) WritePprof(w io.Writer) error { return p.Pprof().Write(w) }
