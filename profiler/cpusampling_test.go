package main

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
)

// The cpu-sampling engine walks frame pointers from a signal: its stacks
// must be the program's, caller for caller. Hot.Spin is an OSR method (a
// loop entered once), whose frame record skips its caller: Hot.Run must
// still be found as its only caller.
//
// Both sources of ticks: CPU-clock timers, and the directed ticks a busy
// thread is moved to (VBENCH_CPU_DIRECTED=1 directs every thread from its
// start, whatever the machine's tick does; VBENCH_CPU_TIMERS=1 keeps every
// thread on its timer), each counted in the debug log.
func TestCPUSamplingFindsHotFunction(t *testing.T) {
	for _, ticks := range []struct{ env, log string }{
		{"VBENCH_CPU_DIRECTED=1", `threads directed [1-9][0-9]* \(ticks sent [1-9]`},
		{"VBENCH_CPU_TIMERS=1", `threads directed 0 `},
	} {
		t.Run(ticks.env, func(t *testing.T) { findsHotFunction(t, ticks.env, ticks.log) })
	}
}

func findsHotFunction(t *testing.T, env, log string) {
	r, p := profiled(t, modes.EngineCPUSampling, []string{modes.EnvVar("interval") + "=1ms", env, "VBENCH_DEBUG=1"}, 0, "cpu", "1500")
	if !regexp.MustCompile(log).MatchString(r.Stderr) {
		t.Errorf("the debug log does not match %q:\n%s", log, r.Stderr)
	}
	if p.Mode != modes.EngineCPUSampling || p.IntervalNs != 1e6 || p.Samples < 20 {
		t.Fatalf("mode %s interval %d samples %d\nstderr:\n%s", p.Mode, p.IntervalNs, p.Samples, r.Stderr)
	}
	top := p.Top(1)
	if len(top) == 0 || top[0].Name != "VbTest.Hot.Spin" {
		t.Fatalf("top function %v, want VbTest.Hot.Spin", top)
	}
	var total int64 // of the program's methods: not the runtime's start-up in named frames
	for _, f := range p.Functions {
		if !namedFrame(f.Name) {
			total += f.ExclusiveSamples
		}
	}
	if top[0].ExclusiveSamples*10 < total*8 {
		t.Errorf("Hot.Spin has %d of %d exclusive samples, want >= 80%%", top[0].ExclusiveSamples, total)
	}
	if c := top[0].Callers; len(c) != 1 || c[0].Name != "VbTest.Hot.Run" || c[0].Samples != top[0].InclusiveSamples {
		t.Errorf("Hot.Spin callers %+v, want only VbTest.Hot.Run", top[0].Callers)
	}
	if f := p.Function(IncompleteStack); f != nil {
		t.Errorf("%d samples under %s: walks stopped in managed code", f.InclusiveSamples, IncompleteStack)
	}
	pprofTop(t, testapp.ProcessDir(t, r.Dir), "VbTest.Hot.Spin")
}

// Leafy.Mix has no safe point (no loop, no call): the suspending sampler
// needs interrupted.c to see it; a CPU timer's signal lands in it directly.
// Half of Spin's work is Mix's, on each of two threads; Mix is frameless
// (its caller comes from the word at the stack pointer) and Spin an OSR
// method (its caller from the Tier0 frame above its frame record).
func TestCPUSamplingSeesLeavesWithoutSafePoints(t *testing.T) {
	const spin, mix = "VbTest.Leafy.Spin", "VbTest.Leafy.Mix"
	r, p := profiled(t, modes.EngineCPUSampling, []string{modes.EnvVar("interval") + "=1ms", "VBENCH_DEBUG=1"}, 0, "leaf", "20", "2")
	s, m := p.Function(spin), p.Function(mix)
	floor, why := spinSamplesFloor(p, spin)
	if s == nil || s.InclusiveSamples < floor {
		t.Fatalf("%s: %+v, want >= %d inclusive samples (%s)\nstderr:\n%s", spin, s, floor, why, r.Stderr)
	}
	n := float64(s.InclusiveSamples)
	// Where the engine falls back to CPU-clock timers, samples weigh 1 + the
	// timer's overruns (the kernel checks them at its tick): fewer independent
	// draws than samples, so the band is that of n/4 draws, four standard
	// deviations, never narrower than 0.3..0.7.
	half := max(0.2, 4/math.Sqrt(n))
	if m == nil || float64(m.ExclusiveSamples) < (0.5-half)*n || float64(m.ExclusiveSamples) > (0.5+half)*n {
		t.Fatalf("%s: %+v; want %.0f%%..%.0f%% of %s's %d samples as its own\nstderr:\n%s", mix, m, 100*(0.5-half), 100*(0.5+half), spin, s.InclusiveSamples, r.Stderr)
	}
	if c := m.Callers; len(c) != 1 || c[0].Name != spin || c[0].Samples != m.InclusiveSamples {
		t.Errorf("%s callers %+v, want only %s", mix, c, spin)
	}
	if c := s.Callers; len(c) != 1 || !strings.HasPrefix(c[0].Name, "VbTest.Leafy.") || c[0].Samples != s.InclusiveSamples {
		t.Errorf("%s callers %+v, want only the thread's lambda in VbTest.Leafy", spin, s.Callers)
	}
	threads := 0
	for _, th := range p.Threads {
		if samplesOf(p, th.Roots, mix) > 0 {
			threads++
		}
	}
	if threads != 2 {
		t.Errorf("%s has samples on %d threads, want 2", mix, threads)
	}
}

// Every stack the cpu-sampling engine records is a path the program really
// took: in order, each of its frames is a call path the tracing engine (exact
// enter/leave hooks) saw in the same program. A frame the walk got wrong (a
// stale word taken for a return address, a skipped caller grafted at the
// root) makes a path tracing never saw. Inlining is kept from hiding frames
// from either engine by VBENCH_SAMPLING_NOINLINE (tracing never inlines
// hooked methods); tiny methods may still be inlined into their callers
// under sampling, so a sampled path need only be a subsequence of a traced
// one.
func TestCPUSamplingPathsAreTracedPaths(t *testing.T) {
	for _, args := range [][]string{{"leaf", "10", "2"}, {"fib", "20"}, {"mandel", "800"}} {
		_, tr := profiled(t, modes.EngineTracing, nil, 0, args...)
		r, cs := profiled(t, modes.EngineCPUSampling, []string{modes.EnvVar("interval") + "=1ms", modes.EnvVar("no_inline") + "=1"}, 0, args...)
		traced := paths(tr, false)
		sampled, bad := paths(cs, true), 0
		if len(sampled) == 0 {
			t.Fatalf("%v: no sampled stacks\nstderr:\n%s", args, r.Stderr)
		}
		for _, sp := range sampled {
			ok := false
			for _, tp := range traced {
				if subsequence(sp, tp) {
					ok = true
					break
				}
			}
			if !ok {
				bad++
				if bad <= 5 {
					t.Errorf("%v: sampled path never traced: %s", args, strings.Join(sp, " > "))
				}
			}
		}
		t.Logf("%v: %d sampled paths, %d traced, %d not traced", args, len(sampled), len(traced), bad)
	}
}

// paths lists every root-to-node path of p's threads as function names
// (the engine's markers left out when skipMarkers).
func paths(p *profile.Profile, skipMarkers bool) [][]string {
	var out [][]string
	var cur []string
	for _, th := range p.Threads {
		profile.Walk(th.Roots, func(n *profile.Node, _ int) bool {
			name := p.Functions[n.Fn].Name
			if skipMarkers && (name == IncompleteStack || name == profile.ElidedFrames || namedFrame(name)) {
				cur = append(cur, "")
			} else {
				cur = append(cur, name)
			}
			path := make([]string, 0, len(cur))
			for _, c := range cur {
				if c != "" {
					path = append(path, c)
				}
			}
			out = append(out, path)
			return true
		}, func(*profile.Node, int) { cur = cur[:len(cur)-1] })
	}
	return out
}

// namedFrame: a frame the sampler names for samples no method takes.
func namedFrame(name string) bool {
	switch name {
	case profile.NativeFrame, profile.JITFrame, profile.RuntimeFrame, profile.GCFrame, profile.UnselectedFrame:
		return true
	}
	return false
}

// subsequence reports whether a's names appear in b in order, and a's
// last is b's last (the sampled leaf is the traced node).
func subsequence(a, b []string) bool {
	if len(a) == 0 || len(b) == 0 || a[len(a)-1] != b[len(b)-1] {
		return len(a) == 0
	}
	i := 0
	for _, x := range b {
		if i < len(a) && a[i] == x {
			i++
		}
	}
	return i == len(a)
}

// Waits: a thread blocked in Thread.Join or Thread.Sleep uses no CPU time,
// so no CPU tick ever lands on it; the engine walks its waiting stack once
// and weighs it by the time waited (docs/sampling.md, "Sampling by signals"), as
// the suspending sampler's wall-clock ticks and the tracer count that time
// as the waiting method's. Waiter.Join waits for the whole of Hot.Spin's
// 600 ms on a worker, Waiter.Nap sleeps 300 ms: each gets its wall time in
// samples, within what a check every 10 ms and a busy machine leave (0.6 to
// 1.5 times); with VBENCH_CPU_WAITS=0, CPU time only, neither has one.
func TestCPUSamplingSamplesWaits(t *testing.T) {
	const ms = 600
	r, p := profiled(t, modes.EngineCPUSampling, []string{modes.EnvVar("interval") + "=10ms", "VBENCH_DEBUG=1"}, 0, "wait", "600")
	join, nap := p.Function("VbTest.Waiter.Join"), p.Function("VbTest.Waiter.Nap")
	for _, w := range []struct {
		f    *profile.Function
		name string
		ms   float64
	}{{join, "Join", ms}, {nap, "Nap", ms / 2}} {
		want := w.ms / 10
		if w.f == nil || float64(w.f.InclusiveSamples) < 0.6*want || float64(w.f.InclusiveSamples) > 1.5*want {
			t.Errorf("Waiter.%s: %+v, want about %.0f samples (%.0f ms waited, 10 ms a sample)\nstderr:\n%s", w.name, w.f, want, w.ms, r.Stderr)
		}
	}
	if join != nil && nap != nil && p.WaitSamples < join.InclusiveSamples+nap.InclusiveSamples {
		t.Errorf("profile's wait_samples %d, below Join's %d and Nap's %d", p.WaitSamples, join.InclusiveSamples, nap.InclusiveSamples)
	}
	// Waiter.Join waits in CoreLib's Thread.Join(), which keeps no frame
	// pointer: the wait is Join's, not its caller Waiter.Run's.
	if run := p.Function("VbTest.Waiter.Run"); join != nil && run != nil && run.ExclusiveSamples > join.InclusiveSamples/10 {
		t.Errorf("Waiter.Run has %d exclusive samples beside Join's %d: the frameless Thread.Join() hid its caller", run.ExclusiveSamples, join.InclusiveSamples)
	}
	if !regexp.MustCompile(`callers of frameless methods [1-9]`).MatchString(r.Stderr) {
		t.Errorf("the debug log counts no caller of a frameless method found:\n%s", r.Stderr)
	}
	if !regexp.MustCompile(`waits: [1-9][0-9]* ticks sent`).MatchString(r.Stderr) {
		t.Errorf("the debug log counts no wait ticks:\n%s", r.Stderr)
	}
	if s := p.Function("VbTest.Hot.Spin"); s == nil || s.InclusiveSamples < 10 {
		t.Errorf("Hot.Spin: %+v, want its CPU time sampled", s)
	}

	_, p = profiled(t, modes.EngineCPUSampling, []string{modes.EnvVar("interval") + "=10ms", "VBENCH_CPU_WAITS=0"}, 0, "wait", "600")
	for _, name := range []string{"VbTest.Waiter.Join", "VbTest.Waiter.Nap"} {
		if f := p.Function(name); f != nil && f.InclusiveSamples > 0 {
			t.Errorf("VBENCH_CPU_WAITS=0: %s has %d samples, want none", name, f.InclusiveSamples)
		}
	}
	if p.WaitSamples != 0 {
		t.Errorf("VBENCH_CPU_WAITS=0: wait_samples %d", p.WaitSamples)
	}
}

// A program that takes SIGPROF, the sampling engine's signal, blinds the
// sampler: its ticks are ignored, or run the program's handler. The
// profile must say so (complete false, the cause), and stderr too; before,
// it was written complete with a handful of samples and the hot function
// missing. The program's own handler is left in place (never taken back).
func TestProgramTakingSIGPROF(t *testing.T) {
	for _, c := range []struct{ kind, now string }{
		{"ign", "ignored (SIG_IGN)"},
		{"own", "a handler of its own"},
	} {
		r, p := profiled(t, modes.EngineCPUSampling, []string{modes.EnvVar("interval") + "=1ms"}, 0, "sigprof", "300", c.kind)
		if p.Complete || !strings.Contains(p.Cause, "SIGPROF") || !strings.Contains(p.Cause, c.now) {
			t.Errorf("%s: profile complete %v, cause %q; want it incomplete, its cause SIGPROF %s\nstderr:\n%s", c.kind, p.Complete, p.Cause, c.now, r.Stderr)
		}
		if !strings.Contains(r.Stderr, "vbench-profiler: ") || !strings.Contains(r.Stderr, c.now) {
			t.Errorf("%s: stderr does not say the sampler lost SIGPROF:\n%s", c.kind, r.Stderr)
		}
	}
}

// A thread whose fault became a managed exception (the stress program's
// workers dereference null every round) keeps its ticks: CoreCLR leaves
// its fault handler, which runs with SIGPROF blocked, for the exception's
// dispatch without returning, so SIGPROF stayed blocked on the thread for
// good. Each worker used ~0.9 s of CPU and got 20-24 samples at 1 ms, not
// ~900; now its samples cover at least half its CPU time.
func TestCPUSamplingAfterNullReference(t *testing.T) {
	r, p := profiled(t, modes.EngineCPUSampling, []string{modes.EnvVar("interval") + "=1ms"}, 0, "stress", "2", "10000")
	workers := 0
	for _, th := range p.Threads {
		if th.CPUNs < 100e6 || th.OSID == p.PID { // the main thread only waits for the workers
			continue
		}
		workers++
		if due := th.CPUNs / 1e6; th.Samples*2 < due {
			t.Errorf("thread %d: %d samples for %d ms of CPU at 1 ms: its ticks stopped\nstderr:\n%s", th.OSID, th.Samples, due, r.Stderr)
		}
	}
	if workers == 0 {
		t.Errorf("no worker thread with 100 ms of CPU or more: %+v", p.Threads)
	}
}

// TestSampleTotalsAgree: every sample of a real CoreCLR process is counted
// once everywhere: profile.json's samples, the sum of its threads', the
// text table's total (vbench profile's stderr) and pprof's total (go tool
// pprof -raw's sample values) are one number, and the samples no method
// takes (the runtime's start-up, the JIT, a thread pool thread in
// framework code) are in named frames. Before, profile.json said 161,
// the threads 117, the table 113: threads without a managed frame and
// framework code with no selected caller vanished.
func TestSampleTotalsAgree(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(testbin.Vbench(t), "profile", "--profiler", lib(t), "--mode", "sampling", "--interval", "1ms",
		"--top", "100000", "--out", dir, "--", testbin.Dotnet(t), testapp.DLL(t), "threads", "20000")
	cmd.Env = attach.ScrubEnv(os.Environ())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("vbench profile: %v\n%s", err, stderr.String())
	}
	pdir := testapp.ProcessDir(t, dir)
	p, err := profile.ReadFile(pdir)
	if err != nil {
		t.Fatal(err)
	}
	var threads, roots int64
	for _, th := range p.Threads {
		threads += th.Samples
		for _, r := range th.Roots {
			roots += r.InclusiveSamples
		}
	}
	m := regexp.MustCompile(`by exclusive samples \(total (\d+) on`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no table total in vbench profile's output:\n%s", stderr.String())
	}
	table, _ := strconv.ParseInt(m[1], 10, 64)
	pp := testbin.ReadPprof(t, filepath.Join(pdir, profile.PprofFile))
	var inPprof int64
	for _, s := range pp.Sample {
		inPprof += s.Value[0]
	}
	named := map[string]int64{}
	for _, fn := range p.Functions {
		if namedFrame(fn.Name) {
			named[fn.Name] = fn.InclusiveSamples
		}
	}
	t.Logf("profile.json %d, threads %d, their roots %d, table %d, pprof %d; named frames %v", p.Samples, threads, roots, table, inPprof, named)
	// Enough samples for the five views to be compared. A clean-clone CI
	// run beside other valgrind launches took 24, where quiet runs take
	// over 50, and was reported as totals that disagreed (each was 24).
	if p.Samples < 10 {
		t.Errorf("%d samples: too few to compare the totals by", p.Samples)
	}
	if p.Samples != threads || threads != roots || roots != table || table != inPprof {
		t.Errorf("totals disagree: profile.json %d, threads %d, their roots %d, table %d, pprof %d", p.Samples, threads, roots, table, inPprof)
	}
	if len(named) == 0 {
		t.Errorf("no samples in a named frame (%s, %s, %s, %s, %s): start-up alone runs without a managed frame",
			profile.NativeFrame, profile.JITFrame, profile.RuntimeFrame, profile.GCFrame, profile.UnselectedFrame)
	}
}

// A thread waiting for a CPU is not waiting: sixteen threads spinning on
// two cores are each preempted for tens of milliseconds at a time, and the
// engine's wait check (a thread that used no CPU for 10 ms) took each such
// stretch for a wait, weighing the preempted stack by the wall time: on a
// busy machine split's 4 threads had ~100 such stacks a run against ~290
// intervals of CPU, their shares 0.24 to 0.35 against 0.3. A spinning
// thread's samples are its CPU time, one per interval (within half, and a
// few intervals of rounding).
func TestCPUSamplingPreemptedIsNoWait(t *testing.T) {
	r, p := profiled(t, modes.EngineSampling, []string{modes.EnvVar("interval") + "=1ms", "VBENCH_DEBUG=1"}, 0, "leaf", "5", "16")
	spinners := 0
	for _, th := range p.Threads {
		if samplesOf(p, th.Roots, "VbTest.Leafy.Spin") == 0 {
			continue
		}
		spinners++
		cpu := float64(th.CPUNs) / float64(p.IntervalNs)
		if float64(th.Samples) > 1.5*cpu+10 {
			t.Errorf("thread %d: %d samples for %.0f intervals of CPU: its waits for a CPU were counted as waits", th.OSID, th.Samples, cpu)
		}
	}
	if spinners < 8 {
		t.Fatalf("%d threads sampled in Leafy.Spin, want 16\nstderr:\n%s", spinners, r.Stderr)
	}
}

// More runnable threads than cores (24 spinners on 2 or more): a directed
// spinner that used under an eighth of a CPU over a pass was preempted, not
// idle, and keeps its directed ticks, each weighing the CPU it used since
// the last: its samples are its CPU time. Moved back to its CPU-clock timer
// (ticks at the kernel's 250 Hz check, weighing 4 and more), split's 4
// threads on a busy machine had two thirds of their CPU in samples and
// their shares spread four times a binomial's.
func TestCPUSamplingStarvedThreadsStayDirected(t *testing.T) {
	r, p := profiled(t, modes.EngineSampling, []string{modes.EnvVar("interval") + "=1ms", "VBENCH_DEBUG=1"}, 0, "leaf", "10", "24")
	spinners := 0
	var samples, cpu float64
	for _, th := range p.Threads {
		if samplesOf(p, th.Roots, "VbTest.Leafy.Spin") == 0 {
			continue
		}
		spinners++
		samples += float64(th.Samples)
		cpu += float64(th.CPUNs) / float64(p.IntervalNs)
	}
	if spinners < 12 {
		t.Fatalf("%d threads sampled in Leafy.Spin, want 24\nstderr:\n%s", spinners, r.Stderr)
	}
	if samples < 0.9*cpu {
		t.Errorf("the spinners have %.0f samples for %.0f intervals of CPU: preempted threads were moved to the kernel's coarser timer\nstderr:\n%s", samples, cpu, r.Stderr)
	}
}
