package suite

// A mode's attach: its engine loaded into a service's running server
// during the measured load (runner/attachload.go), not at the server's start.

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"

	"vbench/internal/attach"
	"vbench/internal/modes"
)

// attachPlan reads a mode's attach: true (the defaults) or a mapping of
// at, duration, times and gap. false is no attach (nil).
func (p *parser) attachPlan(n *yaml.Node, field string) *modes.AttachPlan {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		if !p.boolean(n, field) {
			return nil
		}
		pl := modes.DefaultAttachPlan()
		return &pl
	}
	pl := modes.DefaultAttachPlan()
	gap := false
	p.fields(n, field, []string{"at", "duration", "times", "gap"}, func(key string, k, v *yaml.Node) {
		f := join(field, key)
		switch key {
		case "at":
			pl.At = modes.Duration(p.duration(v, f))
		case "duration":
			pl.Duration = modes.Duration(p.duration(v, f))
		case "times":
			pl.Times = p.integer(v, f, 1)
			if p.err == nil && pl.Times > maxAttaches {
				p.fail(v, f, "must be at most %d, got %d", maxAttaches, pl.Times)
			}
		case "gap":
			gap = true
			pl.Gap = modes.Duration(p.duration(v, f))
		}
	})
	if !gap {
		pl.Gap = pl.At
	}
	if p.err == nil && pl.Load() > maxAttachLoad {
		p.fail(n, field, "plans a measured load of %v (at + times × (duration + gap)): at most %v (the load generator keeps a long load's every request in memory)", pl.Load(), maxAttachLoad)
	}
	return &pl
}

// Limits of an attach plan: a load long enough for the load generator's
// rows to run out is refused at run time, after the build; these stop a
// typo (times: 100) before it.
const (
	maxAttaches   = 20
	maxAttachLoad = 10 * time.Minute
)

// attachMode checks a mode with attach: an engine that can start in a
// running process, loaded by vbench (no wrapper, whose pid is not the
// server's).
func (p *parser) attachMode(n *yaml.Node, field string, spec *modes.Spec, wrap *yaml.Node) {
	switch {
	case spec.Engine == "":
		p.fail(n, field, "needs an engine: an attach loads vbench's profiler (engine: %s)", modes.OneOf(attach.AttachEngines))
	case wrap != nil:
		p.fail(n, field, "cannot go with wrap: vbench attaches to the server's own process, which a wrapper hides")
	default:
		if why := attach.WhyNotAttach(spec.Engine); why != "" {
			p.fail(n, field, "engine %s cannot attach to a running process: %s (attach takes engine %s)", spec.Engine, why, modes.OneOf(attach.AttachEngines))
		}
	}
}

// attachWorkload refuses a workload that is not a service under a mode that
// attaches: only a server runs on between a warm-up and an attach.
func (p *parser) attachWorkload(n *yaml.Node, field string, s *Suite, w *Workload) {
	if p.err != nil || w.Server != nil {
		return
	}
	for i, m := range w.EffectiveModes(s) {
		sp, ok := s.Spec(m)
		if !ok || sp.Attach == nil {
			continue
		}
		node, f := n, field
		if w.Modes != nil {
			node, f = w.modeNode(n, i), fmt.Sprintf("%s.modes[%d]", field, i)
		}
		p.fail(node, f, "mode %s attaches to a running service (its attach:, line %d), and %s is not one (no server: and load:): list this workload's modes without %s", m, p.attachLines[m], w.Name, m)
		return
	}
}
