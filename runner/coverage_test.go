package runner

import (
	"reflect"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/suite"
)

// Coverage is what a run computes for one workload from its measured runs'
// profiles, through the coverageSets the runner fills run by run: the union
// of the tracing profiles' hot functions (each with >= 1% of its own
// profile's total exclusive time), and how many of them have inclusive
// samples in at least one sampling profile. Nil when either list is empty or
// no function is hot.
func Coverage(tracing, sampling []*profile.Profile) *results.Coverage {
	var t, s coverageSets
	for _, p := range tracing {
		t.addTracing(p)
	}
	for _, p := range sampling {
		s.addSampling(p)
	}
	return coverage(&t, &s)
}

// traced is a tracing profile with the given exclusive times.
func traced(excl map[string]int64) *profile.Profile {
	p := &profile.Profile{Mode: modes.EngineTracing}
	for name, ns := range excl {
		p.Functions = append(p.Functions, profile.Function{ID: len(p.Functions), Name: name, ExclusiveNs: ns})
	}
	return p
}

// sampled is a sampling profile with the given inclusive sample counts.
func sampled(incl map[string]int64) *profile.Profile {
	p := &profile.Profile{Mode: modes.EngineSampling}
	for name, n := range incl {
		p.Functions = append(p.Functions, profile.Function{ID: len(p.Functions), Name: name, InclusiveSamples: n, ExclusiveSamples: n})
	}
	return p
}

func TestCoverage(t *testing.T) {
	// Run 1: total 10000 ns. Edge is exactly 1% (hot), Under is 0.99% (not).
	run1 := traced(map[string]int64{"Main": 9801, "Edge": 100, "Under": 99})
	// Run 2: Under is hot here (union over runs); Split has two rows whose
	// sum (not either row) reaches 1% of 1000 ns.
	run2 := traced(map[string]int64{"Main": 890, "Under": 100})
	run2.Functions = append(run2.Functions,
		profile.Function{Name: "Split", ExclusiveNs: 5}, profile.Function{Name: "Split", ExclusiveNs: 5})
	// A function with a tiny share in every run never counts.
	run2.Functions = append(run2.Functions, profile.Function{Name: "Tiny", ExclusiveNs: 0})

	s1 := sampled(map[string]int64{"Main": 40, "Edge": 0, "Tiny": 3})
	s2 := sampled(map[string]int64{"Edge": 1, "Other": 9}) // Edge found in the second run only

	got := Coverage([]*profile.Profile{run1, run2}, []*profile.Profile{s1, s2})
	want := &results.Coverage{Found: 2, Of: 4, Missing: []string{"Split", "Under"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Coverage = %+v, want %+v", got, want)
	}
	if got.String() != "2/4 found" {
		t.Errorf("String = %q", got.String())
	}

	// Only the first tracing run: Edge at exactly 1% is in, Under at 0.99% is out.
	got = Coverage([]*profile.Profile{run1}, []*profile.Profile{s1})
	want = &results.Coverage{Found: 1, Of: 2, Missing: []string{"Edge"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("one run each: Coverage = %+v, want %+v", got, want)
	}

	// Nothing to compare: no coverage at all rather than 0/0.
	for name, c := range map[string]*results.Coverage{
		"no tracing runs":       Coverage(nil, []*profile.Profile{s1}),
		"no sampling runs":      Coverage([]*profile.Profile{run1}, nil),
		"no exclusive time":     Coverage([]*profile.Profile{traced(map[string]int64{"Main": 0})}, []*profile.Profile{s1}),
		"tracing has no tables": Coverage([]*profile.Profile{{Mode: modes.EngineTracing}}, []*profile.Profile{s1}),
	} {
		if c != nil {
			t.Errorf("%s: coverage %+v, want none", name, c)
		}
	}
	// A sampling run that saw nothing is still a run: everything is missing.
	got = Coverage([]*profile.Profile{run1}, []*profile.Profile{sampled(nil)})
	if want := (&results.Coverage{Found: 0, Of: 2, Missing: []string{"Edge", "Main"}}); !reflect.DeepEqual(got, want) {
		t.Errorf("empty sampling profile: Coverage = %+v, want %+v", got, want)
	}
}

// fillCoverage pairs cells by workload, and only tracing with sampling.
func TestFillCoverage(t *testing.T) {
	cell := func(w string, mode modes.Mode) *cellState {
		return &cellState{Cell: Cell{Workload: &suite.Workload{Name: w}, Mode: mode, Spec: modes.BuiltinSpec(mode)}}
	}
	aT, aS, aN := cell("a", modes.Tracing), cell("a", modes.Sampling), cell("a", modes.Null)
	bS := cell("b", modes.Sampling) // no tracing cell for b
	cT := cell("c", modes.Tracing)  // no sampling cell for c
	hot := traced(map[string]int64{"F": 1})
	for _, c := range []*cellState{aT, aN, cT} {
		c.cover.addTracing(hot)
	}
	for _, c := range []*cellState{aS, bS} {
		c.cover.addSampling(sampled(map[string]int64{"F": 1}))
	}
	fillCoverage([]*cellState{aT, aS, aN, bS, cT})
	if aS.coverage == nil || aS.coverage.Found != 1 || aS.coverage.Of != 1 || aS.coverage.Tracing != modes.Tracing {
		t.Errorf("a/sampling coverage %+v", aS.coverage)
	}
	for _, c := range []*cellState{aT, aN, bS, cT} {
		if c.coverage != nil {
			t.Errorf("%s/%s has coverage %+v", c.Workload.Name, c.Mode, c.coverage)
		}
	}
}

// With several tracing cells (modes defined in the suite), a sampling cell
// is paired with the first one loading the same library, else the first.
func TestFillCoverageSeveralTracers(t *testing.T) {
	mode := func(name modes.Mode, engine modes.Engine, lib string, hot ...string) *cellState {
		c := &cellState{Cell: Cell{Workload: &suite.Workload{Name: "w"}, Mode: name,
			Spec: modes.Spec{Name: name, Engine: engine, Profiler: lib}}}
		times := map[string]int64{}
		for _, h := range hot {
			times[h] = 1
		}
		if engine == modes.EngineTracing {
			c.cover.addTracing(traced(times))
		} else {
			c.cover.addSampling(sampled(map[string]int64{"F": 1, "G": 1}))
		}
		return c
	}
	tr := mode(modes.Tracing, modes.EngineTracing, "", "F")
	trBase := mode("tracing-base", modes.EngineTracing, "/base/libvbenchprof.so", "F", "G", "H")
	sm := mode(modes.Sampling, modes.EngineSampling, "")
	sm1 := mode("sampling-1ms", modes.EngineSampling, "")
	smBase := mode("sampling-base", modes.EngineSampling, "/base/libvbenchprof.so")
	smOther := mode("sampling-other", modes.EngineSampling, "/other/libvbenchprof.so")
	fillCoverage([]*cellState{tr, trBase, sm, sm1, smBase, smOther})
	for _, c := range []struct {
		cell    *cellState
		tracing modes.Mode
		of      int
	}{{sm, modes.Tracing, 1}, {sm1, modes.Tracing, 1}, {smBase, "tracing-base", 3}, {smOther, modes.Tracing, 1}} {
		if got := c.cell.coverage; got == nil || got.Tracing != c.tracing || got.Of != c.of {
			t.Errorf("%s: coverage %+v, want against %s (of %d)", c.cell.Mode, got, c.tracing, c.of)
		}
	}
}
