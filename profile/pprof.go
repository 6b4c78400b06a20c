package profile

import (
	"io"
	"strconv"

	"github.com/google/pprof/profile"
)

// Pprof converts p to pprof's format: one sample per call path (tree node),
// with the node's exclusive values, so pprof's flat figures are exclusive and
// its cumulative ones inclusive. Tracing: calls/count and wall/nanoseconds;
// sampling: samples/count and cpu/nanoseconds (samples × interval). Every
// function has one location; the thread is a label on each sample.
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
		fn := &profile.Function{ID: uint64(i + 1), Name: f.Name, SystemName: f.Name, Filename: f.Module}
		pp.Function = append(pp.Function, fn)
		locs[i] = &profile.Location{ID: uint64(i + 1), Mapping: m, Line: []profile.Line{{Function: fn}}}
		pp.Location = append(pp.Location, locs[i])
	}
	var stack []*profile.Location // leaf first when emitted
	var walk func(ns []Node, t *Thread)
	walk = func(ns []Node, t *Thread) {
		for _, n := range ns {
			stack = append(stack, locs[n.Fn])
			var v []int64
			if p.Sampled() {
				v = []int64{n.ExclusiveSamples, n.ExclusiveSamples * p.IntervalNs}
			} else {
				v = []int64{n.Calls, n.ExclusiveNs}
			}
			if v[0] != 0 || v[1] != 0 {
				ls := make([]*profile.Location, len(stack))
				for i := range stack {
					ls[i] = stack[len(stack)-1-i]
				}
				pp.Sample = append(pp.Sample, &profile.Sample{
					Location: ls, Value: v,
					Label: map[string][]string{"thread": {strconv.Itoa(t.OSID)}},
				})
			}
			walk(n.Children, t)
			stack = stack[:len(stack)-1]
		}
	}
	for i := range p.Threads {
		walk(p.Threads[i].Roots, &p.Threads[i])
	}
	return pp
}

// WritePprof writes p in pprof's gzipped protobuf format.
func (p *Profile) WritePprof(w io.Writer) error { return p.Pprof().Write(w) }
