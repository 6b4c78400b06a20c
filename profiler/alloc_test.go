package main

// The allocation engines, on the test program's alloc scenarios (testdata/
// app/Alloc.cs): exact counts per type under the allocating method, the
// induced collections by generation, allocation-sampling's estimate against
// the exact count of the same run, and the pprof file as pprof reads it.

import (
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
)

var allocExpectRE = regexp.MustCompile(`(?m)^VBENCH alloc (\S+) (\S+) (\d+)$`)

func TestAllocationsExact(t *testing.T) {
	r, p := profiled(t, modes.EngineAllocations, nil, 0, "alloc", "1000")
	a := p.Allocations
	if a == nil || a.Sampled || p.GC == nil {
		t.Fatalf("no allocations (%v) or gc (%v) section, or sampled", a, p.GC)
	}
	want := allocExpectRE.FindAllStringSubmatch(r.Stdout, -1)
	if len(want) != 5 {
		t.Fatalf("the program printed %d alloc lines, want 5:\n%s", len(want), r.Stdout)
	}
	for _, w := range want {
		n, _ := strconv.ParseInt(w[3], 10, 64)
		count, bytes := a.SelfByFunction(p, w[1], w[2])
		// Strings: the method also allocates one string of its own, once
		// (32 bytes, not through String's constructor, where the program's
		// 2n go: seen with VBENCH_INCLUDE='*'), which the profile rightly counts.
		if w[2] == "System.String" && count == n+1 {
			count = n
		}
		if count != n {
			t.Errorf("%s allocated %d %s, want %d", w[1], count, w[2], n)
		}
		if count > 0 && w[2] != "System.String" && bytes%count != 0 {
			t.Errorf("%s: %d %s take %d bytes: not a whole size each", w[1], count, w[2], bytes)
		}
	}
	// Inner's pairs are on the path Run > Outer > Inner, Outer's own on Run > Outer.
	if c, _, _ := a.Site(p, []string{"VbTest.Program.Main", "VbTest.Allocs.Run", "VbTest.Allocs.Outer", "VbTest.Allocs.Inner"}, "VbTest.AllocPair"); c != 5000 {
		t.Errorf("Main > Run > Outer > Inner allocated %d pairs, want 5000", c)
	}
	if typ := a.Type("VbTest.AllocNode"); typ == nil || typ.Count != 10000 {
		t.Errorf("type VbTest.AllocNode: %+v, want count 10000", typ)
	}
	if a.ProfilerBytes <= 0 || a.Count < 21000 || a.Folded != 0 {
		t.Errorf("profiler bytes %d, count %d, folded %d", a.ProfilerBytes, a.Count, a.Folded)
	}
	// Six GC.Collect calls: six induced collections; and by generation,
	// what the runtime's GC.CollectionCount said at the end (a generation's
	// count includes the older generations' collections).
	m := regexp.MustCompile(`(?m)^VBENCH gc count (\d+) (\d+) (\d+)$`).FindStringSubmatch(r.Stdout)
	if m == nil {
		t.Fatalf("no gc count line:\n%s", r.Stdout)
	}
	var atLeast [3]int64
	for _, c := range p.GC.Collections {
		for g := 0; g <= c.Generation; g++ {
			atLeast[g]++
		}
		if c.PauseNs <= 0 {
			t.Errorf("collection %+v: no pause", c)
		}
	}
	for g := 0; g < 3; g++ {
		if n, _ := strconv.ParseInt(m[g+1], 10, 64); atLeast[g] != n {
			t.Errorf("collections of generation %d or older: %d, the runtime counted %d (%+v)", g, atLeast[g], n, p.GC.Collections)
		}
	}
	if p.GC.Induced != 6 || p.GC.Count != int64(len(p.GC.Collections)) || p.GC.PauseNs <= 0 {
		t.Errorf("induced %d (want 6), count %d of %d listed, pause %d ns", p.GC.Induced, p.GC.Count, len(p.GC.Collections), p.GC.PauseNs)
	}

	// profile.pb.gz, read by pprof's own package.
	pp := testbin.ReadPprof(t, filepath.Join(testapp.ProcessDir(t, r.Dir), profile.PprofFile))
	if len(pp.SampleType) != 2 || pp.SampleType[0].Type != "alloc_objects" || pp.SampleType[0].Unit != "count" ||
		pp.SampleType[1].Type != "alloc_space" || pp.SampleType[1].Unit != "bytes" || pp.DefaultSampleType != "alloc_space" {
		t.Fatalf("sample types %v (default %q)", pp.SampleType, pp.DefaultSampleType)
	}
	var nodes, total int64
	for _, s := range pp.Sample {
		if len(s.Label["type"]) != 1 {
			t.Fatalf("sample %v has no single type label", s.Label)
		}
		total += s.Value[0]
		if s.Label["type"][0] == "VbTest.AllocNode" && s.Location[0].Line[0].Function.Name == "VbTest.Allocs.Nodes" {
			nodes += s.Value[0]
		}
	}
	if nodes != 10000 || total != a.Count {
		t.Errorf("pprof: %d AllocNode objects at Allocs.Nodes (want 10000), %d in all (profile.json: %d)", nodes, total, a.Count)
	}
}

// allocation-sampling's estimate of a large type's bytes, against the exact
// count of the same scenario under allocations: within 15%.
func TestAllocationSamplingEstimate(t *testing.T) {
	const typ = "System.Byte[]"
	_, exact := profiled(t, modes.EngineAllocations, nil, 0, "allocbig", "200000")
	want, wantBytes := exact.Allocations.SelfByFunction(exact, "VbTest.Allocs.Big", typ)
	if want != 200000 {
		t.Fatalf("allocations: Big allocated %d %s, want 200000", want, typ)
	}
	_, p := profiled(t, modes.EngineAllocationSampling, nil, 0, "allocbig", "200000")
	a := p.Allocations
	if a == nil || !a.Sampled || a.Samples == 0 || p.GC == nil {
		t.Fatalf("allocations %+v, gc %v: want samples", a, p.GC)
	}
	count, bytes := a.SelfByFunction(p, "VbTest.Allocs.Big", typ)
	t.Logf("%d samples; Big's %s: estimated %d objects, %d bytes; exact %d, %d", a.Samples, typ, count, bytes, want, wantBytes)
	if r := float64(bytes) / float64(wantBytes); math.Abs(r-1) > 0.15 {
		t.Errorf("estimated %d bytes of %s at Allocs.Big, exact %d: off by %.0f%%", bytes, typ, wantBytes, 100*(r-1))
	}
	if r := float64(count) / float64(want); math.Abs(r-1) > 0.15 {
		t.Errorf("estimated %d %s at Allocs.Big, exact %d: off by %.0f%%", count, typ, want, 100*(r-1))
	}
}
