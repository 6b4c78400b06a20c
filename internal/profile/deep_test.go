package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

func TestWalkOrder(t *testing.T) {
	// a(b(c), d), e
	roots := []Node{{Fn: 0, Children: []Node{{Fn: 1, Children: []Node{{Fn: 2}}}, {Fn: 3}}}, {Fn: 4}}
	var got []string
	Walk(roots, func(n *Node, d int) bool {
		got = append(got, fmt.Sprintf("+%d@%d", n.Fn, d))
		return true
	}, func(n *Node, d int) { got = append(got, fmt.Sprintf("-%d@%d", n.Fn, d)) })
	want := "+0@0 +1@1 +2@2 -2@2 -1@1 +3@1 -3@1 -0@0 +4@0 -4@0"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("walk order\n got %s\nwant %s", s, want)
	}
	// Returning false skips the children but still leaves the node.
	got = nil
	Walk(roots, func(n *Node, d int) bool {
		got = append(got, fmt.Sprintf("+%d", n.Fn))
		return n.Fn != 1
	}, func(n *Node, d int) { got = append(got, fmt.Sprintf("-%d", n.Fn)) })
	if s := strings.Join(got, " "); s != "+0 +1 -1 +3 -3 -0 +4 -4" {
		t.Errorf("walk skipping 1's children: %s", s)
	}
	if d, c := Depth(roots), Count(roots); d != 3 || c != 5 {
		t.Errorf("Depth %d Count %d, want 3 and 5", d, c)
	}
}

func TestFlattenPreOrder(t *testing.T) {
	p := sample()
	flat := Flatten(p.Threads[0].Roots)
	var fns []int
	for i, f := range flat {
		if f.Parent >= i || f.Parent < -1 {
			t.Fatalf("nodes[%d] has parent %d", i, f.Parent)
		}
		fns = append(fns, f.Fn)
	}
	// Main(Fib(Fib(Fib), Log), Log) in pre-order.
	if want := []int{0, 1, 1, 1, 2, 2}; !slices.Equal(fns, want) {
		t.Errorf("pre-order functions %v, want %v", fns, want)
	}
	if parents := []int{flat[0].Parent, flat[1].Parent, flat[2].Parent, flat[3].Parent, flat[4].Parent, flat[5].Parent}; !slices.Equal(parents, []int{-1, 0, 1, 2, 1, 0}) {
		t.Errorf("parents %v", parents)
	}
	back, err := Unflatten(flat)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p.Threads[0].Roots) {
		t.Errorf("Unflatten(Flatten(t)) differs:\n%+v\n%+v", back, p.Threads[0].Roots)
	}
	// Children slices are capped: appending to one never overwrites a sibling.
	back[0].Children = append(back[0].Children, Node{Fn: 2})
	if back[0].Children[0].Children[0].Fn != 1 || len(back[0].Children[0].Children) != 2 {
		t.Errorf("append to a child list corrupted the tree: %+v", back)
	}
}

// chain builds Main -> Recurse ×n -> Leaf as the tracer would record n nested
// calls: one call per level, 10ns exclusive each, Leaf 1000ns.
func chain(n int) *Profile {
	p := &Profile{Schema: SchemaVersion, Mode: "tracing", Start: time.Unix(1700000000, 0).UTC(),
		Functions: []Function{{ID: 0, Name: "Main"}, {ID: 1, Name: "Recurse"}, {ID: 2, Name: "Leaf"}}}
	kid := []Node{{Fn: 2, Calls: 1, InclusiveNs: 1000, ExclusiveNs: 1000}}
	for i := 0; i < n; i++ {
		kid = []Node{{Fn: 1, Calls: 1, InclusiveNs: kid[0].InclusiveNs + 10, ExclusiveNs: 10, Children: kid}}
	}
	main := Node{Fn: 0, Calls: 1, InclusiveNs: kid[0].InclusiveNs + 5, ExclusiveNs: 5, Children: kid}
	p.Threads = []Thread{{OSID: 7, CPUNs: 1, Roots: []Node{main}}}
	p.Derive()
	return p
}

// A recursion a million deep: written flat, read back by encoding/json (which
// stops at 10000 levels of nesting) without a deep stack anywhere, figures
// derived in linear time, and a pprof file with bounded stacks.
func TestMillionDeepChain(t *testing.T) {
	const n = 1_000_000
	p := chain(n)
	rec := p.Function("Recurse")
	if rec.Calls != n || rec.ExclusiveNs != 10*n || rec.InclusiveNs != 10*n+1000 {
		t.Errorf("Derive: Recurse calls %d excl %d incl %d; want %d, %d, %d (inclusive once per recursion)",
			rec.Calls, rec.ExclusiveNs, rec.InclusiveNs, n, 10*n, 10*n+1000)
	}
	if c := callers(rec); len(c) != 2 || c["Recurse"] != n-1 || c["Main"] != 1 {
		t.Errorf("Recurse callers %v", c)
	}

	var buf bytes.Buffer
	if err := p.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	t.Logf("profile.json of a %d-deep chain: %d bytes", n, buf.Len())
	// Any JSON reader can take it: it is shallow.
	var generic any
	if err := json.Unmarshal(buf.Bytes(), &generic); err != nil {
		t.Fatalf("encoding/json cannot read the file generically: %v", err)
	}
	q, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if d := Depth(q.Threads[0].Roots); d != n+2 {
		t.Errorf("depth read back %d, want %d", d, n+2)
	}
	if !reflect.DeepEqual(Flatten(q.Threads[0].Roots), Flatten(p.Threads[0].Roots)) {
		t.Errorf("tree read back differs")
	}
	if q.Function("Recurse").Calls != n {
		t.Errorf("function table read back: %+v", q.Function("Recurse"))
	}

	pp, err := p.Pprof()
	if err != nil {
		t.Fatal(err)
	}
	var calls, wall int64
	for _, s := range pp.Sample {
		if len(s.Location) > PprofMaxStack {
			t.Fatalf("a pprof sample has %d locations, more than %d", len(s.Location), PprofMaxStack)
		}
		calls += s.Value[0]
		wall += s.Value[1]
	}
	if len(pp.Sample) > 2*PprofMaxStack {
		t.Errorf("%d pprof samples for one chain: cut stacks were not merged", len(pp.Sample))
	}
	if calls != n+2 || wall != 10*n+1005 {
		t.Errorf("pprof sums: calls %d wall %d, want %d and %d (exclusive values survive the cut)", calls, wall, n+2, 10*n+1005)
	}
	var pb bytes.Buffer
	if err := pp.Write(&pb); err != nil {
		t.Fatal(err)
	}
	t.Logf("profile.pb.gz: %d samples, %d bytes", len(pp.Sample), pb.Len())
	if _, err := profile.Parse(&pb); err != nil {
		t.Fatal(err)
	}
}

// Stacks deeper than PprofMaxStack keep both ends around one marker frame.
func TestPprofCutsDeepStacks(t *testing.T) {
	const n = 300
	p := chain(n)
	pp, err := p.Pprof()
	if err != nil {
		t.Fatal(err)
	}
	var leaf *profile.Sample
	for _, s := range pp.Sample {
		if s.Location[0].Line[0].Function.Name == "Leaf" {
			leaf = s
		}
	}
	if leaf == nil || len(leaf.Location) != PprofMaxStack {
		t.Fatalf("Leaf's sample: %+v", leaf)
	}
	names := make([]string, len(leaf.Location))
	for i, l := range leaf.Location {
		names[i] = l.Line[0].Function.Name
	}
	keepLeaf := PprofMaxStack - PprofMaxStack/2 - 1
	if names[keepLeaf] != ElidedFrames || strings.Count(strings.Join(names, "\n"), ElidedFrames) != 1 {
		t.Errorf("marker not at position %d: %v", keepLeaf, names)
	}
	if names[len(names)-1] != "Main" || names[keepLeaf-1] != "Recurse" || names[keepLeaf+1] != "Recurse" {
		t.Errorf("cut stack %v", names)
	}
	// Shallow paths are whole: Main's own sample and the first recursion levels.
	for _, s := range pp.Sample {
		if len(s.Location) < PprofMaxStack && s.Location[len(s.Location)-1].Line[0].Function.Name != "Main" {
			t.Errorf("a whole stack does not end at Main")
		}
	}
	if err := pp.CheckValid(); err != nil {
		t.Fatal(err)
	}
}

func TestReadSchema1(t *testing.T) {
	p, err := ReadFile("testdata/schema1-tracing.json")
	if err != nil {
		t.Fatal(err)
	}
	if p.Schema != SchemaVersion {
		t.Errorf("schema 1 read as schema %d, want it upgraded to %d", p.Schema, SchemaVersion)
	}
	fib := p.Function("Fibonacci.Program.Fib(int)")
	if fib == nil || fib.Calls != 25*(2*233-1) || len(p.Threads) != 3 {
		t.Fatalf("Fib %+v, %d threads", fib, len(p.Threads))
	}
	// The fixture's Fib chain: Main -> Run -> Fib(12) down to Fib(1), 12 levels.
	if d := Depth(p.Threads[0].Roots); d != 14 {
		t.Errorf("main thread depth %d, want 14", d)
	}
	// Derived figures in the file agree with the tree read back.
	before := slices.Clone(p.Functions)
	p.Derive()
	for i := range before {
		if before[i].Calls != p.Functions[i].Calls || before[i].InclusiveNs != p.Functions[i].InclusiveNs {
			t.Errorf("%s: file says %d calls %d ns, tree %d calls %d ns", before[i].Name,
				before[i].Calls, before[i].InclusiveNs, p.Functions[i].Calls, p.Functions[i].InclusiveNs)
		}
	}
	// Written again, it is the current schema with the same trees.
	var buf bytes.Buffer
	if err := p.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), fmt.Sprintf(`{"schema":%d,`, SchemaVersion)) || strings.Contains(buf.String(), `"roots"`) {
		t.Errorf("re-encoded profile starts %.60s", buf.String())
	}
	q, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Threads {
		if !reflect.DeepEqual(Flatten(p.Threads[i].Roots), Flatten(q.Threads[i].Roots)) || p.Threads[i].OSID != q.Threads[i].OSID {
			t.Errorf("thread %d differs after the round trip", i)
		}
	}
}

// nestedV1 is a schema 1 profile whose one thread nests depth levels deep.
func nestedV1(depth int) string {
	var b strings.Builder
	b.WriteString(`{"schema":1,"mode":"tracing","runtime_version":"10","pid":1,"start":"2025-01-01T00:00:00Z","duration_ns":1,"complete":true,`)
	b.WriteString(`"functions":[{"id":0,"name":"R","module":"a","assembly":"a","calls":0,"inclusive_ns":0,"exclusive_ns":0,"inclusive_samples":0,"exclusive_samples":0,"callers":[]}],`)
	b.WriteString(`"threads":[{"os_id":1,"cpu_ns":0,"roots":[`)
	for i := 0; i < depth; i++ {
		if i > 0 {
			b.WriteString(`,"children":[`)
		}
		b.WriteString(`{"fn":0,"calls":1,"inclusive_ns":0,"exclusive_ns":0`)
	}
	for i := 0; i < depth; i++ {
		b.WriteString("}]")
	}
	b.WriteString("}]}")
	return b.String()
}

func TestSchema1Depth(t *testing.T) {
	p, err := Decode(strings.NewReader(nestedV1(100)))
	if err != nil {
		t.Fatal(err)
	}
	if d := Depth(p.Threads[0].Roots); d != 100 {
		t.Errorf("depth %d, want 100", d)
	}
	// Deeper than encoding/json's nesting limit: a clear error, not a syntax one.
	_, err = Decode(strings.NewReader(nestedV1(6000)))
	if err == nil || !strings.Contains(err.Error(), "older vbench") || !strings.Contains(err.Error(), "re-profile") {
		t.Errorf("6000-deep schema 1 profile: %v", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := sample().Encode(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	for _, tc := range []struct{ name, old, new, want string }{
		{"parent not earlier", `{"parent":0,"fn":1`, `{"parent":4,"fn":1`, "threads[0] (os_id 1): nodes[1]: parent 4 is not -1 or the index of an earlier node"},
		{"parent below -1", `{"parent":0,"fn":1`, `{"parent":-2,"fn":1`, "nodes[1]: parent -2"},
		{"unknown node field", `{"parent":-1,"fn":0`, `{"parent":-1,"depth":0,"fn":0`, `unknown field "depth"`},
		{"nested in schema 3", `"nodes":[`, `"roots":[],"nodes":[`, `unknown field "roots"`},
		{"function out of range", `{"parent":0,"fn":1`, `{"parent":0,"fn":9`, "refers to function 9"},
		{"newer schema", `"schema":5`, `"schema":6`, "schema 6 is newer"},
		{"no schema", `"schema":5,`, ``, `no "schema" field`},
	} {
		bad := strings.Replace(good, tc.old, tc.new, 1)
		if bad == good && tc.old != "" {
			t.Fatalf("%s: %q not in the encoded profile", tc.name, tc.old)
		}
		_, err := Decode(strings.NewReader(bad))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

func callers(f *Function) map[string]int64 {
	m := map[string]int64{}
	for _, c := range f.Callers {
		m[c.Name] = c.Calls
	}
	return m
}
