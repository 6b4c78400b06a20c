package main

// These tests load the real library into a real CoreCLR process running the
// C# program in testdata/app, and check what the profiler wrote.

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
)

// TestCLSIDMatchesAttach keeps clsid.h, whose VB_CLSID_INIT is what
// DllGetClassObject answers to, equal to the attach.CLSID the harness sets.
func TestCLSIDMatchesAttach(t *testing.T) {
	h, err := os.ReadFile("clsid.h")
	if err != nil {
		t.Fatal(err)
	}
	init := regexp.MustCompile(`VB_CLSID_INIT \{0x([0-9A-Fa-f]{8}), 0x([0-9A-Fa-f]{4}), 0x([0-9A-Fa-f]{4}), \{((?:0x[0-9A-Fa-f]{2}(?:, )?){8})\}\}`).FindSubmatch(h)
	if init == nil {
		t.Fatalf("clsid.h has no VB_CLSID_INIT of the expected shape")
	}
	tail := strings.ReplaceAll(strings.ReplaceAll(string(init[4]), "0x", ""), ", ", "")
	got := fmt.Sprintf("{%s-%s-%s-%s-%s}", init[1], init[2], init[3], tail[:4], tail[4:])
	if !strings.EqualFold(got, attach.CLSID) {
		t.Fatalf("clsid.h's VB_CLSID_INIT is %s, attach.CLSID is %s", got, attach.CLSID)
	}
}

func lib(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs dotnet and the built library")
	}
	return testbin.ProfilerLib(t)
}

func readProfile(t *testing.T, r testapp.Result) *profile.Profile {
	t.Helper()
	p, err := profile.ReadFile(r.Dir)
	if err != nil {
		t.Fatalf("reading the profile: %v\nstderr:\n%s", err, r.Stderr)
	}
	return p
}

// profiled runs the test program under the profiler, expects exit code want
// and returns the run and its profile.
func profiled(t *testing.T, mode modes.Engine, extra []string, want int, args ...string) (testapp.Result, *profile.Profile) {
	t.Helper()
	r := testapp.Profiled(t, lib(t), mode, extra, args...)
	if r.Code != want {
		t.Fatalf("%v under %s: exit %d, want %d\nstderr:\n%s", args, mode, r.Code, want, r.Stderr)
	}
	return r, readProfile(t, r)
}

func callers(f *profile.Function) map[string]int64 {
	m := map[string]int64{}
	for _, c := range f.Callers {
		m[c.Name] = c.Calls
	}
	return m
}

func TestTracingExactCallCounts(t *testing.T) { exactCallCounts(t, modes.EngineTracing) }

// The instrumentation engine counts through rewritten IL instead of hooks:
// the same program, the same exact counts, callers and tree shape.
func TestInstrumentationExactCallCounts(t *testing.T) {
	p := exactCallCounts(t, modes.EngineInstrumentation)
	if len(p.Skipped) != 0 {
		t.Errorf("methods left uninstrumented: %+v", p.Skipped)
	}
}

func exactCallCounts(t *testing.T, engine modes.Engine) *profile.Profile {
	l := lib(t)
	plain := testapp.Run(t, nil, "all")
	r := testapp.Profiled(t, l, engine, nil, "all")
	if r.Code != 0 || plain.Code != 0 {
		t.Fatalf("exit codes: profiled %d, plain %d\nstderr:\n%s", r.Code, plain.Code, r.Stderr)
	}
	if r.Stdout != plain.Stdout {
		t.Fatalf("stdout changed under the profiler:\n--- plain\n%s\n--- profiled\n%s", plain.Stdout, r.Stdout)
	}
	p := readProfile(t, r)
	if p.Mode != engine || !p.Complete || p.RuntimeVersion == "" || p.PID == 0 {
		t.Errorf("header: mode %q complete %v runtime %q pid %d", p.Mode, p.Complete, p.RuntimeVersion, p.PID)
	}
	exp := testapp.Expectations(r.Stdout)
	if len(exp) < 10 {
		t.Fatalf("the program printed only %d expectations", len(exp))
	}
	for name, want := range exp {
		f := p.Function(name)
		if f == nil {
			t.Errorf("%s: not in the profile", name)
			continue
		}
		if f.Calls != want {
			t.Errorf("%s: %d calls, want %d", name, f.Calls, want)
		}
	}

	// Exact callers: recursion, and the frames an exception went through.
	wantCallers := map[string]map[string]int64{
		"VbTest.Recursion.Fib":  {"VbTest.Recursion.Fib": exp["VbTest.Recursion.Fib"] - 1, "VbTest.Recursion.Run": 1},
		"VbTest.Throws.Thrower": {"VbTest.Throws.Middle": 10},
		"VbTest.Throws.Middle":  {"VbTest.Throws.Catcher": 10},
		"VbTest.Throws.After":   {"VbTest.Throws.Catcher": 10}, // the tree is balanced after the catch
		"VbTest.Throws.Catcher": {"VbTest.Throws.Run": 10},
		"VbTest.Square.Area":    {"VbTest.Shapes.Total": exp["VbTest.Square.Area"]},
		"VbTest.Program.Main":   {profile.RootCaller: 1},
		// Exceptions raised by hardware faults (SIGSEGV, SIGFPE) unwind too.
		"VbTest.Faults.Deref":  {"VbTest.Faults.Run": 20},
		"VbTest.Faults.Divide": {"VbTest.Faults.Run": 20},
	}
	for name, want := range wantCallers {
		f := p.Function(name)
		if f == nil {
			t.Errorf("%s missing", name)
			continue
		}
		got := callers(f)
		if len(got) != len(want) {
			t.Errorf("%s: callers %v, want %v", name, got, want)
			continue
		}
		for c, n := range want {
			if got[c] != n {
				t.Errorf("%s: callers %v, want %v", name, got, want)
			}
		}
	}

	// Names: nested and generic types readable.
	for _, n := range []string{"VbTest.Outer.Inner.M", "VbTest.Box<T>.Get", "VbTest.Util.Identity<T>", "VbTest.Box<T>..ctor"} {
		if p.Function(n) == nil {
			t.Errorf("no function named %s", n)
		}
	}
	// Only user code by default.
	for _, f := range p.Functions {
		if strings.HasPrefix(f.Name, "System.") || f.Assembly != "VbTestApp" || f.Module != "VbTestApp.dll" {
			t.Errorf("unexpected function %s (module %s, assembly %s)", f.Name, f.Module, f.Assembly)
		}
	}

	// Four worker threads, each with its own tree and its own 10000 calls.
	workers := 0
	for _, th := range p.Threads {
		if n := callsIn(p, th.Roots, "VbTest.Workers.Unit"); n > 0 {
			workers++
			if n != exp["VbTest.Workers.Unit"]/4 {
				t.Errorf("thread %d: %d Unit calls, want %d", th.OSID, n, exp["VbTest.Workers.Unit"]/4)
			}
			if th.CPUNs <= 0 || th.OSID <= 0 {
				t.Errorf("thread %d: cpu %d ns", th.OSID, th.CPUNs)
			}
		}
	}
	if workers != 4 {
		t.Errorf("%d threads called Workers.Unit, want 4", workers)
	}

	// Times: inclusive >= exclusive, and a parent includes its children.
	fib := p.Function("VbTest.Recursion.Fib")
	if fib.InclusiveNs <= 0 || fib.ExclusiveNs <= 0 || fib.ExclusiveNs > fib.InclusiveNs {
		t.Errorf("Fib times: inclusive %d exclusive %d", fib.InclusiveNs, fib.ExclusiveNs)
	}
	if run := p.Function("VbTest.Recursion.Run"); run.InclusiveNs < fib.InclusiveNs {
		t.Errorf("Recursion.Run inclusive %d < Fib inclusive %d", run.InclusiveNs, fib.InclusiveNs)
	}
	for _, th := range p.Threads {
		checkTimes(t, p, th.Roots)
	}
	return p
}

// checkTimes verifies every node: 0 <= exclusive <= inclusive, and the
// children's inclusive times fit inside their parent's (a rounding ns apart).
func checkTimes(t *testing.T, p *profile.Profile, ns []profile.Node) {
	t.Helper()
	for _, n := range ns {
		var kids int64
		for _, c := range n.Children {
			kids += c.InclusiveNs
		}
		if n.ExclusiveNs < 0 || n.ExclusiveNs > n.InclusiveNs || kids > n.InclusiveNs+int64(len(n.Children)) {
			t.Errorf("%s: inclusive %d exclusive %d children %d", p.Functions[n.Fn].Name, n.InclusiveNs, n.ExclusiveNs, kids)
		}
		checkTimes(t, p, n.Children)
	}
}

func TestExactTimingKnob(t *testing.T) {
	l := lib(t)
	for _, n := range []string{"1", "64"} {
		r := testapp.Profiled(t, l, modes.EngineTracing, []string{modes.EnvVar("time_sample") + "=" + n}, "recursion", "24")
		p := readProfile(t, r)
		want := testapp.Expectations(r.Stdout)["VbTest.Recursion.Fib"]
		fib := p.Function("VbTest.Recursion.Fib")
		if fib == nil || fib.Calls != want || p.TimeSample != int64(mustAtoi(n)) {
			t.Fatalf("VBENCH_TIME_SAMPLE=%s: Fib %+v (want %d calls), time_sample %d", n, fib, want, p.TimeSample)
		}
		// Fib's exclusive times over all its recursion levels add up to its
		// outermost frame's inclusive time.
		if d := fib.InclusiveNs - fib.ExclusiveNs; d < 0 || d > fib.InclusiveNs/100+100 {
			t.Errorf("VBENCH_TIME_SAMPLE=%s: Fib inclusive %d, exclusive %d", n, fib.InclusiveNs, fib.ExclusiveNs)
		}
		for _, th := range p.Threads {
			checkTimes(t, p, th.Roots)
		}
	}
}

func mustAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// sumNamed sums field over the nodes named name in a thread's tree.
func sumNamed(p *profile.Profile, ns []profile.Node, name string, field func(profile.Node) int64) int64 {
	var n int64
	for _, x := range ns {
		if p.Functions[x.Fn].Name == name {
			n += field(x)
		}
		n += sumNamed(p, x.Children, name, field)
	}
	return n
}

func callsIn(p *profile.Profile, ns []profile.Node, name string) int64 {
	return sumNamed(p, ns, name, func(x profile.Node) int64 { return x.Calls })
}

func TestSamplingFindsHotFunction(t *testing.T) {
	r, p := profiled(t, modes.EngineSampling, []string{modes.EnvVar("interval") + "=5ms"}, 0, "cpu", "1500")
	if p.Mode != "sampling" || p.IntervalNs != 5e6 || p.Samples < 20 {
		t.Fatalf("mode %s interval %d samples %d", p.Mode, p.IntervalNs, p.Samples)
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
	// The filter is applied at write time: no framework frames in the output.
	for _, f := range p.Functions {
		if !strings.HasPrefix(f.Name, "VbTest.") && !namedFrame(f.Name) {
			t.Errorf("non-user function %s in a default-filtered profile", f.Name)
		}
	}
	pprofTop(t, testapp.ProcessDir(t, r.Dir), "VbTest.Hot.Spin")
}

// pprofTop runs `go tool pprof -top [flags]` on the profile and expects name in it.
func pprofTop(t *testing.T, dir, name string, flags ...string) {
	t.Helper()
	args := append(append([]string{"tool", "pprof", "-top"}, flags...), filepath.Join(dir, profile.PprofFile))
	cmd := exec.Command("go", args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -top: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), name) {
		t.Fatalf("go tool pprof -top does not name %s:\n%s", name, out)
	}
}

func TestTracingPprof(t *testing.T) {
	r, _ := profiled(t, modes.EngineTracing, nil, 0, "recursion", "22")
	// By calls, Fib is the top function; by wall time it is listed too.
	dir := testapp.ProcessDir(t, r.Dir)
	pprofTop(t, dir, "VbTest.Recursion.Fib", "-sample_index=calls", "-nodecount=1")
	pprofTop(t, dir, "VbTest.Recursion.Fib", "-nodefraction=0")
}

func TestExitPaths(t *testing.T) {
	for _, engine := range []modes.Engine{modes.EngineTracing, modes.EngineInstrumentation} {
		// Environment.Exit: the runtime still shuts down and calls Shutdown.
		_, p := profiled(t, engine, nil, 3, "exit", "50")
		if f := p.Function("VbTest.Loop.Step"); f == nil || f.Calls != 50 {
			t.Errorf("%s, Environment.Exit path: Loop.Step %+v, want 50 calls", engine, f)
		}
		// libc exit() from managed code: no Shutdown; the atexit fallback writes.
		_, p = profiled(t, engine, nil, 4, "nativeexit", "60")
		if p.Complete {
			t.Errorf("%s: profile from the exit fallback says complete=true", engine)
		}
		if f := p.Function("VbTest.Loop.Step"); f == nil || f.Calls != 60 {
			t.Errorf("%s, exit() path: Loop.Step %+v, want 60 calls", engine, f)
		}
		if f := p.Function("VbTest.Exiter.RunNative"); f == nil || f.Calls != 1 || f.InclusiveNs <= 0 {
			t.Errorf("%s, exit() path: the open frame RunNative %+v should be closed at write time", engine, f)
		}
	}
}

func TestBadConfigRunsUnprofiled(t *testing.T) {
	l := lib(t)
	plain := testapp.Run(t, nil, "exitcode", "7")
	for _, tc := range []struct{ env, stderr string }{
		{attach.EnvMode + "=bogus", `VBENCH_MODE="bogus" is not tracing, instrumentation, sampling, suspend-sampling, cpu-sampling, allocations, allocation-sampling or null`},
		{modes.EnvVar("interval") + "=soon", `VBENCH_INTERVAL="soon" is not a duration`},
		{modes.EnvVar("interval") + "=100us", `VBENCH_INTERVAL=100µs is outside`},
		{modes.EnvVar("time_sample") + "=3", `VBENCH_TIME_SAMPLE="3" is not 1 or a power of two`},
		{modes.EnvVar("max_stack") + "=8", `VBENCH_MAX_STACK="8" is not a number of frames in 16..4194304`},
		{attach.EnvProcesses + "=a(b", `VBENCH_PROCESSES="a(b" is not a regular expression: missing closing )`},
	} {
		dir := t.TempDir()
		env := attach.Env(l, attach.Options{Engine: modes.EngineSampling, ProfileDir: dir})
		r := testapp.Run(t, append(env, tc.env), "exitcode", "7")
		if r.Code != 7 || r.Stdout != plain.Stdout {
			t.Errorf("%s: exit %d stdout %q, want 7 and %q", tc.env, r.Code, r.Stdout, plain.Stdout)
		}
		if !strings.Contains(r.Stderr, "vbench-profiler: "+tc.stderr) {
			t.Errorf("%s: stderr %q lacks the reason %q", tc.env, r.Stderr, tc.stderr)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s: the profiler declined to load, yet wrote %v", tc.env, entries)
		}
	}
}

func TestUnwritableProfileDir(t *testing.T) {
	l := lib(t)
	for _, dir := range []string{"", filepath.Join(t.TempDir(), "missing")} {
		env := attach.Env(l, attach.Options{Engine: modes.EngineTracing, ProfileDir: dir})
		r := testapp.Run(t, env, "exitcode", "5")
		if r.Code != 5 || r.Stdout != "exiting with 5\n" {
			t.Errorf("dir %q: exit %d stdout %q", dir, r.Code, r.Stdout)
		}
		if strings.Count(r.Stderr, "vbench-profiler:") != 1 || !strings.Contains(r.Stderr, "no profile will be written") {
			t.Errorf("dir %q: want one clear stderr line, got %q", dir, r.Stderr)
		}
	}
}

func TestNullModeWritesEmptyProfile(t *testing.T) {
	_, p := profiled(t, modes.EngineNull, nil, 0, "loop", "1000")
	if p.Mode != "null" || len(p.Functions) != 0 || len(p.Threads) != 0 {
		t.Errorf("null profile: mode %s, %d functions, %d threads", p.Mode, len(p.Functions), len(p.Threads))
	}
}

func TestFilterIncludeExclude(t *testing.T) {
	l := lib(t)
	r := testapp.Profiled(t, l, modes.EngineTracing, []string{modes.EnvVar("exclude") + "=VbTest.Loop"}, "all")
	p := readProfile(t, r)
	if p.Function("VbTest.Loop.Step") != nil || p.Function("VbTest.Loop.Run") != nil {
		t.Errorf("VBENCH_EXCLUDE=VbTest.Loop: Loop functions still profiled")
	}
	if f := p.Function("VbTest.Recursion.Fib"); f == nil {
		t.Errorf("VBENCH_EXCLUDE=VbTest.Loop removed other functions too")
	}
	// Only the excluded callee is gone: Run now calls nothing profiled.
	r = testapp.Profiled(t, l, modes.EngineTracing, []string{modes.EnvVar("include") + "=System.Console"}, "loop", "10")
	p = readProfile(t, r)
	if f := p.Function("System.Console.WriteLine"); f == nil || f.Calls < 2 {
		t.Errorf("VBENCH_INCLUDE=System.Console: Console.WriteLine %+v, want >= 2 calls", f)
	} else if c := callers(f); c["VbTest.Loop.Run"] != 1 {
		t.Errorf("Console.WriteLine callers %v", c)
	}
	if f := p.Function("VbTest.Loop.Step"); f == nil || f.Calls != 10 {
		t.Errorf("user code still profiled with an include: Loop.Step %+v", f)
	}
}

func TestSigrtminOnstackCleared(t *testing.T) {
	l := lib(t)
	if r := testapp.Run(t, nil, "sigflags"); !strings.Contains(r.Stdout, "onstack=False") {
		t.Fatalf("without the profiler CoreCLR's SIGRTMIN handler already has SA_ONSTACK: %s", r.Stdout)
	}
	for _, mode := range []modes.Engine{modes.EngineNull, modes.EngineTracing, modes.EngineInstrumentation, modes.EngineSampling} {
		r := testapp.Profiled(t, l, mode, []string{"VBENCH_DEBUG=1"}, "sigflags")
		if !strings.Contains(r.Stdout, "onstack=False") {
			t.Errorf("%s: SIGRTMIN handler as the profilee sees it: %s", mode, r.Stdout)
		}
		if !strings.Contains(r.Stderr, "restored the owner's SA_ONSTACK setting") {
			t.Errorf("%s: VBENCH_DEBUG=1 did not log the fix:\n%s", mode, r.Stderr)
		}
	}
	// Without the fix, Go's runtime leaves SA_ONSTACK set: the fix is what
	// clears it. Only a test-hooks build has the switch that skips the fix.
	r := testapp.Profiled(t, testbin.TestHooksLib(t), modes.EngineNull, []string{"VBENCH_DEBUG_KEEP_ONSTACK=1"}, "sigflags")
	if !strings.Contains(r.Stdout, "onstack=True") {
		t.Errorf("VBENCH_DEBUG_KEEP_ONSTACK=1: %s", r.Stdout)
	}
}

// With VBENCH_SAMPLING_NOINLINE=1 the sampler keeps user methods from being
// inlined, so Mandelbrot's samples land on Escape (the loop), which an
// inlining JIT folds into its caller Run: Escape is sampled at all only
// when it is not inlined. It must hold a good share of the samples (at
// least a quarter; about 1 run in 8 on a loaded 2-core machine splits them
// evenly between Escape and Run, so "Escape first" was not a fair test of
// inlining).
func TestSamplingNoInline(t *testing.T) {
	_, p := profiled(t, modes.EngineSampling, []string{modes.EnvVar("no_inline") + "=1", modes.EnvVar("interval") + "=5ms"}, 0, "mandel", "2000")
	var total int64
	for _, f := range p.Functions {
		total += f.ExclusiveSamples
	}
	if f := p.Function("VbTest.Mandel.Escape"); f == nil || 4*f.ExclusiveSamples < total {
		t.Fatalf("VbTest.Mandel.Escape %+v of %d samples, want it sampled, with at least a quarter; top: %+v", f, total, p.Top(3))
	}
}

// CoreCLR turns SIGSEGV/SIGFPE in managed code into NullReference and
// DivideByZero exceptions. Behind the Go runtime's forwarding handlers the
// first DivideByZeroException killed the process; the profiler gives the
// synchronous signals back to CoreCLR. Every mode must run this unchanged.
func TestHardwareFaultsBecomeExceptions(t *testing.T) {
	l := lib(t)
	plain := testapp.Run(t, nil, "faults", "50")
	if plain.Code != 0 || !strings.Contains(plain.Stdout, "nulls=50 divs=50") {
		t.Fatalf("unprofiled: exit %d, %q", plain.Code, plain.Stdout)
	}
	for _, mode := range []modes.Engine{modes.EngineNull, modes.EngineTracing, modes.EngineInstrumentation, modes.EngineSampling} {
		r := testapp.Profiled(t, l, mode, nil, "faults", "50")
		if r.Code != 0 || r.Stdout != plain.Stdout {
			t.Errorf("%s: exit %d, stdout %q; want 0 and %q\n%s", mode, r.Code, r.Stdout, plain.Stdout, r.Stderr)
		}
	}
}

// Explicit tail calls (IL "tail." prefix, emitted with Reflection.Emit):
// Even and Odd tail-call each other. Tailcall3 closes the caller's frame
// before the callee enters, so both hang directly under TailIL.Run.
func TestTailCalls(t *testing.T) {
	r, p := profiled(t, modes.EngineTracing, nil, 0, "tailil", "100")
	for name, want := range testapp.Expectations(r.Stdout) {
		f := p.Function(name)
		if f == nil || f.Calls != want {
			t.Fatalf("%s: %+v, want %d calls", name, f, want)
		}
		if c := callers(f); len(c) != 1 || c["VbTest.TailIL.Run"] != want {
			t.Errorf("%s: callers %v, want only VbTest.TailIL.Run (the tail-calling frame must be gone)", name, c)
		}
	}
}

// On .NET 10's managed exception handling the ExceptionUnwindFunction*
// callbacks come for every unwound frame: they, not the mismatched-leave
// fallback, keep the tree balanced (10 throws through Thrower and Middle).
func TestUnwindCallbacksBalanceExceptions(t *testing.T) {
	r, _ := profiled(t, modes.EngineTracing, []string{"VBENCH_DEBUG=1"}, 0, "throw", "10")
	if !strings.Contains(r.Stderr, "frames popped by unwind callbacks 20, by a mismatched leave 0") {
		t.Fatalf("unwind statistics:\n%s", r.Stderr)
	}
}

// CoreCLR suspends a thread only at a GC safe point. Leafy.Spin runs two
// equal halves of work per iteration: its own, and a call to Leafy.Mix,
// which has no safe point (no loop, no call). Interrupted in Mix, a thread is
// stopped on Mix's return, so the stack walks never start in Mix; interrupted
// in Spin's half, it is stopped later, wherever a second interruption lands
// (mostly in Mix). The sampler takes each stack as of the first interruption
// (interrupted.c): Mix gets about half of Spin's samples, as perf measures
// (docs/notebook/profiler.md, "Sampling accuracy"). With VBENCH_SAMPLING_SAFEPOINT_LEAVES=1 it takes the
// walks as CoreCLR gives them, and Mix gets none. Two threads: each thread's
// interruptions are matched to its own stack.
//
// How many samples to expect comes from the threads' own CPU time
// (spinSamplesFloor), not from a fixed floor: a fixed 100 assumed the two
// threads ran at once, and pinned to one CPU they got 92.
func TestSamplingSeesLeavesWithoutSafePoints(t *testing.T) {
	const spin, mix = "VbTest.Leafy.Spin", "VbTest.Leafy.Mix"
	env := []string{modes.EnvVar("interval") + "=1ms", "VBENCH_DEBUG=1"}
	// About 400ms of CPU per thread: enough samples for the share below
	// even when the two threads share one core.
	r, p := profiled(t, modes.EngineSuspendSampling, env, 0, "leaf", "20", "2")
	s, m := p.Function(spin), p.Function(mix)
	floor, why := spinSamplesFloor(p, spin)
	if s == nil || s.InclusiveSamples < floor {
		t.Fatalf("%s: %+v, want >= %d inclusive samples (%s)\nstderr:\n%s", spin, s, floor, why, r.Stderr)
	}
	// Binomial: n samples at one half each lie within 0.5 ± 2/sqrt(n) (four
	// standard deviations) but for odds of about one in 10^4. Never narrower
	// than 0.30..0.70, the band at n = 100: half the work is not exactly
	// half the samples.
	n := float64(s.InclusiveSamples)
	half := math.Max(0.2, 2/math.Sqrt(n))
	if m == nil || float64(m.ExclusiveSamples) < (0.5-half)*n || float64(m.ExclusiveSamples) > (0.5+half)*n {
		t.Fatalf("%s: %+v; want %.0f%%..%.0f%% of %s's %d samples (half the work) as its own\nstderr:\n%s", mix, m, 100*(0.5-half), 100*(0.5+half), spin, s.InclusiveSamples, r.Stderr)
	}
	t.Logf("%s: %d inclusive samples, %d exclusive in %s; floor %d (%s)", spin, s.InclusiveSamples, m.ExclusiveSamples, mix, floor, why)
	if c := m.Callers; len(c) != 1 || c[0].Name != spin || c[0].Samples != m.InclusiveSamples {
		t.Errorf("%s callers %+v, want only %s", mix, c, spin)
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
	if !regexp.MustCompile(`leaves by the first interruption: [1-9]\d* cut back to it \(or its caller\), [1-9]\d* put back`).MatchString(r.Stderr) {
		t.Errorf("VBENCH_DEBUG=1 did not count leaves cut back and put back:\n%s", r.Stderr)
	}

	_, p = profiled(t, modes.EngineSuspendSampling, append(env, attach.EnvSafepointLeaves+"=1"), 0, "leaf", "20", "2")
	s, m = p.Function(spin), p.Function(mix)
	if floor, why := spinSamplesFloor(p, spin); s == nil || s.InclusiveSamples < floor {
		t.Fatalf("%s with safe-point leaves: %+v, want >= %d inclusive samples (%s)", spin, s, floor, why)
	}
	if m != nil && m.ExclusiveSamples != 0 {
		t.Errorf("with safe-point leaves %s has %d exclusive samples: CoreCLR stopped a thread inside it", mix, m.ExclusiveSamples)
	}
	if s.ExclusiveSamples != s.InclusiveSamples {
		t.Errorf("with safe-point leaves %s keeps %d of its %d samples, want all", spin, s.ExclusiveSamples, s.InclusiveSamples)
	}
}

// spinSamplesFloor is the fewest samples of name the run may have: every
// tick samples every thread, so a thread running name is sampled about once
// per interval of its CPU time, or once per scheduler slice when its core is
// shared (one CPU, a busy machine): a woken sampler may wait for the running
// thread's slice to end, at most one scheduler tick (10ms at HZ=100, the
// coarsest kernel setting). So E = sum over the threads running name of
// CPU / max(interval, 10ms), less four binomial standard deviations.
// Measured 2026-12 on 2 cores: 2×400ms CPU at 1ms gave ~560 samples free,
// ~205 pinned to one CPU; E is 81 and the floor 45.
func spinSamplesFloor(p *profile.Profile, name string) (int64, string) {
	const slice = 10 * time.Millisecond
	per := max(time.Duration(p.IntervalNs), slice)
	var cpu time.Duration
	for _, th := range p.Threads {
		if sumNamed(p, th.Roots, name, func(x profile.Node) int64 { return x.InclusiveSamples }) > 0 {
			cpu += time.Duration(th.CPUNs)
		}
	}
	e := float64(cpu) / float64(per)
	floor := int64(e - 4*math.Sqrt(e))
	return max(floor, 1), fmt.Sprintf("its threads ran %v of CPU; one sample per %v of it is %.0f, less 4 sigma", cpu.Round(time.Millisecond), per, e)
}

// samplesOf sums the exclusive samples of nodes named name in a thread's tree.
func samplesOf(p *profile.Profile, nodes []profile.Node, name string) int64 {
	return sumNamed(p, nodes, name, func(x profile.Node) int64 { return x.ExclusiveSamples })
}

// A program the runtime ends with abort() (an unhandled exception,
// Environment.FailFast) still leaves its profile: written by crash.c's
// writer before the process dies of SIGABRT, marked incomplete with the
// cause, holding every call made before the crash (tracing: exactly). So
// does one that faults in native code (a P/Invoke into libc reading address
// 8), which CoreCLR hands back to the kernel: it dies of SIGSEGV as it would
// unprofiled, after the writer.
func TestCrashKeepsProfile(t *testing.T) {
	l := lib(t)
	const depth = 5
	const segv = "fatal signal SIGSEGV (segmentation fault) at address 0x8 outside managed code"
	for _, c := range []struct {
		engine   modes.Engine
		scenario string
		cause    string
	}{
		{modes.EngineTracing, "throw-deep", "unhandled exception System.InvalidOperationException"},
		{modes.EngineTracing, "failfast-deep", "runtime abort (SIGABRT): Environment.FailFast or a fatal runtime error"},
		{modes.EngineInstrumentation, "throw-deep", "runtime abort (SIGABRT): an unhandled exception, Environment.FailFast or a fatal runtime error"},
		{modes.EngineSampling, "failfast-deep", "runtime abort (SIGABRT): an unhandled exception, Environment.FailFast or a fatal runtime error"},
		{modes.EngineTracing, "segv-deep", segv},
		{modes.EngineInstrumentation, "segv-deep", segv},
		{modes.EngineSampling, "segv-deep", segv},
		{modes.EngineNull, "segv-deep", segv},
	} {
		sig := syscall.SIGABRT
		if c.scenario == "segv-deep" {
			sig = syscall.SIGSEGV
		}
		unprofiled := testapp.Run(t, nil, c.scenario, strconv.Itoa(depth))
		r := testapp.Profiled(t, l, c.engine, nil, c.scenario, strconv.Itoa(depth))
		if r.Code != 128+int(sig) || unprofiled.Code != r.Code {
			t.Fatalf("%s under %s: exit %d (unprofiled %d), want death by %v\nstderr:\n%s", c.scenario, c.engine, r.Code, unprofiled.Code, sig, r.Stderr)
		}
		p := readProfile(t, r)
		if p.Complete || p.Cause != c.cause || p.Mode != c.engine {
			t.Errorf("%s under %s: complete %v cause %q mode %s, want complete false cause %q", c.scenario, c.engine, p.Complete, p.Cause, p.Mode, c.cause)
		}
		if !c.engine.CountsCalls() {
			continue
		}
		down, bottom := "VbTest.Crasher.Down", "VbTest.Crasher.Bottom"
		if sig == syscall.SIGSEGV {
			down, bottom = "VbTest.Crasher.DownNative", "VbTest.Crasher.BottomNative"
		}
		for name, want := range map[string]int64{down: depth + 1, bottom: 1, "VbTest.Program.Main": 1} {
			if f := p.Function(name); f == nil || f.Calls != want {
				t.Errorf("%s under %s: %s %+v, want %d calls", c.scenario, c.engine, name, f, want)
			}
		}
	}
}

// A run timing every call has nothing to extrapolate: its times are never
// scaled to fit their caller, and no warning says they were. (The other
// half, a hot tiny method timed on 1 in 16 calls scaled down with a
// warning, depends on how the machine times a hooked call: it is measured
// by make study, TestTimeSamplingFitWarns.)
func TestTimeSamplingFitIsWarned(t *testing.T) {
	if _, p := profiled(t, modes.EngineTracing, []string{modes.EnvVar("time_sample") + "=1"}, 0, "loop", "2000000"); hasFitWarning(p) {
		t.Errorf("every call timed, yet the times were scaled: %q", p.Warnings)
	}
}

// hasFitWarning reports whether p says estimated times were scaled to fit.
func hasFitWarning(p *profile.Profile) bool {
	return slices.ContainsFunc(p.Warnings, func(w string) bool {
		return strings.Contains(w, "estimated times exceeded their caller's")
	})
}
