package timeline

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// Samples become nested slices: shared prefixes stay open, a silence
// longer than the gap and a cut (a GC) end them, the limit stops them,
// no slice ends where its sibling starts or its parent ends, and the
// result is valid, nesting trace-event JSON.
func TestSlices(t *testing.T) {
	s := func(ts float64, stack string) Sample {
		return Sample{Ts: ts, Dur: 10, Stack: strings.Split(stack, ">")}
	}
	samples := []Sample{s(20, "Main>A"), s(10, "Main>A"), s(30, "Main>B"), s(40, "Main>B"), s(100, "Main>B"), s(110, "Main>B>C")}
	ev, used := Slices(1, 2, samples, []float64{95}, 10, -1)
	var got []string
	for _, e := range ev {
		got = append(got, fmt.Sprintf("%s %g+%g", e.Name, e.Ts, e.Dur))
	}
	Sort(ev)
	if err := Validate(&Trace{TraceEvents: ev}); err != nil {
		t.Fatal(err)
	}
	want := "Main 0+39.999 A 0+19.998 B 20+19.998 Main 90+4.999 B 90+4.998 Main 95+14.999 B 95+14.998 C 100+9.997" // ends 1 ns a level early
	if strings.Join(got, " ") != want || used != len(samples) {
		t.Errorf("slices %q, used %d\nwant %q", strings.Join(got, " "), used, want)
	}
	// A cut off the grid (a GC's start): its slice on the grid nests the
	// samples' slices that start there.
	ev, _ = Slices(1, 2, []Sample{s(20, "Main>A")}, []float64{15.0004, 18.0004}, 10, -1)
	ev = append(ev, Event{Name: "GC", Ph: "X", Ts: Grid(15.0004), Dur: Grid(18.0004) - Grid(15.0004), Pid: 1, Tid: 2})
	Sort(ev)
	if err := Validate(&Trace{TraceEvents: ev}); err != nil {
		t.Errorf("a GC cutting a sample: %v", err)
	}
	if ev, used := Slices(1, 2, samples, nil, 10, 3); len(ev) > 3 || used != 4 {
		t.Errorf("limit 3: %d slices, %d samples used (want <= 3, 4)", len(ev), used)
	}
}

// The write's cost per sample (docs/timeline.md): fibonacci-like stacks,
// 30 frames deep, the leaf-most 5 changing from one sample to the next,
// sliced and written.
func BenchmarkSlicesWrite(b *testing.B) {
	samples := make([]Sample, 10000)
	for i := range samples {
		st := []string{"Program.Main", "Fib.Run"}
		for d := range 28 {
			st = append(st, fmt.Sprintf("Fib.F%d", (d+i*(d/23))%7))
		}
		samples[i] = Sample{Ts: float64(i) * 1000, Dur: 1000, Stack: st}
	}
	b.ResetTimer()
	for range b.N {
		ev, _ := Slices(1, 2, samples, nil, 1000, -1)
		if _, err := Write(io.Discard, &Trace{TraceEvents: ev}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(samples)), "ns/sample")
}
