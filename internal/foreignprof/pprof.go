package foreignprof

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	pprof "github.com/google/pprof/profile"

	"vbench/internal/profile"
)

// ReadPprof reads a pprof profile (gzipped or not) written by any profiler.
// Its values are read as calls when it has a "calls" sample type (a
// tracer's, as vbench's tracing profile.pb.gz), else as samples: a sample
// type counting them ("samples", "cpu-samples": unit count), else CPU or
// wall nanoseconds divided by the profile's period (Go's cpu profile, a
// profiler that records time only). An instruction profile (a sample type
// "instructions") is read by its instructions. Each sample's "thread" label, when it
// has one, is its thread.
func ReadPprof(path string) (*profile.Profile, error) {
	return ReadPprofAs(path, "")
}

// ReadPprofAs is ReadPprof by the sample type index names, as pprof's
// -sample_index takes it: a type's name ("instructions") or its position
// (0, 1, …); "" picks as ReadPprof does. A type other than calls and
// samples is read as counts of it, the profile saying which
// (Profile.SampleType, SampleUnit).
func ReadPprofAs(path, index string) (*profile.Profile, error) {
	stacks, calls, vt, kind, err := pprofStacks(path, index)
	if err != nil {
		return nil, err
	}
	p := FromStacks(stacks, calls)
	if vt != nil {
		p.SampleType, p.SampleUnit = vt.Type, vt.Unit
	}
	if kind != "" && (vt == nil || vt.Type != kind) {
		p.Kind = kind // read by another of its types: say what it is
	}
	return p, nil
}

// pprofStacks reads path's stacks by the sample type index names (""
// picks one); vt is that type when its values are neither calls nor
// samples; kind is "instructions" for an instruction profile, whatever
// type was read.
func pprofStacks(path, index string) (stacks []Stack, calls bool, vt *pprof.ValueType, kind string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, nil, "", err
	}
	defer f.Close()
	pp, err := pprof.Parse(f)
	if err != nil {
		return nil, false, nil, "", fmt.Errorf("%s: not a readable pprof profile: %w", path, err)
	}
	idx, calls, per := valueIndex(pp)
	name := index
	if slices.ContainsFunc(pp.SampleType, func(st *pprof.ValueType) bool { return st.Type == "instructions" }) {
		kind = "instructions"
	}
	if name == "" && kind == "instructions" {
		// An instruction profile (instrprof): its calls are beside the
		// point. A file's default_sample_type is not followed: vbench's
		// own tracing profile.pb.gz names wall time, and is read by calls.
		name = "instructions"
	}
	if name != "" {
		// pprof's own reading of -sample_index: a type's name or its position.
		if idx, err = pp.SampleIndexByName(name); err != nil {
			return nil, false, nil, "", fmt.Errorf("%s: no sample type %q (it has %s)", path, name, sampleTypes(pp))
		}
		st := pp.SampleType[idx]
		calls, per = st.Type == "calls" && st.Unit == "count", 1
		if !calls && !(strings.Contains(st.Type, "sample") && st.Unit == "count") {
			vt = st
		}
	}
	if idx < 0 {
		return nil, false, nil, "", fmt.Errorf("%s: no sample type vbench can count (want calls, samples or a time with a period; it has %s)", path, sampleTypes(pp))
	}
	for _, s := range pp.Sample {
		if idx >= len(s.Value) {
			return nil, false, nil, "", fmt.Errorf("%s: a sample has %d values, the profile's sample types %d", path, len(s.Value), len(pp.SampleType))
		}
		n := s.Value[idx]
		if per > 1 {
			n = int64(math.Round(float64(n) / float64(per)))
		}
		if n <= 0 {
			continue
		}
		var frames []string
		for li := len(s.Location) - 1; li >= 0; li-- { // pprof lists the leaf first
			loc := s.Location[li]
			if len(loc.Line) == 0 {
				frames = append(frames, fmt.Sprintf("0x%x", loc.Address))
				continue
			}
			for k := len(loc.Line) - 1; k >= 0; k-- { // inlined: the callee first
				name := "?"
				if fn := loc.Line[k].Function; fn != nil && fn.Name != "" {
					name = fn.Name
				}
				frames = append(frames, name)
			}
		}
		thread := 0
		if v := s.Label["thread"]; len(v) > 0 {
			thread, _ = strconv.Atoi(v[0])
		} else if v := s.NumLabel["thread"]; len(v) > 0 {
			thread = int(v[0])
		}
		stacks = append(stacks, Stack{Thread: thread, Count: n, Frames: frames})
	}
	return stacks, calls, vt, kind, nil
}

// valueIndex picks the sample value to read: its index, whether it counts
// calls, and what one sample is worth in it (1 for counts).
func valueIndex(pp *pprof.Profile) (idx int, calls bool, per int64) {
	for i, st := range pp.SampleType {
		if st.Type == "calls" && st.Unit == "count" {
			return i, true, 1
		}
	}
	for i, st := range pp.SampleType {
		if strings.Contains(st.Type, "sample") && st.Unit == "count" {
			return i, false, 1
		}
	}
	if pp.Period > 0 && pp.PeriodType != nil {
		for i, st := range pp.SampleType {
			if st.Unit == pp.PeriodType.Unit && (st.Type == "cpu" || st.Type == "wall") {
				return i, false, pp.Period
			}
		}
	}
	return -1, false, 0
}

func sampleTypes(pp *pprof.Profile) string {
	if len(pp.SampleType) == 0 {
		return "none"
	}
	var s []string
	for _, st := range pp.SampleType {
		s = append(s, st.Type+"/"+st.Unit)
	}
	return strings.Join(s, ", ")
}
