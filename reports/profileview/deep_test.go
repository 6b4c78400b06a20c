package profileview

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"vbench/internal/profile"
)

// deepChain is Main -> Recurse ×n -> Leaf on one thread, as the tracer
// records n nested calls (10ns exclusive per level), plus a shallow second
// thread.
func deepChain(n int) *profile.Profile {
	p := &profile.Profile{Schema: profile.SchemaVersion, Mode: "tracing", PID: 1,
		Functions: []profile.Function{{ID: 0, Name: "Main"}, {ID: 1, Name: "Recurse"}, {ID: 2, Name: "Leaf"}}}
	kid := []profile.Node{{Fn: 2, Calls: 1, InclusiveNs: 1000, ExclusiveNs: 1000}}
	for i := 0; i < n; i++ {
		kid = []profile.Node{{Fn: 1, Calls: 1, InclusiveNs: kid[0].InclusiveNs + 10, ExclusiveNs: 10, Children: kid}}
	}
	main := profile.Node{Fn: 0, Calls: 1, InclusiveNs: kid[0].InclusiveNs + 5, ExclusiveNs: 5, Children: kid}
	p.Threads = []profile.Thread{
		{OSID: 7, Roots: []profile.Node{main}},
		{OSID: 8, Roots: []profile.Node{{Fn: 2, Calls: 3, InclusiveNs: 30, ExclusiveNs: 30}}},
	}
	p.Derive()
	return p
}

// A recursion 100,000 deep prints as DefaultTreeDepth levels and one line
// saying how much lies below, not as gigabytes of indentation.
func TestProfileTextDeepRecursion(t *testing.T) {
	const n = 100_000
	p := deepChain(n)
	text := profileText(t, p, ProfileOptions{Top: 5})
	if len(text) > 100_000 {
		t.Fatalf("text report of a %d-deep chain is %d bytes", n, len(text))
	}
	rows := treeRows(t, text, 7)
	if len(rows) != DefaultTreeDepth || rows[len(rows)-1].depth != DefaultTreeDepth-1 {
		t.Errorf("%d tree lines, deepest at %d; want %d levels", len(rows), rows[len(rows)-1].depth, DefaultTreeDepth)
	}
	// Below level 100 (Main + 99 Recurse): n-99 Recurse levels and Leaf.
	below := n + 2 - DefaultTreeDepth
	// 99,902 levels of 10ns and Leaf's 1µs, less the cut node's own 10ns: 1,000,010ns.
	want := "└─ … 99902 more levels below the depth limit of 100: 99902 callee paths (1.000ms)"
	if below != 99902 {
		t.Fatalf("below = %d", below)
	}
	if !strings.Contains(text, want) {
		t.Errorf("no %q in\n%s", want, text[len(text)-2000:])
	}
	// The top table counts the recursion's inclusive time once.
	// 100,000 calls; excl 1.000ms (100,000 × 10ns), incl 1.001ms (plus Leaf's 1µs), once.
	if !hasRow(text, "1.000ms 99.9% 1.001ms 100.0% 100000 Recurse") {
		t.Errorf("top table:\n%s", text[:1500])
	}
	// The limit can be raised, up to MaxTreeDepth.
	for _, tc := range []struct{ ask, got int }{{500, 500}, {1_000_000, MaxTreeDepth}} {
		rows = treeRows(t, profileText(t, p, ProfileOptions{MaxDepth: tc.ask}), 7)
		if len(rows) != tc.got {
			t.Errorf("MaxDepth %d: %d levels, want %d", tc.ask, len(rows), tc.got)
		}
	}
}

func TestFlameGraphDeepRecursion(t *testing.T) {
	const n = 100_000
	p := deepChain(n)
	for _, perThread := range []bool{false, true} {
		var b bytes.Buffer
		if err := FlameGraph(&b, p, FlameOptions{PerThread: perThread}); err != nil {
			t.Fatal(err)
		}
		if b.Len() > 1_000_000 {
			t.Fatalf("flame graph of a %d-deep chain is %d bytes", n, b.Len())
		}
		doc := flameFrames(t, p, FlameOptions{PerThread: perThread})
		var more *svgFrame
		deepest := 0
		for i, f := range doc.Frames {
			deepest = max(deepest, f.Depth)
			if strings.HasPrefix(f.Name, "… ") {
				more = &doc.Frames[i]
			}
		}
		// all [thread] Main Recurse×255, then the marker frame.
		top := 1 + DefaultFlameDepth
		if perThread {
			top++
		}
		below := n + 2 - DefaultFlameDepth
		if more == nil || more.Depth != top || deepest != top {
			t.Fatalf("per-thread %v: marker %+v, deepest frame at %d; want the marker at %d", perThread, more, deepest, top)
		}
		if want := fmt.Sprintf("… %d more levels below the depth limit of %d", below, DefaultFlameDepth); more.Name != want {
			t.Errorf("marker %q, want %q", more.Name, want)
		}
		// As wide as the calls it stands for: the inclusive time below level 256.
		if want := int64(10*below - 10 + 1000); more.Incl != want {
			t.Errorf("marker inclusive %d, want %d", more.Incl, want)
		}
	}
	if doc := flameFrames(t, p, FlameOptions{MaxDepth: 3, MinWidth: 1e-9}); len(doc.Frames) != 1+3+1+1 {
		t.Errorf("MaxDepth 3: %d frames, want all, Main, Recurse, Recurse, the marker and thread 8's Leaf", len(doc.Frames))
	}
}
