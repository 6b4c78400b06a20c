package profdiff

import (
	"math"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/profile"
)

// flat is a profile of one thread whose roots are the given functions with
// these self weights (ns, or samples when sampled).
func flat(engine modes.Engine, self map[string]int64) *profile.Profile {
	p := &profile.Profile{Schema: profile.SchemaVersion, Mode: engine}
	var roots []profile.Node
	for name, v := range self {
		n := profile.Node{Fn: len(p.Functions), Calls: 1, ExclusiveNs: v, InclusiveNs: v}
		if engine.Samples() {
			n = profile.Node{Fn: len(p.Functions), ExclusiveSamples: v, InclusiveSamples: v}
		}
		p.Functions = append(p.Functions, profile.Function{ID: len(p.Functions), Name: name})
		roots = append(roots, n)
	}
	p.Threads = []profile.Thread{{OSID: 1, Roots: roots}}
	p.Derive()
	return p
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Shares: 60 of 100 samples against 40 of 100 is a change of +0.2 with
// z = 0.2 / sqrt(0.5·0.5·(1/100+1/100)) = 2.828, p = 0.00468 (two-sided),
// and a Wald interval of 0.2 ± 1.96·sqrt(0.4·0.6/100·2) = ±0.1358.
func TestSharesByTwoProportions(t *testing.T) {
	var old, new Side
	if err := old.Add(flat(modes.EngineSampling, map[string]int64{"A": 40, "B": 60})); err != nil {
		t.Fatal(err)
	}
	if err := new.Add(flat(modes.EngineSampling, map[string]int64{"A": 60, "B": 40})); err != nil {
		t.Fatal(err)
	}
	d, err := Compare(&old, &new)
	if err != nil {
		t.Fatal(err)
	}
	if d.Unit != Share || len(d.Rows) != 2 {
		t.Fatalf("diff %+v", d)
	}
	a := d.Rows[0]
	if a.Function != "A" { // |+0.2| ties |-0.2|: by name
		t.Errorf("first row %q, want A", a.Function)
	}
	if !near(a.Change, 0.2, 1e-12) || !near(a.P, 0.004678, 1e-5) || !near(a.Hi-a.Change, 0.13579, 1e-4) || !a.HasInterval {
		t.Errorf("A: change %v p %v interval [%v, %v]", a.Change, a.P, a.Lo, a.Hi)
	}
}

// Times: self time per run, Welch over runs. Old runs 1, 2, 3 and new runs
// 4, 5, 6 ns: +3 ns, t = 3.674 on 4 degrees of freedom, p = 0.0213,
// interval 3 ± 2.776·0.8165.
func TestTimesByWelch(t *testing.T) {
	var old, new Side
	for _, v := range []int64{1, 2, 3} {
		old.Add(flat(modes.EngineTracing, map[string]int64{"F": v, "G": 100}))
	}
	for _, v := range []int64{4, 5, 6} {
		new.Add(flat(modes.EngineTracing, map[string]int64{"F": v, "G": 100}))
	}
	d, err := Compare(&old, &new)
	if err != nil {
		t.Fatal(err)
	}
	f := d.Rows[0]
	if f.Function != "F" || f.Change != 3 || !near(f.P, 0.02131, 1e-4) || !near(f.Hi, 3+2.7764*0.81650, 1e-3) {
		t.Errorf("F: %+v", f)
	}
	if g := d.Rows[1]; g.Change != 0 || g.P != 1 {
		t.Errorf("G unchanged: %+v", g)
	}
	if d.OldTotal != 102 || d.NewTotal != 105 {
		t.Errorf("totals per run %v -> %v, want 102 -> 105", d.OldTotal, d.NewTotal)
	}
	if top := d.Top(5); len(top) != 1 || top[0].Function != "F" {
		t.Errorf("Top lists changed rows only: %+v", top)
	}
}

func TestTracingAndSamplingDoNotCompare(t *testing.T) {
	var old, new Side
	old.Add(flat(modes.EngineTracing, map[string]int64{"F": 1}))
	new.Add(flat(modes.EngineSampling, map[string]int64{"F": 1}))
	if _, err := Compare(&old, &new); err == nil {
		t.Error("compared a tracing profile with a sampling one")
	}
	if err := old.Add(flat(modes.EngineSampling, map[string]int64{"F": 1})); err == nil {
		t.Error("added a sampling run to a tracing side")
	}
}

// A service's runs, divided by their requests: the side that served the
// same work in fewer requests per run (a slower build under a fixed-length
// load) shows its function grown per request, though its time per run did
// not change.
func TestPerRequest(t *testing.T) {
	var old, new Side
	old.Add(flat(modes.EngineTracing, map[string]int64{"Handler": 3_000_000_000}))
	old.PerRequest(30_000) // 100 µs a request
	new.Add(flat(modes.EngineTracing, map[string]int64{"Handler": 3_000_000_000}))
	new.PerRequest(25_000) // 120 µs a request
	d, err := Compare(&old, &new)
	if err != nil {
		t.Fatal(err)
	}
	if r := d.Top(1); len(r) != 1 || r[0].Function != "Handler" || r[0].Old != 100_000 || r[0].New != 120_000 || r[0].Change != 20_000 {
		t.Errorf("per request: %+v, want Handler 100 µs → 120 µs", r)
	}
}

// A deep recursion's paths are keyed by their last MaxPathDepth names: a
// chain of 200 calls makes MaxPathDepth+1 keys, not 200 keys of up to 200
// names, and every node's self time is kept (the elided ones summed).
func TestDeepPathsAreBounded(t *testing.T) {
	const depth = 200
	p := &profile.Profile{Schema: profile.SchemaVersion, Mode: modes.EngineTracing,
		Functions: []profile.Function{{ID: 0, Name: "Main"}, {ID: 1, Name: "Rec"}}}
	leaf := profile.Node{Fn: 1, Calls: 1, ExclusiveNs: 10, InclusiveNs: 10}
	for i := 1; i < depth; i++ {
		leaf = profile.Node{Fn: 1, Calls: 1, ExclusiveNs: 10, InclusiveNs: leaf.InclusiveNs + 10, Children: []profile.Node{leaf}}
	}
	p.Threads = []profile.Thread{{OSID: 1, Roots: []profile.Node{{Fn: 0, Calls: 1, ExclusiveNs: 5, InclusiveNs: leaf.InclusiveNs + 5, Children: []profile.Node{leaf}}}}}
	p.Derive()
	paths, calls := pathWeights(p, true)
	if len(paths) != MaxPathDepth+1 {
		t.Errorf("%d path keys, want %d", len(paths), MaxPathDepth+1)
	}
	var self, n int64
	for k, w := range paths {
		self += w.Self
		n += calls[k]
		if names := SplitPath(k); len(names) > MaxPathDepth+1 {
			t.Errorf("a key of %d names", len(names))
		}
	}
	if self != 5+10*depth || n != 1+depth {
		t.Errorf("self %d calls %d over the keys, want %d and %d", self, n, 5+10*depth, 1+depth)
	}
}
