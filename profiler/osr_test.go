package main

// On-stack replacement: a loop in Tier0 code moves to an OSR method whose
// frame sits on the Tier0 frame (testdata/app/Alloc.cs, Ledger.MakeLines,
// called once from Main with default tiering). Every engine that walks
// stacks must show MakeLines once, called from Main: the allocations
// engine's frame-pointer walk showed "MakeLines <- MakeLines" (the OSR frame
// record's return address is a stale word of the Tier0 frame) for the
// lines allocated after the move, with Main lost.

import (
	"fmt"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/profile"
)

const (
	osrFn   = "VbTest.Ledger.MakeLines"
	osrMain = "VbTest.Program.Main"
	osrType = "VbTest.LedgerLine"
)

func TestOSRFrameOnceInEveryEngine(t *testing.T) {
	for _, c := range []struct {
		engine modes.Engine
		n      string
		extra  []string
	}{
		{modes.EngineAllocations, "300000", nil},
		{modes.EngineAllocationSampling, "3000000", nil},
		{modes.EngineSampling, "30000000", []string{modes.EnvVar("interval") + "=1ms"}},
		{modes.EngineSuspendSampling, "30000000", []string{modes.EnvVar("interval") + "=1ms"}},
		{modes.EngineTracing, "300000", nil},
	} {
		t.Run(string(c.engine), func(t *testing.T) {
			r, p := profiled(t, c.engine, c.extra, 0, "osralloc", c.n)
			if !strings.Contains(r.Stdout, "VBENCH alloc "+osrFn) {
				t.Fatalf("the program did not finish its loop:\n%s", r.Stdout)
			}
			if p.Allocations != nil {
				allocPathsOnce(t, p)
			}
			if p.Mode.Samples() || p.Mode.CountsCalls() {
				treePathsOnce(t, p)
			}
		})
	}
}

// allocPathsOnce: every LedgerLine was allocated on Main > MakeLines (an
// estimate under allocation-sampling: all of the type's).
func allocPathsOnce(t *testing.T, p *profile.Profile) {
	a := p.Allocations
	typ := a.Type(osrType)
	if typ == nil || typ.Count == 0 {
		t.Fatalf("no %s allocated", osrType)
	}
	got, _, _ := a.Site(p, []string{osrMain, osrFn}, osrType)
	if got != typ.Count {
		t.Errorf("%d of %d %s on the path Main > MakeLines; their paths:\n%s", got, typ.Count, osrType, allocPaths(p, osrType))
	}
}

// allocPaths lists the paths (leaf first) that allocated typ, with counts.
func allocPaths(p *profile.Profile, typ string) string {
	var b strings.Builder
	a := p.Allocations
	for ti := range a.Threads {
		tr := &a.Threads[ti]
		for i, n := range tr.Nodes {
			for _, s := range n.Types {
				if a.Types[s.Type].Name == typ {
					fmt.Fprintf(&b, "  %d: %s\n", s.Count, strings.Join(tr.Path(p, i), " <- "))
				}
			}
		}
	}
	return b.String()
}

// treePathsOnce: MakeLines is never its own caller, and Main is its only
// one (once, where calls are counted). A sampler may catch a thread in the
// middle of the move itself (the runtime's patchpoint helper switching
// frames): at most 2% of MakeLines' samples may stand elsewhere.
func treePathsOnce(t *testing.T, p *profile.Profile) {
	f := p.Function(osrFn)
	if f == nil || (p.Mode.Samples() && f.InclusiveSamples == 0) {
		t.Fatalf("%s: %+v, want samples or calls", osrFn, f)
	}
	var self, bad int64 // under itself; through another caller than Main
	var wrong []string
	for _, th := range p.Threads {
		profile.Walk(th.Roots, func(n *profile.Node, d int) bool {
			if p.Functions[n.Fn].Name != osrFn {
				return true
			}
			for _, c := range n.Children {
				if p.Functions[c.Fn].Name == osrFn {
					self += c.InclusiveSamples + c.Calls
				}
			}
			return true
		}, nil)
	}
	for _, c := range f.Callers {
		if c.Name != osrMain {
			bad += c.Samples + c.Calls
			wrong = append(wrong, fmt.Sprintf("%s (%d samples, %d calls)", c.Name, c.Samples, c.Calls))
		}
	}
	allowed := int64(0)
	if p.Mode.Samples() {
		allowed = f.InclusiveSamples / 50
	}
	if self > allowed || bad > allowed {
		t.Errorf("%s: %d samples or calls under itself, called from %v; want only %s (at most %d elsewhere of %d samples)", osrFn, self, wrong, osrMain, allowed, f.InclusiveSamples)
	}
	if p.Mode.CountsCalls() && f.Calls != 1 {
		t.Errorf("%s: %d calls, want 1", osrFn, f.Calls)
	}
}
