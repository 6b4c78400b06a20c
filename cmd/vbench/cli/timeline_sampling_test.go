package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vbench/internal/profile"
	"vbench/internal/speedscope"
	"vbench/internal/testbin"
	"vbench/internal/timeline"
)

var abWaitLine = regexp.MustCompile(`main_tid=(\d+) worker_tid=(\d+)`)

// A program of its own (testdata/csharp/abwait: a worker computes in A for
// ~200 ms, then in B, while the main thread waits; then a forced GC and an
// exception caught) sampled with --timeline: on the worker every A slice
// ends before the first B slice starts, the main thread shows its wait and
// no compute, the GC and the throw are on the main thread, the file is
// valid trace-event JSON, and the speedscope file holds the worker's
// samples in time order (A's, then B's) in nanoseconds. With a cap of 30
// events the slices stay under it and the samples left out are said.
func TestTimelineOfSampling(t *testing.T) {
	testbin.Dotnet(t)
	dll := testbin.Workload(t, "cmd/vbench/cli/testdata/csharp/abwait/AbWait.csproj")
	out := t.TempDir()
	ss := filepath.Join(t.TempDir(), "ab.speedscope.json")
	stdout, stderr, code := runVbench(t, "profile", "--mode", "sampling", "--interval", "1ms", "--timeline", "--out", out, "-o", ss, "--", "dotnet", dll)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	m := abWaitLine.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no result line:\n%s", stdout)
	}
	mainTid, _ := strconv.Atoi(m[1])
	workerTid, _ := strconv.Atoi(m[2])
	p, err := profile.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	tl := p.Timeline
	if tl == nil || tl.File != timeline.File || tl.Samples == 0 || tl.Slices == 0 || tl.Dropped != 0 || !strings.Contains(stderr, "samples in time order") {
		t.Fatalf("profile.json's timeline: %+v; stderr:\n%s", tl, stderr)
	}
	tr := readTimeline(t, filepath.Join(out, strconv.Itoa(p.PID), timeline.File))
	lastA, firstB := -1.0, -1.0
	var nA, nB, mainWait int
	var gc, thrown bool
	for _, e := range tr.TraceEvents {
		switch {
		case e.Cat == timeline.CatSample && e.Tid == workerTid && e.Name == "Work.A":
			nA++
			lastA = max(lastA, e.Ts+e.Dur)
		case e.Cat == timeline.CatSample && e.Tid == workerTid && e.Name == "Work.B":
			if nB++; firstB < 0 || e.Ts < firstB {
				firstB = e.Ts
			}
		case e.Cat == timeline.CatSample && e.Tid == mainTid && (e.Name == "Work.A" || e.Name == "Work.B" || e.Name == "Work.Spin"):
			t.Errorf("compute on the waiting thread: %+v", e)
		case e.Cat == timeline.CatSample && e.Tid == mainTid && e.Name == "Work.StartAndWait":
			mainWait++
		case e.Cat == timeline.CatGC && e.Name == "GC gen2 (induced)":
			gc = e.Tid == mainTid
		case e.Cat == timeline.CatException && e.Name == "throw System.InvalidOperationException":
			thrown = e.Tid == mainTid
		}
	}
	t.Logf("%+v; worker: %d A slices to %.0fus, %d B slices from %.0fus; main: %d wait slices", *tl, nA, lastA, nB, firstB, mainWait)
	if nA == 0 || nB == 0 || lastA > firstB+0.002 {
		t.Errorf("on the worker, A's slices (%d, the last ending at %.3f) do not all come before B's (%d, the first at %.3f)", nA, lastA, nB, firstB)
	}
	if mainWait == 0 || !gc || !thrown {
		t.Errorf("main thread: %d StartAndWait slices, its GC %v, its throw %v", mainWait, gc, thrown)
	}

	file := readSpeedscope(t, ss)
	var ordered *speedscope.Profile
	for i, pr := range file.Profiles {
		if pr.Name == "thread "+strconv.Itoa(workerTid)+" (samples in time order)" {
			ordered = &file.Profiles[i]
		}
	}
	if ordered == nil || ordered.Type != "sampled" || ordered.Unit != "nanoseconds" {
		t.Fatalf("no time-ordered sampled profile of the worker in %s: %+v", ss, ordered)
	}
	lastAt, firstBAt := -1, -1
	for i, s := range ordered.Samples {
		for _, fr := range s {
			switch file.Shared.Frames[fr].Name {
			case "Work.A":
				lastAt = i
			case "Work.B":
				if firstBAt < 0 {
					firstBAt = i
				}
			}
		}
		if ordered.Weights[i] <= 0 {
			t.Errorf("sample %d weighs %v ns", i, ordered.Weights[i])
		}
	}
	if lastAt < 0 || firstBAt < 0 || lastAt > firstBAt {
		t.Errorf("speedscope's worker samples: A's last at %d, B's first at %d", lastAt, firstBAt)
	}

	// The cap: at most 30 events of samples, the rest counted and said.
	out = t.TempDir()
	_, stderr, code = runVbench(t, "profile", "--mode", "sampling", "--interval", "1ms", "--timeline", "--timeline-cap", "30", "--out", out, "--", "dotnet", dll)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if p, err = profile.ReadFile(out); err != nil {
		t.Fatal(err)
	}
	tl = p.Timeline
	tr = readTimeline(t, filepath.Join(out, strconv.Itoa(p.PID), timeline.File))
	var slices int64
	for _, e := range tr.TraceEvents {
		if e.Cat == timeline.CatSample {
			slices++
		}
	}
	t.Logf("cap 30: %+v", *tl)
	if tl.Slices != slices || slices > 30 || tl.Dropped == 0 || tl.Cap != 30 || !strings.Contains(stderr, "samples were left out of timeline.json: its cap of 30 events was reached") {
		t.Errorf("cap 30: %d slices in the file, %+v; stderr:\n%s", slices, *tl, stderr)
	}
}

// readTimeline reads a timeline.json and checks it is valid trace-event JSON.
func readTimeline(t *testing.T, path string) *timeline.Trace {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := timeline.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := timeline.Validate(tr); err != nil {
		t.Fatalf("%s is not valid trace-event JSON: %v", path, err)
	}
	return tr
}

// readSpeedscope reads a speedscope file and checks what speedscope relies on.
func readSpeedscope(t *testing.T, path string) *speedscope.File {
	t.Helper()
	return testbin.DecodeFile(t, path, speedscope.Read)
}
