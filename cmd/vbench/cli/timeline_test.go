package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vbench/internal/profile"
	"vbench/internal/testbin"
	"vbench/internal/timeline"
)

const waitGcProject = "cmd/vbench/cli/testdata/csharp/waitgc/WaitGc.csproj"

var waitGcLine = regexp.MustCompile(`main_tid=(\d+) worker_tid=(\d+) compute_ns=(\d+) wait_ns=(\d+) gc_ns=(\d+) throw_ns=(\d+)`)

// A program that knows nothing of vbench (testdata/csharp/waitgc: a worker
// computes ~200 ms while the main thread waits for it, then a forced GC,
// then an exception thrown and caught), traced with --timeline: the
// timeline shows each phase on the thread the program says ran it, in
// order, and each call slice lasts what the program's own Stopwatch
// measured, within 10 % (a ratio to the program's own clock, not a time).
func TestTimelineOfTwoThreads(t *testing.T) {
	testbin.Dotnet(t)
	dll := testbin.Workload(t, waitGcProject)
	out := t.TempDir()
	ss := filepath.Join(t.TempDir(), "waitgc.speedscope.json")
	stdout, stderr, code := runVbench(t, "profile", "--mode", "tracing", "--timeline", "--timeline-min", "50us", "--out", out, "-o", ss, "--", "dotnet", dll)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	m := waitGcLine.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no result line:\n%s", stdout)
	}
	num := func(i int) float64 { v, _ := strconv.ParseFloat(m[i], 64); return v }
	mainTid, workerTid := int(num(1)), int(num(2))
	computeUs, waitUs, gcUs, throwUs := num(3)/1e3, num(4)/1e3, num(5)/1e3, num(6)/1e3
	t.Logf("program: main %d worker %d compute %.0fus wait %.0fus gc %.0fus throw %.0fus", mainTid, workerTid, computeUs, waitUs, gcUs, throwUs)

	p, err := profile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if p.Timeline == nil || p.Timeline.File != timeline.File || p.Timeline.Folded == 0 || p.Timeline.Dropped != 0 || p.Timeline.MinNs != 50000 {
		t.Fatalf("profile.json's timeline: %+v (want the file, Step's calls folded, none dropped, min 50us)", p.Timeline)
	}
	if !strings.Contains(stderr, "folded into their callers") {
		t.Errorf("stderr does not say what was folded:\n%s", stderr)
	}
	tr := readTimeline(t, filepath.Join(out, strconv.Itoa(p.PID), timeline.File))
	find := func(cat, name string) *timeline.Event {
		for i := range tr.TraceEvents {
			if e := &tr.TraceEvents[i]; e.Cat == cat && e.Name == name {
				return e
			}
		}
		t.Fatalf("no %s event %q in the timeline", cat, name)
		return nil
	}
	compute, wait, force := find(timeline.CatCall, "Phases.Compute"), find(timeline.CatCall, "Phases.StartAndWait"), find(timeline.CatCall, "Phases.ForceGC")
	gc, thrown := find(timeline.CatGC, "GC gen2 (induced)"), find(timeline.CatException, "throw System.InvalidOperationException")
	find(timeline.CatJIT, "JIT Phases.Compute")
	for _, c := range []struct {
		e   *timeline.Event
		tid int
	}{{compute, workerTid}, {wait, mainTid}, {force, mainTid}, {gc, mainTid}, {thrown, mainTid}} {
		if c.e.Tid != c.tid {
			t.Errorf("%q on thread %d, want %d", c.e.Name, c.e.Tid, c.tid)
		}
	}
	end := func(e *timeline.Event) float64 { return e.Ts + e.Dur }
	if compute.Ts < wait.Ts || end(compute) > end(wait) {
		t.Errorf("the compute slice %.0f..%.0f is not inside the wait %.0f..%.0f", compute.Ts, end(compute), wait.Ts, end(wait))
	}
	if gc.Ts < end(wait) || gc.Ts < force.Ts || end(gc) > end(force) || thrown.Ts < end(force) {
		t.Errorf("out of order: wait ends %.0f, ForceGC %.0f..%.0f, its GC %.0f..%.0f, the throw at %.0f", end(wait), force.Ts, end(force), gc.Ts, end(gc), thrown.Ts)
	}
	for _, c := range []struct {
		e    *timeline.Event
		want float64
	}{{compute, computeUs}, {wait, waitUs}} {
		if r := c.e.Dur / c.want; r < 0.9 || r > 1.1 {
			t.Errorf("%s lasted %.0fus in the timeline, %.0fus by the program's Stopwatch: ratio %.3f", c.e.Name, c.e.Dur, c.want, r)
		}
	}
	if gc.Dur > gcUs*1.1 || gc.Dur <= 0 {
		t.Errorf("the GC's slice lasted %.0fus, GC.Collect %.0fus by the program's Stopwatch", gc.Dur, gcUs)
	}

	// -o: the tracing profile and both threads' timelines, for speedscope.
	file := readSpeedscope(t, ss)
	kinds := map[string]int{}
	for _, pr := range file.Profiles {
		kinds[pr.Type+" "+pr.Unit]++
	}
	if kinds["sampled nanoseconds"] < 2 || kinds["evented microseconds"] < 2 {
		t.Errorf("speedscope profiles by kind %v: want both threads' self times and timelines", kinds)
	}
}

// A cap of 0 events or a negative minimum is refused before anything runs,
// naming the flag, exit 2; so are timeline flags that would do nothing.
func TestTimelineBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--timeline", "--timeline-cap", "0"}, "--timeline-cap 0: want 1..50000000 events"},
		{[]string{"--timeline", "--timeline-cap", "-5"}, "--timeline-cap -5: want"},
		{[]string{"--timeline", "--timeline-min", "-1ms"}, "--timeline-min -1ms: want a duration in 0s..1m0s"},
		{[]string{"--timeline-cap", "10"}, "--timeline-cap does nothing without --timeline"},
		{[]string{"--mode", "instrumentation", "--timeline"}, "--timeline does nothing under --mode instrumentation: only tracing, sampling, suspend-sampling, allocations, allocation-sampling read it"},
		{[]string{"-o", "x.json"}, "-o x.json: vbench profile writes speedscope's format"},
	}
	for _, c := range cases {
		args := append([]string{"profile"}, c.args...)
		args = append(args, "--", "dotnet", "nothing.dll")
		_, stderr, code := runVbench(t, args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// fibonacci (benchmarks/fibonacci: ~1.2 million tiny calls here) traced
// with --timeline: every call is accounted for, kept, folded or dropped;
// the calls kept stay under the cap and the file under ~200 bytes an
// event; the default minimum folds nearly all of them, and with none the
// cap stops the file and says how many calls it left out.
func TestTimelineFibonacciBounded(t *testing.T) {
	testbin.Dotnet(t)
	dll := testbin.Workload(t, "benchmarks/fibonacci/Fibonacci.csproj")
	for _, c := range []struct {
		min  string
		cap  int
		drop bool
	}{{"100us", 1_000_000, false}, {"0", 5000, true}} {
		out := t.TempDir()
		_, stderr, code := runVbench(t, "profile", "--mode", "tracing", "--timeline", "--timeline-min", c.min, "--timeline-cap", strconv.Itoa(c.cap),
			"--out", out, "--", "dotnet", dll, "--n", "25", "--iterations", "5")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		p, err := profile.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var calls int64
		for _, f := range p.Functions {
			calls += f.Calls
		}
		tl := p.Timeline
		if tl == nil {
			t.Fatal("no timeline section")
		}
		t.Logf("min %s cap %d: %+v; %d calls traced", c.min, c.cap, *tl, calls)
		if calls < 1_213_925 || tl.Calls+tl.Folded+tl.Dropped != calls {
			t.Errorf("kept %d + folded %d + dropped %d != the %d calls the tree counted", tl.Calls, tl.Folded, tl.Dropped, calls)
		}
		if tl.Calls > int64(c.cap) || tl.Bytes > 200*tl.Events+4096 {
			t.Errorf("%d calls kept (cap %d), %d bytes for %d events", tl.Calls, c.cap, tl.Bytes, tl.Events)
		}
		if fi, err := os.Stat(filepath.Join(out, strconv.Itoa(p.PID), timeline.File)); err != nil || fi.Size() != tl.Bytes {
			t.Errorf("timeline.json: %v; profile.json says %d bytes", err, tl.Bytes)
		}
		if c.drop != (tl.Dropped > 0) || c.drop != strings.Contains(stderr, "calls were left out of timeline.json") {
			t.Errorf("dropped %d, want some: %v; stderr:\n%s", tl.Dropped, c.drop, stderr)
		}
		if !c.drop && tl.Folded < 1_000_000 {
			t.Errorf("only %d calls folded at 100us", tl.Folded)
		}
	}
}

// Under the allocations engine the timeline holds every object as an
// instant on its thread, with its type, bytes and path: ForceGC's 2000
// byte arrays of 1 KiB, exactly, on the main thread, before its GC.
func TestTimelineOfAllocations(t *testing.T) {
	t.Parallel() // exact allocation counts
	testbin.Dotnet(t)
	dll := testbin.Workload(t, waitGcProject)
	out := t.TempDir()
	stdout, stderr, code := runVbench(t, "profile", "--mode", "allocations", "--timeline", "--out", out, "--", "dotnet", dll)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	m := waitGcLine.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no result line:\n%s", stdout)
	}
	mainTid, _ := strconv.Atoi(m[1])
	p, err := profile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	tr := readTimeline(t, filepath.Join(out, strconv.Itoa(p.PID), timeline.File))
	var arrays int
	var last, gc float64
	for _, e := range tr.TraceEvents {
		switch {
		case e.Cat == timeline.CatAlloc && e.Name == "new System.Byte[]" && strings.HasSuffix(e.Args["stack"].(string), "Phases.ForceGC"):
			if e.Tid != mainTid || e.Args["bytes"].(float64) < 1024 {
				t.Fatalf("ForceGC's array on thread %d (main %d), %v bytes", e.Tid, mainTid, e.Args["bytes"])
			}
			arrays++
			last = e.Ts
		case e.Cat == timeline.CatGC && e.Name == "GC gen2 (induced)" && e.Tid == mainTid:
			gc = e.Ts
		}
	}
	// The same objects as the profile's tables count at that path (the walk
	// places ~1 in 2000 on the caller), each once.
	want, _ := p.Allocations.SelfByFunction(p, "Phases.ForceGC", "System.Byte[]")
	if int64(arrays) != want || arrays < 1990 || gc < last || p.Timeline == nil || p.Timeline.Allocations != p.Allocations.Count || p.Timeline.Dropped != 0 {
		t.Errorf("%d arrays from ForceGC (profile.json: %d of 2000), the last at %.0f, its GC at %.0f; timeline %+v, %d objects in the profile", arrays, want, last, gc, p.Timeline, p.Allocations.Count)
	}
}
