package runner

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vbench/internal/results"
	"vbench/internal/testbin"
	"vbench/internal/verdict"
)

// neighbour is scripts/neighbour.sh with args, started in its own process
// group (so that the test can see whether anything of it is left).
func neighbour(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(filepath.Join(testbin.RepoRoot(), "scripts", "neighbour.sh"), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// groupGone reports whether no process of the group pgid is left.
func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

// The neighbour's plan is its seed's: the same seed draws the same bursts,
// another seed others; every burst lies within the duration.
func TestNeighbourPlanIsSeeded(t *testing.T) {
	plan := func(seed string) []string {
		out, err := neighbour(t, "-n", "-s", seed, "-d", "120").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	a, b, c := plan("5"), plan("5"), plan("6")
	if !slices.Equal(a, b) || slices.Equal(a, c) || len(a) < 10 {
		t.Fatalf("plans of seeds 5, 5, 6:\n%v\n%v\n%v", a, b, c)
	}
	for _, line := range a {
		f := strings.Fields(line)
		at, _ := strconv.Atoi(f[1])
		n, _ := strconv.Atoi(f[2])
		if len(f) != 3 || f[0] != "burst" || n <= 0 || at+n > 120_000 {
			t.Errorf("burst %q is not within the 120 s", line)
		}
	}
	if err := neighbour(t, "-d", "soon").Run(); err == nil {
		t.Errorf("-d soon was accepted")
	}
}

// The neighbour stops by itself, its burner with it; SIGTERM stops it at
// once, burner included.
func TestNeighbourStops(t *testing.T) {
	cmd := neighbour(t, "-s", "1", "-d", "2", "-b", "500:500", "-i", "100:100")
	if err := cmd.Run(); err != nil {
		t.Fatalf("neighbour: %v", err)
	}
	if !groupGone(cmd.Process.Pid) { // it waits for what it kills
		t.Errorf("something of the neighbour outlived it")
	}
	cmd = neighbour(t, "-s", "1", "-d", "600", "-b", "60000:60000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Its first burst starts at once: wait for the burner to appear.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if out, _ := exec.Command("pgrep", "-g", strconv.Itoa(cmd.Process.Pid)).Output(); len(strings.Fields(string(out))) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no burner in the neighbour's group")
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("neighbour after SIGTERM: %v", err)
	}
	// The burner dies by the script's trap; on a loaded machine its exit
	// can be reaped a moment after the script's own (seen twice in a
	// clean-clone CI run beside valgrind runs): allow it a few seconds.
	for deadline := time.Now().Add(10 * time.Second); !groupGone(cmd.Process.Pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("the burner outlived SIGTERM by 10 s")
			break
		}
	}
}

// The rule under the neighbour: an A/A pair and a pair whose NEW burns
// twice the CPU, timed by their wall time (which the neighbour's bursts
// and the machine's other load inflate), back to back in each round. The
// A/A pair is never regressed nor improved (a false verdict: at most
// alpha over the family, 0.01/2, of runs of this test); the 2x pair is
// caught.
func TestRuleUnderNeighbour(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a neighbour for up to a minute")
	}
	fw := testbin.Fakework(t)
	nb := neighbour(t, "-s", "40", "-d", "60")
	if err := nb.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { nb.Process.Signal(syscall.SIGTERM); nb.Wait() }()
	plan := planFor(t, t.TempDir(), `name: neighbour
runs: 10
max_runs: 25
warmup: 1
modes: [none]
metric: wall
timeout: 1m
thresholds: {min_change: 5%, alpha: 0.01}
workloads:
  - {name: aa, command: [`+fw+`, -spin, 40ms], against: aa-base}
  - {name: aa-base, command: [`+fw+`, -spin, 40ms]}
  - {name: ab, command: [`+fw+`, -spin, 80ms], against: ab-base}
  - {name: ab-base, command: [`+fw+`, -spin, 40ms]}
`)
	f, _ := Run(context.Background(), plan, Env{})
	verdict.Apply(f, nil, verdict.OptionsOf(f))
	for _, w := range []string{"aa", "ab"} {
		c := f.Find(w, "none")
		t.Logf("%s: %s after %d runs (%s), ratio %.3f", w, c.Verdict, c.Runs, c.Stopped, c.Compare.Ratio)
	}
	if v := f.Find("aa", "none").Verdict; v == results.VerdictRegressed || v == results.VerdictImproved {
		t.Errorf("A/A pair under the neighbour: %s", v)
	}
	if v := f.Find("ab", "none").Verdict; v != results.VerdictRegressed {
		t.Errorf("2x pair under the neighbour: %s", v)
	}
}
