package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"vbench/internal/modes"
	"vbench/internal/suite"
	"vbench/internal/testbin"
)

func TestParseLine(t *testing.T) {
	r, err := ParseLine("VBENCH elapsed_ns=123 checksum=abc calls.Fib.Compute=10 calls.Main=1 gc=3")
	if err != nil || r.ElapsedNs != 123 || r.CPUNs != -1 || r.Checksum != "abc" || r.Calls["Fib.Compute"] != 10 || r.Calls["Main"] != 1 || r.Other["gc"] != "3" {
		t.Errorf("ParseLine = %+v, %v", r, err)
	}
	if r, err := ParseLine("VBENCH elapsed_ns=123 cpu_ns=0 checksum=abc"); err != nil || r.CPUNs != 0 {
		t.Errorf("ParseLine with cpu_ns = %+v, %v", r, err)
	}
	for _, bad := range []string{"VBENCH checksum=x", "VBENCH elapsed_ns=-1", "VBENCH elapsed_ns=1 junk", "VBENCH elapsed_ns=1 calls.F=x", "VBENCH elapsed_ns=1 cpu_ns=-5", "VBENCH elapsed_ns=1 cpu_ns=1.5"} {
		if _, err := ParseLine(bad); err == nil {
			t.Errorf("ParseLine(%q) accepted", bad)
		}
	}
}

// share.<Function>=<fraction>: fractions in [0, 1] summing to 1 (to the
// last digits of a fraction printed in full, like thirds).
func TestParseLineShares(t *testing.T) {
	r, err := ParseLine("VBENCH elapsed_ns=1 share.Split.A=0.3333333333333333 share.Split.B=0.6666666666666666 share.Split.C=0")
	if err != nil || len(r.Shares) != 3 || r.Shares["Split.A"] != 1.0/3 || r.Shares["Split.C"] != 0 || len(r.Other) != 0 {
		t.Errorf("ParseLine = %+v, %v", r, err)
	}
	for line, msg := range map[string]string{
		"VBENCH elapsed_ns=1 share.A=0.5 share.B=0.25":  "VBENCH line: the share.* values sum to 0.75, not 1: they must partition the sampled work (A=0.5 B=0.25)",
		"VBENCH elapsed_ns=1 share.A=1.5 share.B=-0.5":  `VBENCH line: share.A="1.5" is not a fraction between 0 and 1`,
		"VBENCH elapsed_ns=1 share.A=half":              `VBENCH line: share.A="half" is not a fraction between 0 and 1`,
		"VBENCH elapsed_ns=1 share.A=NaN":               `VBENCH line: share.A="NaN" is not a fraction between 0 and 1`,
		"VBENCH elapsed_ns=1 share.=1":                  `VBENCH line: share.="1" is not a fraction between 0 and 1`,
		"VBENCH elapsed_ns=1 share.A=0.5 share.B=0.501": "VBENCH line: the share.* values sum to 1.001, not 1: they must partition the sampled work (A=0.5 B=0.501)",
	} {
		if _, err := ParseLine(line); err == nil || err.Error() != msg {
			t.Errorf("ParseLine(%q): %v, want %s", line, err, msg)
		}
	}
}

func TestOutputScanner(t *testing.T) {
	var s outputScanner
	for _, chunk := range []string{"hello\nVBENCH elap", "sed_ns=5 checksum=x\r\nbye\n", "VBENCH elapsed_ns=6"} {
		s.Write([]byte(chunk))
	}
	s.flush()
	if len(s.vbench) != 2 || s.vbench[0] != "VBENCH elapsed_ns=5 checksum=x" || s.vbench[1] != "VBENCH elapsed_ns=6" {
		t.Errorf("vbench lines %q", s.vbench)
	}
	if got := s.tail.LastLines(1); got != "VBENCH elapsed_ns=6" {
		t.Errorf("tail %q", got)
	}
}

func cells(names []string, ms []modes.Mode) []Cell {
	var out []Cell
	for _, n := range names {
		w := &suite.Workload{Name: n}
		for _, m := range ms {
			out = append(out, Cell{Workload: w, Mode: m})
		}
	}
	return out
}

// Shards are disjoint, complete, balanced and independent of suite order.
func TestShardCells(t *testing.T) {
	all := cells([]string{"zeta", "alpha", "mid", "beta", "q"}, modes.Builtins)
	for n := 1; n <= 7; n++ {
		seen := map[string]int{}
		for i := 1; i <= n; i++ {
			sh := ShardCells(all, i, n)
			if len(sh) < len(all)/n || len(sh) > len(all)/n+1 {
				t.Errorf("shard %d/%d has %d cells of %d", i, n, len(sh), len(all))
			}
			for _, c := range sh {
				seen[c.Key()]++
			}
		}
		if len(seen) != len(all) {
			t.Errorf("n=%d: union has %d cells, want %d", n, len(seen), len(all))
		}
		for k, v := range seen {
			if v != 1 {
				t.Errorf("n=%d: %s in %d shards", n, k, v)
			}
		}
	}
	rev := append([]Cell(nil), all...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	a, b := keys(ShardCells(all, 2, 3)), keys(ShardCells(rev, 2, 3))
	if strings.Join(sorted(a), ",") != strings.Join(sorted(b), ",") {
		t.Errorf("shard depends on suite order: %v vs %v", a, b)
	}
}

// A/B pairs (a cell and the cell it is judged against) share a shard: the
// comparison holds only within one run. Every engine mode's OLD-build twin,
// and a suite's against:, keep their pair whole for every shard count.
func TestShardCellsKeepsPairs(t *testing.T) {
	ms := []modes.Mode{modes.None, modes.Tracing, modes.Sampling, modes.OldBuild(modes.Tracing), modes.OldBuild(modes.Sampling)}
	all := cells([]string{"zeta", "alpha", "mid", "beta", "q"}, ms)
	for i := range all {
		if m := all[i].Mode; m == modes.Tracing || m == modes.Sampling {
			all[i].Spec.Against = modes.OldBuild(m)
		}
	}
	for n := 1; n <= 7; n++ {
		seen := map[string]int{}
		for i := 1; i <= n; i++ {
			in := map[string]bool{}
			for _, c := range ShardCells(all, i, n) {
				in[c.Key()] = true
				seen[c.Key()]++
			}
			for k := range in {
				w, m, _ := strings.Cut(k, "/")
				if a := modes.Mode(m); a == modes.Tracing || a == modes.Sampling {
					if !in[w+"/"+string(modes.OldBuild(a))] {
						t.Errorf("shard %d/%d has %s without its OLD build's twin", i, n, k)
					}
				}
			}
		}
		if len(seen) != len(all) {
			t.Errorf("n=%d: union has %d cells, want %d", n, len(seen), len(all))
		}
		for k, v := range seen {
			if v != 1 {
				t.Errorf("n=%d: %s in %d shards", n, k, v)
			}
		}
	}
}

func keys(cs []Cell) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Key())
	}
	return out
}

func sorted(xs []string) []string {
	out := append([]string(nil), xs...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// The schedule: warmups first; then rounds in which every cell runs once,
// in a seeded random order that differs between rounds.
func TestSchedule(t *testing.T) {
	var cs []*cellState
	for _, c := range cells([]string{"a", "b"}, modes.Builtins[:3]) {
		c.Runs, c.Warmup = 20, 1
		cs = append(cs, &cellState{Cell: c})
	}
	cs[0].Runs = 3
	order, _ := schedule(cs, units(cs, nil, SchedulePairs), 42)
	if len(order) != 6+3+5*20 {
		t.Fatalf("%d steps", len(order))
	}
	for i := 0; i < 6; i++ {
		if !order[i].warmup {
			t.Fatalf("step %d is not a warmup", i)
		}
	}
	firsts := map[string]bool{}
	pos := 6
	for r := 0; r < 20; r++ {
		n := 6
		if r >= 3 {
			n = 5
		}
		round := map[string]bool{}
		for _, st := range order[pos : pos+n] {
			round[st.cell.Key()] = true
		}
		if len(round) != n {
			t.Fatalf("round %d repeats a cell", r)
		}
		firsts[order[pos].cell.Key()] = true
		pos += n
	}
	if len(firsts) < 3 {
		t.Errorf("rounds are not shuffled: first cells %v", firsts)
	}
	again, _ := schedule(cs, units(cs, nil, SchedulePairs), 42)
	for i := range order {
		if order[i].cell != again[i].cell {
			t.Fatalf("same seed, different schedule")
		}
	}
}

// Exec records rusage and kills the whole group on timeout.
func TestExec(t *testing.T) {
	fw := testbin.Fakework(t)
	out := Exec(context.Background(), Spec{Argv: []string{fw, "-elapsed", "77"}, Env: os.Environ(), Dir: t.TempDir()})
	if out.Failure(0) != "" || len(out.VBENCH) != 1 || out.VBENCH[0] != "VBENCH elapsed_ns=77 checksum=ok" || out.Wall <= 0 {
		t.Errorf("outcome %+v", out)
	}
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pids")
	out = Exec(context.Background(), Spec{Argv: []string{fw, "-hang", "-pidfile", pidfile}, Env: os.Environ(), Dir: dir, Timeout: 500 * time.Millisecond})
	if !out.TimedOut || out.Signal != "SIGKILL" || !strings.Contains(out.Failure(500*time.Millisecond), "timed out after 500ms") {
		t.Errorf("timeout outcome %+v", out)
	}
	b, _ := os.ReadFile(pidfile)
	var parent, child int
	fmt.Sscan(string(b), &parent, &child)
	if child == 0 {
		t.Fatalf("no child pid in %q", b)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", child))
		if err != nil || strings.Fields(string(st))[2] == "Z" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hanging workload's child %d survived", child)
		}
		time.Sleep(50 * time.Millisecond)
	}
	out = Exec(context.Background(), Spec{Argv: []string{filepath.Join(dir, "missing")}, Env: os.Environ(), Dir: dir})
	if !strings.HasPrefix(out.Failure(0), "could not start:") {
		t.Errorf("missing program: %q", out.Failure(0))
	}
}

// A failure quotes the program's stderr, its own words; a program that
// printed nothing there (a native crash) gets its last stdout lines
// labelled as such, not passed off as its error message.
func TestFailureQuotesStderrAndLabelsStdout(t *testing.T) {
	o := Outcome{Signal: "SIGSEGV", Stdout: "banner\nstart 149999997\nstep 2\nstep 3\n"}
	if got, want := o.Failure(0), "crashed: killed by SIGSEGV (nothing on stderr; its stdout: start 149999997 step 2 step 3)"; got != want {
		t.Errorf("Failure = %q, want %q", got, want)
	}
	o.Stderr = "Unhandled exception. boom\n"
	if got, want := o.Failure(0), "crashed: killed by SIGSEGV: Unhandled exception. boom "; got != want {
		t.Errorf("Failure = %q, want %q", got, want)
	}
}

// Under a mode's wrapper (a shell script such as scripts/perf-record.sh), a
// program killed by a signal reaches vbench as the shell's exit status
// 128+n: the failure names the signal, where an unwrapped program's status
// 138 is only a status.
func TestWrappedSignalNamed(t *testing.T) {
	argv := []string{"sh", "-c", `"$@"; exit $?`, "wrapper", "sh", "-c", "kill -USR1 $$"}
	out := Exec(context.Background(), Spec{Argv: argv, Env: os.Environ(), Dir: t.TempDir(), Wrapped: true})
	if got, want := out.Failure(0), "exited with status 138: 128+10, how a wrapper's shell reports its program killed by SIGUSR1"; !strings.HasPrefix(got, want) {
		t.Errorf("wrapped: %q, want it to start %q", got, want)
	}
	out = Exec(context.Background(), Spec{Argv: argv, Env: os.Environ(), Dir: t.TempDir()})
	if got, want := out.Failure(0), "exited with status 138"; !strings.HasPrefix(got, want) || strings.Contains(got, "SIGUSR1") {
		t.Errorf("not wrapped: %q, want it to start %q and name no signal", got, want)
	}
}

// A workload's child that calls setsid leaves the run's process group: a
// timeout or Ctrl-C killed the group and left it running (a sleep, which
// skewed every later measurement on a small machine). The run's whole
// tree, snapshotted before the kill, goes with it.
func TestExecKillsEscapedDescendants(t *testing.T) {
	for _, how := range []string{"timeout", "interrupt"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			pidfile := filepath.Join(dir, "pid")
			// The pid is written once setsid has run (it execs sleep in place).
			script := `setsid sh -c 'echo $$ > pid.tmp; mv pid.tmp pid; exec sleep 1000' & while [ ! -e pid ]; do sleep 0.05; done; echo ready; sleep 1000`
			spec := Spec{Argv: []string{"sh", "-c", script}, Env: os.Environ(), Dir: dir}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if how == "timeout" {
				spec.Timeout = 5 * time.Second
			} else {
				go func() {
					for {
						if _, err := os.Stat(pidfile); err == nil {
							time.Sleep(100 * time.Millisecond) // past the loop that waits for it
							cancel()
							return
						}
						time.Sleep(20 * time.Millisecond)
					}
				}()
			}
			out := Exec(ctx, spec)
			b, err := os.ReadFile(pidfile)
			if err != nil {
				t.Fatalf("the setsid child never ran (%v): %+v", err, out)
			}
			var pid int
			fmt.Sscan(string(b), &pid)
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			if how == "timeout" && !out.TimedOut || how == "interrupt" && !out.Interrupted {
				t.Fatalf("outcome %+v, want %s", out, how)
			}
			if sid, _ := unix.Getsid(pid); sid != pid && processLives(pid) {
				t.Fatalf("pid %d is not the setsid child (session %d)", pid, sid)
			}
			deadline := time.Now().Add(5 * time.Second)
			for processLives(pid) {
				if time.Now().After(deadline) {
					t.Fatalf("%s: the setsid child %d (sleep 1000) survived the run", how, pid)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

// processLives reports whether pid runs (a zombie has ended).
func processLives(pid int) bool {
	f := statFields(pid, &bytes.Buffer{})
	return len(f) > 0 && f[0] != "Z"
}
