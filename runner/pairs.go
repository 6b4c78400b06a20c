package runner

import (
	"slices"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// pairing is what decides which planned cell is judged against which: the
// cells' mode definitions and their workloads' against:, as the results
// file records them — so the runner's pairs (shards, adaptive rounds,
// equal runs) are the pairs results.File.ReferenceKey judges afterwards.
type pairing struct{ f results.File }

func newPairing(cells []Cell) *pairing {
	p := &pairing{}
	for _, c := range cells {
		if !slices.ContainsFunc(p.f.Settings.ModeSpecs, func(s modes.Spec) bool { return s.Name == c.Mode }) {
			sp := c.Spec
			sp.Name = c.Mode // the cell's mode is what its spec defines
			p.f.Settings.ModeSpecs = append(p.f.Settings.ModeSpecs, sp)
		}
		if a := c.Workload.Against; a != "" {
			if p.f.Settings.WorkloadAgainst == nil {
				p.f.Settings.WorkloadAgainst = map[string]string{}
			}
			p.f.Settings.WorkloadAgainst[c.Workload.Name] = a
		}
	}
	return p
}

// reference is the key ("workload/mode") of the cell c is judged against
// in its own run; ok is false when c is not part of an A/B pair.
func (p *pairing) reference(c *Cell) (key string, ok bool) {
	w, m, ok := p.f.ReferenceKey(c.Workload.Name, c.Mode)
	if !ok {
		return "", false
	}
	return w + "/" + string(m), true
}

// workloadAgainst is the workloads' against:, as the results file records it.
func (p *pairing) workloadAgainst() map[string]string { return p.f.Settings.WorkloadAgainst }
