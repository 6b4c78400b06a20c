package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/internal/suite"
	"vbench/internal/testbin"
)

// planFor loads a suite written into dir and plans it with the suite's
// settings and a fixed seed.
func planFor(t *testing.T, dir, yaml string) *Plan {
	t.Helper()
	path := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := suite.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(s, Options{Warmup: -1, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// Interrupting a run kills the running launch; the time that launch ran is
// the child's, not the harness's. Counted as bookkeeping it once showed as
// milliseconds per run. Every launch here sleeps 20ms, so the harness's own
// time per run must stay below the shortest launch's wall time, however
// long the killed launch hung (here at least half a second, which the old
// accounting spread over the few finished runs).
func TestInterruptDoesNotInflateBookkeeping(t *testing.T) {
	fw := testbin.Fakework(t)
	dir := t.TempDir()
	plan := planFor(t, dir, `name: bookkeeping
runs: 3
warmup: 0
modes: [none]
timeout: 10m
workloads:
  - name: steady
    command: [`+fw+`, -sleep, 20ms]
  - name: stuck
    command: [`+fw+`, -sleep, 20ms, -counter, count.txt, -hang-at, "3", -pidfile, pids.txt]
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			if b, _ := os.ReadFile(filepath.Join(dir, "pids.txt")); strings.Contains(string(b), "\n") {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond)
		cancel()
	}()
	f, _ := Run(ctx, plan, Env{})
	if !f.Partial {
		t.Fatalf("the run was not interrupted")
	}
	shortest := time.Duration(1<<63 - 1)
	runs := 0
	for _, c := range f.Results {
		for _, r := range c.Samples {
			if r.Error != "" {
				t.Fatalf("%s: %s", c.Key(), r.Error)
			}
			shortest = min(shortest, time.Duration(r.WallNs))
			runs++
		}
	}
	if stuck := f.Find("stuck", modes.None); stuck == nil || len(stuck.Samples) != 2 {
		t.Fatalf("want stuck's two launches before the hang recorded, the killed one dropped: %+v", stuck)
	}
	bk := time.Duration(f.BookkeepingNs)
	t.Logf("bookkeeping %v per run over %d runs; shortest launch %v", bk, runs, shortest)
	if bk <= 0 || bk >= shortest {
		t.Errorf("bookkeeping %v per run over %d runs; want more than 0 and less than the shortest launch (%v)", bk, runs, shortest)
	}
}

// The cores other processes kept busy are recorded only from a loop long
// enough for /proc/stat's 10ms ticks to mean anything (minBusyLoop), and
// never as a negative figure. Constructed accounts, so each rule is checked
// whatever the machine is doing; TestShortLoopRecordsNoOtherCPU checks the
// same through a real loop.
func TestRecordOtherCPUOnlyFromALongLoop(t *testing.T) {
	long := minBusyLoop()
	for _, c := range []struct {
		name        string
		a           account
		bookkeeping float64
		otherCPU    float64
	}{
		{"short loop, busy machine", account{launches: 2, loop: long / 100, childWall: long / 200, others: long / 100, othersOK: true}, float64(long / 400), 0},
		{"long loop", account{launches: 4, loop: long, childWall: long / 2, others: long / 4, othersOK: true}, float64(long / 8), 0.25},
		{"long loop, /proc/stat unread", account{launches: 4, loop: long, childWall: long / 2, others: long / 4}, float64(long / 8), 0},
		{"long loop, ticks short of the children's rusage", account{launches: 1, loop: 2 * long, childWall: long, others: -long / 10, othersOK: true}, float64(long), 0},
		{"no launch", account{loop: long, others: long, othersOK: true}, 0, 0},
	} {
		var f results.File
		c.a.record(&f)
		if f.BookkeepingNs != c.bookkeeping || f.OtherCPU != c.otherCPU {
			t.Errorf("%s: bookkeeping %v ns, other CPU %v cores; want %v ns, %v cores", c.name, f.BookkeepingNs, f.OtherCPU, c.bookkeeping, c.otherCPU)
		}
	}
}

// A loop too short for /proc/stat's 10ms ticks records no other-CPU figure
// (so the run cannot warn that the machine was busy), even while another
// process keeps a core busy: Run hands its real account to record. Without
// the length check this run recorded 0.4 to 2.2 cores. It skips only on a
// machine so slow that two launches reach minBusyLoop;
// TestRecordOtherCPUOnlyFromALongLoop checks the rule itself.
func TestShortLoopRecordsNoOtherCPU(t *testing.T) {
	fw := testbin.Fakework(t)
	spin := exec.Command("/bin/sh", "-c", "while :; do :; done")
	if err := spin.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { spin.Process.Kill(); spin.Wait() }()
	plan := planFor(t, t.TempDir(), `name: short
runs: 2
warmup: 0
modes: [none]
workloads:
  - name: quick
    command: [`+fw+`]
`)
	f, _ := Run(context.Background(), plan, Env{})
	if loop := f.Finished.Sub(f.Started); loop >= minBusyLoop() {
		t.Skipf("two launches took %v on this machine, long enough to measure other processes", loop)
	}
	if f.OtherCPU != 0 {
		t.Errorf("a loop of a few milliseconds recorded other processes using %.2f cores", f.OtherCPU)
	}
}
