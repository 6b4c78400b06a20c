package profdiff

import (
	"fmt"
	"maps"
	"runtime"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/profile"
)

// chain is a tracing profile of one thread: Main, then depth frames of a
// recursion alternating between two functions, each with a sibling leaf
// every seventh frame (paths that share a prefix).
func chain(depth int) *profile.Profile {
	p := &profile.Profile{Schema: profile.SchemaVersion, Mode: modes.EngineTracing}
	for i, name := range []string{"App.Main()", "App.Even(int)", "App.Odd(int)", "App.Leaf()"} {
		p.Functions = append(p.Functions, profile.Function{ID: i, Name: name})
	}
	nodes := []profile.FlatNode{{Parent: -1, Fn: 0, Calls: 1, InclusiveNs: int64(2 * depth), ExclusiveNs: 1}}
	parent := 0
	for d := 1; d <= depth; d++ {
		nodes = append(nodes, profile.FlatNode{Parent: parent, Fn: 1 + d%2, Calls: 1, InclusiveNs: int64(2 * (depth - d + 1)), ExclusiveNs: 1})
		parent = len(nodes) - 1
		if d%7 == 0 {
			nodes = append(nodes, profile.FlatNode{Parent: parent, Fn: 3, Calls: 2, InclusiveNs: 1, ExclusiveNs: 1})
		}
	}
	roots, err := profile.Unflatten(nodes)
	if err != nil {
		panic(err)
	}
	p.Threads = []profile.Thread{{OSID: 1, Roots: roots}}
	p.Derive()
	return p
}

// pathWeightsJoinAll is pathWeights as it was: the whole path joined per
// node, then elided. The reference the fix must agree with.
func pathWeightsJoinAll(p *profile.Profile) (map[string]Weight, map[string]int64) {
	out, calls := map[string]Weight{}, map[string]int64{}
	var names []string
	for ti := range p.Threads {
		profile.Walk(p.Threads[ti].Roots, func(n *profile.Node, d int) bool {
			names = append(names[:d], p.Functions[n.Fn].Name)
			k := PathKey(names)
			if len(names) > MaxPathDepth {
				k = PathElided + PathSep + PathKey(names[len(names)-MaxPathDepth:])
			}
			o := out[k]
			out[k] = Weight{o.Self + n.ExclusiveNs, o.Incl + n.InclusiveNs}
			calls[k] += n.Calls
			return true
		}, nil)
	}
	return out, calls
}

// The keys and weights of a recursion deeper than MaxPathDepth are those
// the old join-everything code gave.
func TestPathWeightsSameAsJoiningWholePaths(t *testing.T) {
	for _, depth := range []int{1, MaxPathDepth - 1, MaxPathDepth, MaxPathDepth + 1, 3*MaxPathDepth + 5} {
		p := chain(depth)
		got, gotCalls := pathWeights(p, true)
		want, wantCalls := pathWeightsJoinAll(p)
		if !maps.Equal(got, want) || !maps.Equal(gotCalls, wantCalls) {
			t.Errorf("depth %d: %d paths, want %d (or their weights or calls differ)", depth, len(got), len(want))
		}
	}
}

// A path's key costs at most MaxPathDepth names however deep the path:
// the bytes pathWeights allocates grow with the nodes, not nodes × depth.
// Joining each whole path first allocated ~30 KiB a node at depth 5,000
// (and made vbench diff of two 50,000-deep profiles take 40 s).
func TestPathWeightsDeepRecursionLinear(t *testing.T) {
	const depth = 5000
	p := chain(depth)
	nodes := profile.Count(p.Threads[0].Roots)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	paths, _ := pathWeights(p, true)
	runtime.ReadMemStats(&after)
	perNode := (after.TotalAlloc - before.TotalAlloc) / uint64(nodes)
	if perNode > 2048 {
		t.Errorf("pathWeights allocated %d bytes a node for %d nodes %d deep: a key should cost at most %d names", perNode, nodes, depth, MaxPathDepth)
	}
	if len(paths) == 0 {
		t.Fatal("no paths")
	}
}

func BenchmarkPathWeightsDeep(b *testing.B) {
	for _, depth := range []int{1000, 50000} {
		p := chain(depth)
		b.Run(fmt.Sprint(depth), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				pathWeights(p, true)
			}
		})
	}
}
