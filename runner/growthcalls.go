package runner

import "vbench/internal/profile"

// growthCalls are a scaled cell's exact calls by function, one entry per
// measured run (0 where a run made none): the points of the functions'
// growth (internal/verdict's complexity).
type growthCalls struct {
	runs  int
	calls map[string][]int64
}

// add records one run's profile: every row of a function's name summed.
func (g *growthCalls) add(p *profile.Profile) {
	if g.calls == nil {
		g.calls = map[string][]int64{}
	}
	run := map[string]int64{}
	for _, fn := range p.Functions {
		run[fn.Name] += fn.Calls
	}
	for name, n := range run {
		if _, ok := g.calls[name]; !ok {
			g.calls[name] = make([]int64, g.runs)
		}
		g.calls[name] = append(g.calls[name], n)
	}
	g.runs++
	for name, v := range g.calls {
		if len(v) < g.runs {
			g.calls[name] = append(v, 0)
		}
	}
}
