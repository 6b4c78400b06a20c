package instrprof

import (
	pprof "github.com/google/pprof/profile"

	"vbench/internal/profdiff"
)

// Pprof is p as a pprof profile: a sample a function, valued by its own
// instructions and its calls (sample types "instructions" and "calls",
// counts), one frame deep: valgrind's counts are per function and per call
// edge, not per stack, so no path is made up. `go tool pprof -top` reads it
// in instructions (its default sample type); so do vbench show (by the
// type's name) and vbench diff.
func (p *Profile) Pprof() *pprof.Profile {
	out := &pprof.Profile{
		SampleType: []*pprof.ValueType{{Type: "instructions", Unit: "count"}, {Type: "calls", Unit: "count"}},
		PeriodType: &pprof.ValueType{Type: "instructions", Unit: "count"},
		Period:     1,
		// pprof reads the last sample type unless told: calls.
		DefaultSampleType: "instructions",
	}
	for i, f := range p.Top() {
		id := uint64(i + 1)
		fn := &pprof.Function{ID: id, Name: f.Name, SystemName: f.Name, Filename: f.Object}
		loc := &pprof.Location{ID: id, Line: []pprof.Line{{Function: fn}}}
		out.Function = append(out.Function, fn)
		out.Location = append(out.Location, loc)
		out.Sample = append(out.Sample, &pprof.Sample{Location: []*pprof.Location{loc}, Value: []int64{f.Self, f.Calls}})
	}
	return out
}

// AddTo adds p to s as one run: each function's own instructions (a name
// in two files is one row) and, when counted, its calls.
func (p *Profile) AddTo(s *profdiff.Side) error {
	fns := make(map[string]profdiff.Weight, len(p.Funcs))
	var calls map[string]int64
	if p.CountsCalls {
		calls = make(map[string]int64, len(p.Funcs))
	}
	for _, f := range p.Funcs {
		w := fns[f.Name]
		fns[f.Name] = profdiff.Weight{Self: w.Self + f.Self, Incl: w.Incl + f.Self}
		if calls != nil && f.Calls > 0 {
			calls[f.Name] += f.Calls
		}
	}
	paths, pathCalls := p.paths()
	return s.AddCounted(p.Total, fns, calls, paths, pathCalls)
}

// paths are p's call paths as far as valgrind's counts go: a function
// called from others is on a path caller → function for each caller, its
// own instructions shared among them as the calls' inclusive instructions
// are (exact for a function that calls nothing: a shared helper's growth
// under one stage is that stage's path); a function no counted call
// reached is a path of its own. nil when the file counted no calls.
func (p *Profile) paths() (map[string]profdiff.Weight, map[string]int64) {
	if !p.CountsCalls {
		return nil, nil
	}
	in := map[string][]Edge{}
	for _, e := range p.Edges {
		in[e.Callee] = append(in[e.Callee], e)
	}
	self := map[string]int64{}
	for _, f := range p.Funcs {
		self[f.Name] += f.Self
	}
	paths := map[string]profdiff.Weight{}
	calls := map[string]int64{}
	for name, own := range self {
		var sum int64
		for _, e := range in[name] {
			sum += e.Inclusive
		}
		if sum == 0 {
			paths[profdiff.PathKey([]string{name})] = profdiff.Weight{Self: own, Incl: own}
			continue
		}
		for _, e := range in[name] {
			k := profdiff.PathKey([]string{e.Caller, name})
			paths[k] = profdiff.Weight{Self: int64(float64(own) * float64(e.Inclusive) / float64(sum)), Incl: e.Inclusive}
			calls[k] = e.Calls
		}
	}
	return paths, calls
}
