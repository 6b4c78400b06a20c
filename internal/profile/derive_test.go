package profile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"vbench/internal/modes"
)

// A tree with recursion (fib -> fib), the same function under two parents and
// two threads.
func sample() *Profile {
	p := &Profile{Schema: SchemaVersion, Mode: "tracing", Start: time.Unix(1700000000, 0).UTC(),
		Functions: []Function{{ID: 0, Name: "Main"}, {ID: 1, Name: "Fib"}, {ID: 2, Name: "Log"}}}
	fib3 := Node{Fn: 1, Calls: 2, InclusiveNs: 10, ExclusiveNs: 10}
	fib2 := Node{Fn: 1, Calls: 2, InclusiveNs: 40, ExclusiveNs: 30, Children: []Node{fib3}}
	fib1 := Node{Fn: 1, Calls: 1, InclusiveNs: 100, ExclusiveNs: 55, Children: []Node{fib2, {Fn: 2, Calls: 1, InclusiveNs: 5, ExclusiveNs: 5}}}
	main := Node{Fn: 0, Calls: 1, InclusiveNs: 200, ExclusiveNs: 97, Children: []Node{fib1, {Fn: 2, Calls: 3, InclusiveNs: 3, ExclusiveNs: 3}}}
	p.Threads = []Thread{{OSID: 1, Roots: []Node{main}}, {OSID: 2, Roots: []Node{{Fn: 2, Calls: 4, InclusiveNs: 8, ExclusiveNs: 8}}}}
	p.Derive()
	return p
}

func TestDerive(t *testing.T) {
	p := sample()
	fib := p.Function("Fib")
	if fib.Calls != 5 || fib.ExclusiveNs != 95 || fib.InclusiveNs != 100 {
		t.Errorf("Fib: calls %d excl %d incl %d; want 5, 95, 100 (inclusive once per recursion)", fib.Calls, fib.ExclusiveNs, fib.InclusiveNs)
	}
	log := p.Function("Log")
	if log.Calls != 8 || log.InclusiveNs != 16 {
		t.Errorf("Log: calls %d incl %d", log.Calls, log.InclusiveNs)
	}
	want := []Caller{{Name: RootCaller, Calls: 4}, {Name: "Main", Calls: 3}, {Name: "Fib", Calls: 1}}
	if len(log.Callers) != 3 {
		t.Fatalf("Log callers %+v", log.Callers)
	}
	for i, c := range want {
		if log.Callers[i].Name != c.Name || log.Callers[i].Calls != c.Calls {
			t.Errorf("Log callers %+v, want %+v", log.Callers, want)
		}
	}
	if top := p.Top(1); top[0].Name != "Main" {
		t.Errorf("Top(1) = %s, want Main (most exclusive time)", top[0].Name)
	}
	if n := len(p.Top(0)); n != 3 {
		t.Errorf("Top(0) returned %d functions", n)
	}
}

func TestPprofRoundTrip(t *testing.T) {
	p := sample()
	var buf bytes.Buffer
	if err := p.WritePprof(&buf); err != nil {
		t.Fatal(err)
	}
	pp, err := profile.Parse(&buf)
	if err != nil {
		t.Fatalf("pprof cannot parse what we wrote: %v", err)
	}
	if err := pp.CheckValid(); err != nil {
		t.Fatal(err)
	}
	if len(pp.SampleType) != 2 || pp.SampleType[0].Type != "calls" || pp.SampleType[1].Unit != "nanoseconds" {
		t.Fatalf("sample types %v", pp.SampleType)
	}
	var calls, wall int64
	for _, s := range pp.Sample {
		calls += s.Value[0]
		wall += s.Value[1]
		if leaf := s.Location[0].Line[0].Function.Name; leaf == "Fib" && len(s.Location) == 4 && s.Location[3].Line[0].Function.Name != "Main" {
			t.Errorf("stack not leaf-first: %v", s.Location)
		}
	}
	// Flat values are exclusive: they sum to the exclusive totals.
	if calls != 1+5+8 || wall != 97+95+16 {
		t.Errorf("sum of samples: calls %d wall %d", calls, wall)
	}
}

func TestWriteDirAndRead(t *testing.T) {
	dir := t.TempDir()
	p := sample()
	if err := WriteDir(dir, p); err != nil {
		t.Fatal(err)
	}
	q, err := ReadFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if q.Function("Fib").Calls != 5 || len(q.Threads) != 2 {
		t.Errorf("read back %+v", q.Functions)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("directory holds %d entries (temp files left behind?)", len(entries))
	}
	if _, err := os.Stat(filepath.Join(dir, PprofFile)); err != nil {
		t.Error(err)
	}
}

// A sampled pprof names its samples by the clock they were taken on (go
// tool pprof's "Type:"): the suspending sampler's every thread on the wall
// clock, a blocked one too: wall; the signal sampler's each thread every
// interval of its own CPU time: cpu, and cpu+wait when it also weighed waits
// by the time waited. The CPU sampler's samples were called wall.
func TestSampledPprofNamesItsClock(t *testing.T) {
	for _, c := range []struct {
		mode  modes.Engine
		waits int64
		want  string
	}{
		{modes.EngineSuspendSampling, 0, "wall"},
		{modes.EngineSampling, 0, "cpu"},
		{modes.EngineCPUSampling, 0, "cpu"},
		{modes.EngineSampling, 2, "cpu+wait"},
	} {
		p := &Profile{Schema: SchemaVersion, Mode: c.mode, IntervalNs: 10e6, Samples: 3, WaitSamples: c.waits, Start: time.Unix(1700000000, 0).UTC(),
			Functions: []Function{{ID: 0, Name: "Main"}, {ID: 1, Name: "Wait"}}}
		p.Threads = []Thread{{OSID: 1, Samples: 3, Roots: []Node{{Fn: 0, InclusiveSamples: 3, ExclusiveSamples: 1,
			Children: []Node{{Fn: 1, InclusiveSamples: 2, ExclusiveSamples: 2}}}}}}
		p.Derive()
		var buf bytes.Buffer
		if err := p.WritePprof(&buf); err != nil {
			t.Fatal(err)
		}
		pp, err := profile.Parse(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := pp.CheckValid(); err != nil {
			t.Fatal(err)
		}
		if len(pp.SampleType) != 2 || pp.SampleType[1].Type != c.want || pp.DefaultSampleType != c.want || pp.PeriodType == nil || pp.PeriodType.Type != c.want {
			t.Errorf("%s (wait samples %d): sample types %v, default %q, period type %v: want %s", c.mode, c.waits, pp.SampleType, pp.DefaultSampleType, pp.PeriodType, c.want)
		}
		var ns int64
		for _, s := range pp.Sample {
			ns += s.Value[1]
		}
		if ns != 3*10e6 {
			t.Errorf("%s: nanoseconds %d, want samples × interval = %d", c.mode, ns, int64(3*10e6))
		}
	}
}
