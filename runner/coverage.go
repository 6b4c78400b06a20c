package runner

import (
	"sort"

	"vbench/internal/foreignprof"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/results"
)

// HotShare is the share of a tracing profile's total exclusive time a
// function needs (at least) to count as hot for sampling coverage: 1%.
const HotShare = 0.01

// coverageSets is what one cell keeps of its measured runs' profiles for
// sampling coverage: names only, never the profiles themselves.
type coverageSets struct {
	hot     map[string]bool // tracing: functions with >= HotShare of a run's exclusive time
	sampled map[string]bool // sampling: functions with inclusive samples
}

// addTracing adds the functions hot in one tracing profile (all rows of a
// name summed; the threshold is against that run's total exclusive time).
func (s *coverageSets) addTracing(p *profile.Profile) {
	if s.hot == nil {
		s.hot = map[string]bool{}
	}
	excl := map[string]int64{}
	var total int64
	for _, fn := range p.Functions {
		excl[fn.Name] += fn.ExclusiveNs
		total += fn.ExclusiveNs
	}
	if total <= 0 {
		return
	}
	for name, ns := range excl {
		// ns/total >= 1%, in integers: no rounding at the edge.
		if ns > 0 && ns*100 >= total {
			s.hot[name] = true
		}
	}
}

// addSampling adds the functions one sampling profile saw at all.
func (s *coverageSets) addSampling(p *profile.Profile) {
	if s.sampled == nil {
		s.sampled = map[string]bool{}
	}
	for _, fn := range p.Functions {
		if fn.InclusiveSamples > 0 {
			s.sampled[fn.Name] = true
		}
	}
}

// coverage is the sampling coverage of a tracing cell's hot set by a
// sampling cell's sampled set; nil unless both cells read a profile and the
// tracing profiles have a hot function (nothing to cover otherwise).
func coverage(tracing, sampling *coverageSets) *results.Coverage {
	if tracing == nil || sampling == nil || len(tracing.hot) == 0 || sampling.sampled == nil {
		return nil
	}
	c := &results.Coverage{Of: len(tracing.hot)}
	// Other profilers spell generic arguments their own way (TraceEvent:
	// List`1[System.Int32]); a name not found as it is is matched without them.
	plain := map[string]bool{}
	for name := range sampling.sampled {
		plain[foreignprof.Plain(name)] = true
	}
	for name := range tracing.hot {
		if sampling.sampled[name] || plain[foreignprof.Plain(name)] {
			c.Found++
		} else {
			c.Missing = append(c.Missing, name)
		}
	}
	sort.Strings(c.Missing)
	return c
}

// fillCoverage sets each sampling cell's coverage from a tracing cell of
// its workload in the same run. When the workload has several tracing
// cells (modes defined in the suite), the sampling cell is paired with the
// first, in report order, that loads the same profiler library (the same
// build's tracer), else with the first: the built-in tracing mode comes
// before modes the suite defines.
func fillCoverage(cells []*cellState) {
	for _, c := range cells {
		if !c.Spec.Engine.Samples() && c.Spec.Profile == nil { // the samplers, or another profiler's profile
			continue
		}
		var t *cellState
		for _, x := range cells {
			if x.Workload.Name != c.Workload.Name || x.Spec.Engine != modes.EngineTracing {
				continue
			}
			if t == nil || (x.Spec.Profiler == c.Spec.Profiler && t.Spec.Profiler != c.Spec.Profiler) {
				t = x
			}
		}
		if t != nil {
			if c.coverage = coverage(&t.cover, &c.cover); c.coverage != nil {
				c.coverage.Tracing = t.Mode
			}
		}
	}
}
