package runner

import (
	"reflect"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/results"
)

// tree is a sampling call tree written compactly: a node is a function name,
// its inclusive samples and its children.
type tree struct {
	fn   string
	incl int64
	kids []tree
}

// stacks builds a sampling profile with one thread per forest.
func stacks(threads ...[]tree) *profile.Profile {
	p := &profile.Profile{Mode: modes.EngineSampling}
	ids := map[string]int{}
	var conv func(ts []tree) []profile.Node
	conv = func(ts []tree) []profile.Node {
		var out []profile.Node
		for _, t := range ts {
			id, ok := ids[t.fn]
			if !ok {
				id = len(p.Functions)
				ids[t.fn] = id
				p.Functions = append(p.Functions, profile.Function{ID: id, Name: t.fn})
			}
			out = append(out, profile.Node{Fn: id, InclusiveSamples: t.incl, Children: conv(t.kids)})
		}
		return out
	}
	for _, roots := range threads {
		p.Threads = append(p.Threads, profile.Thread{Roots: conv(roots)})
	}
	return p
}

func node(fn string, incl int64, kids ...tree) tree { return tree{fn: fn, incl: incl, kids: kids} }

var ab = map[string]float64{"A": 0.25, "B": 0.75}

// The samples counted: those whose stack holds A or B, wherever on the stack
// and on whichever thread; a recursion counts its outermost frame only;
// samples in neither (Loop's own, start-up) count for nothing.
func TestStackCounts(t *testing.T) {
	p := stacks(
		[]tree{
			node("Main", 100,
				node("Parse", 10),
				node("Loop", 60, node("A", 12, node("A", 5), node("Helper", 3)), node("B", 40))),
		},
		[]tree{
			node("ThreadStart", 50, node("Loop", 30, node("B", 20, node("Helper", 20)), node("A", 8))),
			node("Other", 7, node("B", 2)), // reached some other way: still B's
		},
	)
	hits, samples, overlap, _ := stackCounts(p, ab)
	if want := map[string]int64{"A": 12 + 8, "B": 40 + 20 + 2}; !reflect.DeepEqual(hits, want) || samples != 82 || overlap != 0 {
		t.Errorf("stackCounts = %v, %d samples, %d overlapping; want %v, 82, 0", hits, samples, overlap, want)
	}
}

// Two rows of one name (e.g. the same method in two modules) count as one
// function, as call counts do.
func TestStackCountsByName(t *testing.T) {
	p := stacks([]tree{node("Loop", 10, node("A", 4), node("B", 6))})
	p.Functions = append(p.Functions, profile.Function{ID: 3, Name: "A", Module: "Other.dll"})
	p.Threads[0].Roots[0].Children = append(p.Threads[0].Roots[0].Children, profile.Node{Fn: 3, InclusiveSamples: 2})
	hits, samples, _, _ := stackCounts(p, ab)
	if hits["A"] != 6 || samples != 12 {
		t.Errorf("A has %d of %d samples, want 6 of 12", hits["A"], samples)
	}
}

// A declared function calling another: the shares do not partition the work,
// and the run says which two share stacks.
func TestStackCountsOverlap(t *testing.T) {
	p := stacks([]tree{node("Loop", 50, node("A", 20, node("X", 9, node("B", 7))), node("B", 30))})
	_, samples, overlap, pair := stackCounts(p, ab)
	if samples != 50 || overlap != 7 || pair != [2]string{"A", "B"} {
		t.Errorf("samples %d, overlap %d %v; want 50, 7 [A B]", samples, overlap, pair)
	}
	var s shareTally
	if msg := s.add(p, ab); msg != "7 of the 50 samples in the declared shares' functions have both A and B on the stack: the share.* functions must not call one another (they partition the sampled work)" {
		t.Errorf("add: %q", msg)
	}
}

// Runs add up; the check accepts what a binomial of a quarter as many draws
// as samples (ShareDesignEffect) with the declared probability yields 99% of
// the time, and fails the cell outside it.
func TestShareChecks(t *testing.T) {
	run := func(a, b int64) *profile.Profile {
		return stacks([]tree{node("Loop", a+b+5, node("A", a), node("B", b))})
	}
	var good shareTally
	for _, p := range []*profile.Profile{run(30, 70), run(20, 80)} {
		if msg := good.add(p, ab); msg != "" {
			t.Fatal(msg)
		}
	}
	// 200 samples count as 50 draws; Binomial(50, .25) has its central 99%
	// in [5, 21], Binomial(50, .75) in [29, 45] (exact sums, in Python).
	checks := good.checks()
	want := []results.ShareCheck{
		{Function: "A", Expected: 0.25, Measured: 0.25, Hits: 50, Samples: 200, Effective: 50, Lo: 5.0 / 50, Hi: 21.0 / 50, Pass: true},
		{Function: "B", Expected: 0.75, Measured: 0.75, Hits: 150, Samples: 200, Effective: 50, Lo: 29.0 / 50, Hi: 45.0 / 50, Pass: true},
	}
	if !reflect.DeepEqual(checks, want) {
		t.Errorf("checks:\n got %+v\nwant %+v", checks, want)
	}
	if f := sharesFailure("split", checks); f != "" || results.SharesText(checks) != "2/2 shares" {
		t.Errorf("a passing cell: failure %q, text %q", f, results.SharesText(checks))
	}

	// 20 of 200 (0.1) is the edge, and passes; 19 (0.095) fails, and so
	// does B's 181 of 200.
	var edge shareTally
	edge.add(run(20, 180), ab)
	if c := edge.checks(); !c[0].Pass || !c[1].Pass {
		t.Errorf("20 of 200 failed: %+v", c)
	}
	var bad shareTally
	bad.add(run(19, 181), ab)
	checks = bad.checks()
	if checks[0].Pass || checks[1].Pass || results.SharesText(checks) != "0/2 shares" {
		t.Errorf("19 of 200 passed: %+v", checks)
	}
	if f := sharesFailure("split", checks); f != "sampled shares wrong in 2 of 2 checks: workload split, function A: expected share 0.25, measured 0.095 (19 of 200 samples, counted as 50 independent draws; a correct sampler measures 0.1 to 0.42 99% of the time)" {
		t.Errorf("failure: %q", f)
	}
}

// No sample in any declared function (a sampler that cannot see them, a
// filter hiding them) fails the cell too: the work was done, and unseen.
func TestShareChecksNoSamples(t *testing.T) {
	var s shareTally
	s.add(stacks([]tree{node("Loop", 40)}), ab)
	checks := s.checks()
	if len(checks) != 2 || checks[0].Pass || checks[0].Samples != 0 || checks[0].Measured != 0 {
		t.Fatalf("checks %+v", checks)
	}
	if f := sharesFailure("split", checks); f != "sampled shares unmeasured: workload split declares shares of 2 functions, and no sample's stack held any of them (function A: expected share 0.25, 0 samples)" {
		t.Errorf("failure: %q", f)
	}
}

// A workload that declares nothing has no checks; one whose declaration
// changes between runs fails the run that changed it.
func TestShareDeclarations(t *testing.T) {
	p := stacks([]tree{node("Loop", 10, node("A", 3), node("B", 7))})
	var none shareTally
	if msg := none.add(p, nil); msg != "" || none.checks() != nil {
		t.Errorf("no declaration: %q, %+v", msg, none.checks())
	}
	var s shareTally
	s.add(p, ab)
	if msg := s.add(p, map[string]float64{"A": 0.5, "B": 0.5}); msg != "the VBENCH line's shares changed between runs: A=0.25 B=0.75, then A=0.5 B=0.5" {
		t.Errorf("changed: %q", msg)
	}
	if msg := s.add(p, nil); msg != "the VBENCH line's shares changed between runs: A=0.25 B=0.75, then none" {
		t.Errorf("dropped: %q", msg)
	}
	if c := s.checks(); c[0].Samples != 10 {
		t.Errorf("a refused run was counted: %+v", c)
	}
}
