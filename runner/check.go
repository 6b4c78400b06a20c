package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/suite"
)

// check is everything a finished run must show, in this order: a clean
// exit, in an engine-less mode whose env names a profiler (lib) that
// library mapped by the process (loaded.go), its VBENCH line (exactly one
// under metric elapsed, at most one otherwise), the workload's checksum, and in an engine mode a readable
// profile of the mode's engine. It sets r.Error to the first problem. A
// measured run's profile then feeds the cell (call counts checked, shares
// and coverage noted), and its directory is kept when profiles are.
func (l *launch) check(c *cellState, st step, r *results.Run, out Outcome, lib, runDir string) {
	if msg := out.Failure(c.Timeout); msg != "" {
		if d := profile.SIGPROFDeath(c.Spec.Engine, int(unix.SignalNum(out.Signal))); d != "" {
			msg += " (" + d + ")"
		}
		r.Error = msg
		l.keepCrashed(c, st, r, runDir)
		return
	}
	if lib != "" && !out.Loaded {
		r.Error = notLoaded(lib, out.Pid, c.Spec.Env)
		return
	}
	rep, ok, msg := vbenchLine(out, c.Metric)
	if msg != "" {
		r.Error = msg
		return
	}
	if ok {
		r.ElapsedNs, r.CPUNs, r.Checksum = max(rep.ElapsedNs, 0), max(rep.CPUNs, 0), rep.Checksum
		if msg := l.checkChecksum(c.Workload, rep.Checksum); msg != "" {
			r.Error = msg
			return
		}
	} else if c.Workload.Checksum != "" {
		r.Error = fmt.Sprintf("printed no VBENCH line, so its checksum (the suite expects %q) cannot be checked", c.Workload.Checksum)
		return
	}
	if ld := c.Workload.Load; ld != nil && ld.Handler != "" && r.Service != nil {
		// A service's exact count: one handler call per request completed.
		rep.Calls = map[string]int64{ld.Handler: r.WarmupRequests + r.Requests}
	}
	if c.Spec.Engine == "" {
		if c.Spec.Profile != nil && !st.warmup {
			r.Error = l.useForeign(c, r, runDir, rep) // another profiler's profile, scored as vbench's own
		}
		if runDir != "" && !st.warmup {
			l.keep(c, false, 0, runDir, nil)
		}
		return
	}
	tree, p, msg := readProfile(runDir, c.Spec.Engine, out.Profiler)
	if msg != "" {
		r.Error = msg
		return
	}
	for _, pp := range tree.Processes {
		if pp.SamplingStopped() { // a few samples of the run's start: no number to report
			r.Error = "the sampler was blinded: its profile is incomplete (" + pp.Cause + ")"
			l.keepCrashed(c, st, r, runDir)
			return
		}
	}
	if !st.warmup {
		if msg := l.useProfile(c, r, p, rep); msg != "" {
			r.Error = msg
			return
		}
		r.Calls, r.SamplesTaken = events(c.Spec.Engine, c.Metric, len(tree.Processes), p, r.ElapsedNs)
		r.ProfilerMem = profilerMem(tree)
		l.keep(c, true, r.Seq, runDir, tree)
	}
}

// keepCrashed keeps the profile a failed run of an engine mode still wrote
// (the profiler writes one, incomplete, when the runtime aborts or the
// program faults in native code; a program that exits non-zero writes a
// complete one), so the failure can be read; the run stays failed, its error
// the program's own, with where the profile went and, when it is
// incomplete, the cause the profiler recorded.
func (l *launch) keepCrashed(c *cellState, st step, r *results.Run, runDir string) {
	if c.Spec.Engine == "" || runDir == "" || st.warmup {
		return
	}
	t, err := profile.ReadTree(runDir)
	if err != nil || len(t.Processes) == 0 {
		return
	}
	prev := c.profile
	c.profile = ""
	l.keep(c, false, 0, runDir, t)
	if c.profile == "" {
		c.profile = prev
		return
	}
	r.Error += fmt.Sprintf(" [%s is in %s]", keptProfile(t), c.profile)
}

// keptProfile says what a failed run left: "its profile", or "its profile,
// incomplete (cause)" when a process's profile was written at a crash (the
// exception's class, or the fatal signal and its address, which a program
// dying in native code does not print).
func keptProfile(t *profile.Tree) string {
	for _, p := range t.Processes {
		if !p.Complete && !p.SamplingStopped() { // that cause is the run's error already
			if p.Cause == "" {
				return "its profile, incomplete,"
			}
			return "its profile, incomplete (" + p.Cause + "),"
		}
	}
	return "its profile"
}

// vbenchLine is the run's VBENCH line, read; ok is false when there is none,
// which only metrics elapsed (the line's elapsed_ns) and kernel-cpu (its
// cpu_ns) cannot do without.
func vbenchLine(out Outcome, metric results.Metric) (rep Report, ok bool, msg string) {
	elapsed := metric.OrDefault() == results.MetricElapsed
	kernelCPU := metric == results.MetricKernelCPU
	switch len(out.VBENCH) {
	case 0:
		if !elapsed && !kernelCPU {
			return Report{}, false, ""
		}
		msg := "printed no VBENCH line (want: VBENCH elapsed_ns=<int> checksum=<string>; a program that prints none is measured with metric: wall or metric: cpu)"
		if kernelCPU {
			msg = "printed no VBENCH line (want: VBENCH elapsed_ns=<int> cpu_ns=<int> checksum=<string>; metric kernel-cpu needs its cpu_ns)"
		}
		if out.Stdout != "" {
			msg += "; last output: " + oneLine(out.Stdout)
		}
		return Report{}, false, msg
	case 1:
	default:
		return Report{}, false, fmt.Sprintf("printed %d VBENCH lines; want at most one", len(out.VBENCH))
	}
	rep, err := parseLine(out.VBENCH[0])
	if err == nil && elapsed && rep.ElapsedNs < 0 {
		err = fmt.Errorf("VBENCH line has no elapsed_ns (metric elapsed needs it): %q", out.VBENCH[0])
	}
	if err == nil && kernelCPU && rep.CPUNs < 0 {
		err = fmt.Errorf("VBENCH line has no cpu_ns (metric kernel-cpu needs it; the benchmarks' Clock in common/Harness.cs measures it): %q", out.VBENCH[0])
	}
	if err != nil {
		return Report{}, false, err.Error()
	}
	return rep, true, ""
}

// checkChecksum compares a run's checksum with the suite's, or with the
// workload's first run when the suite gives none (which it then becomes).
func (l *launch) checkChecksum(w *suite.Workload, got string) string {
	want, ok := l.expected[w.Name]
	if !ok {
		l.expected[w.Name] = got
		return ""
	}
	if got == want {
		return ""
	}
	src := "the suite"
	if w.Checksum == "" {
		src = "earlier runs"
	}
	return fmt.Sprintf("checksum mismatch: got %q, expected %q (from %s)", got, want, src)
}

// readProfile reads the profiles a profiled run left in dir, one per .NET
// process of the workload's process tree (a `dotnet test` is several), all of
// engine's, and merges them (a tree of one process is its own profile): the
// checks and coverage are over the whole tree. A process that started
// profiling and wrote nothing fails the run: its calls would be missing.
func readProfile(dir string, engine modes.Engine, profilerSaid []string) (*profile.Tree, *profile.Profile, string) {
	t, err := profile.ReadTree(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, noProfile(profilerSaid)
		}
		return nil, nil, "profiler wrote an unreadable profile: " + err.Error()
	}
	if len(t.Missing) > 0 {
		var names []string
		for _, m := range t.Missing {
			names = append(names, m.Process.String())
		}
		return nil, nil, fmt.Sprintf("%d of the workload's processes started profiling and wrote no profile (%s): killed or crashed before they exited, or left running and killed with the process group",
			len(t.Missing), strings.Join(names, "; "))
	}
	if t.Mode() != engine {
		return nil, nil, fmt.Sprintf("profile says mode %q, the run asked for %q", t.Mode(), engine)
	}
	resolveLines(t)
	return t, t.Merge(), ""
}

// noProfile explains a profiled run that left no profile, quoting the
// profiler when it said why: never a silent unprofiled run.
func noProfile(said []string) string {
	quote := strings.Join(said, " / ")
	switch {
	case strings.Contains(quote, "running unprofiled"):
		return "profiler did not initialise, so the run was unprofiled: " + quote
	case quote != "":
		return "profiler wrote no profile: " + quote
	}
	return "profiler did not load or wrote no profile (no process wrote one into VBENCH_PROFILE_DIR)"
}

// checkCalls compares the profile's call counts (all rows named f, summed)
// with the workload's exact expectations.
func checkCalls(c *cellState, seq int, p *profile.Profile, want map[string]int64) {
	if c.accuracy == nil {
		c.accuracy = &results.Accuracy{}
	}
	got := map[string]int64{}
	for _, fn := range p.Functions {
		got[fn.Name] += fn.Calls
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c.accuracy.Checked++
		if got[n] == want[n] {
			c.accuracy.Exact++
		} else if len(c.accuracy.Mismatches) < 10 {
			c.accuracy.Mismatches = append(c.accuracy.Mismatches, results.CallMismatch{Seq: seq, Function: n, Expected: want[n], Actual: got[n]})
		}
	}
}

// events is what a cell's cost per event divides by (summary.Fill): the calls
// the profile counted in all, for an engine whose counts are exact, or the
// sampling ticks of CPU time taken while the metric was timing. The sampler ticks
// steadily through the process's life (profile duration_ns), so under a
// metric that times only the workload's kernel (elapsed, kernel-cpu) the
// kernel's ticks are the profile's times the kernel's share of that life;
// the profile of a process tree has no one life, and counts whole.
// The calls are counted whole: the few a workload makes around its kernel
// (its Main, argument parsing: ~150 in the benchmarks) are no time of a
// kernel metric, a bias below 0.01% in a workload of a million calls.
func events(e modes.Engine, metric results.Metric, processes int, p *profile.Profile, kernelNs int64) (calls, samples int64) {
	if e.CountsCalls() {
		for _, fn := range p.Functions {
			calls += fn.Calls
		}
	}
	if e.Samples() {
		// Samples of CPU time only: a waiting thread's samples (the
		// sampler's wait_samples, one an interval of the wait) cost a
		// count after the wait's first walk, and a sampler of CPU time
		// (perf) has none; counting them made a program with a waiting
		// thread look cheaper per sample (mandelbrot: about half its
		// samples).
		samples = p.Samples - p.WaitSamples
		m := metric.OrDefault()
		if (m == results.MetricElapsed || m == results.MetricKernelCPU) && processes == 1 && p.DurationNs > 0 && kernelNs > 0 {
			samples = int64(math.Round(float64(samples) * min(1, float64(kernelNs)/float64(p.DurationNs))))
		}
	}
	return calls, samples
}

// profilerMem is the profiler's own memory as the run's profiles report
// it, summed over the tree's processes (the allocation engines' tables,
// profile.Allocations.ProfilerBytes); nil where no profile reports any.
func profilerMem(tree *profile.Tree) *int64 {
	var n int64
	some := false
	for _, p := range tree.Processes {
		if a := p.Allocations; a != nil && a.ProfilerBytes > 0 {
			n += a.ProfilerBytes
			some = true
		}
	}
	if !some {
		return nil
	}
	return results.Int64(n)
}
