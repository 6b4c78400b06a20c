package main

// The instrumentation engine on the cases IL rewriting must get right, in a
// real CoreCLR process: every count exact, the program's output unchanged,
// the trees balanced after exceptions, and the framework's precompiled code
// left in use.

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
)

// exact runs scenario args plainly and under engine, and checks that the
// output is the same and every count the program expects is in the profile.
func exact(t *testing.T, engine modes.Engine, extra []string, args ...string) (testapp.Result, *profile.Profile) {
	t.Helper()
	plain := testapp.Run(t, nil, args...)
	r, p := profiled(t, engine, extra, 0, args...)
	if plain.Code != 0 || r.Stdout != plain.Stdout {
		t.Fatalf("%v under %s: output changed (plain exit %d)\n--- plain\n%s\n--- profiled\n%s\nstderr:\n%s", args, engine, plain.Code, plain.Stdout, r.Stdout, r.Stderr)
	}
	exp := testapp.Expectations(r.Stdout)
	if len(exp) == 0 {
		t.Fatalf("%v printed no expectations", args)
	}
	got := map[string]int64{}
	for _, f := range p.Functions {
		got[f.Name] += f.Calls
	}
	for name, want := range exp {
		if got[name] != want {
			t.Errorf("%s under %s: %d calls, want %d", name, engine, got[name], want)
		}
	}
	for _, th := range p.Threads {
		checkTimes(t, p, th.Roots)
	}
	return r, p
}

// The hard cases (testdata/app's Hard): several returns, constructors and
// static constructors, try/catch/finally, filters, using, rethrow, iterator
// and async state machines, shared and unshared generics with static
// constructors, generic virtual methods, long branches and switches, small
// max stacks, struct and byref returns, synchronized methods, stackalloc,
// an exception through eleven frames. Tracing runs them too: both engines
// must agree with the program.
func TestInstrumentationHardCases(t *testing.T) {
	for _, engine := range []modes.Engine{modes.EngineInstrumentation, modes.EngineTracing} {
		t.Run(string(engine), func(t *testing.T) {
			_, p := exact(t, engine, nil, "hard")
			if len(p.Skipped) != 0 {
				t.Errorf("methods left uninstrumented: %+v", p.Skipped)
			}
			// Balanced trees: after each exception the next call hangs under
			// the method that caught it, and a finally's call under its method.
			for name, want := range map[string]map[string]int64{
				"VbTest.Dive.Next":       {"VbTest.Dive.Catcher": 20},
				"VbTest.Clauses.After":   {"VbTest.Clauses.Run": 200},
				"VbTest.Clauses.Helper":  {"VbTest.Clauses.TryAll": 200},
				"VbTest.Clauses.Thrower": {"VbTest.Clauses.TryAll": 200, "VbTest.Clauses.Filtered": 200, "VbTest.Clauses.Rethrows": 200},
				"VbTest.Dive.Catcher":    {"VbTest.Dive.Run": 20},
			} {
				f := p.Function(name)
				if f == nil {
					t.Errorf("%s missing", name)
					continue
				}
				if got := callers(f); len(got) != len(want) || !sameCounts(got, want) {
					t.Errorf("%s: callers %v, want %v", name, got, want)
				}
			}
		})
	}
}

func sameCounts(a, b map[string]int64) bool {
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}

// Explicit tail calls (emitted with Reflection.Emit, in a dynamic module):
// mutual recursion, a generic method instantiation, a struct argument,
// callvirt, calli. The rewriter spills the arguments, closes the frame and
// then makes the tail call, so, as with tracing's Tailcall3, every function
// hangs directly under TailIL.Run.
func TestInstrumentationTailCalls(t *testing.T) {
	r, p := exact(t, modes.EngineInstrumentation, nil, "tailil", "100")
	if len(p.Skipped) != 0 {
		t.Errorf("methods left uninstrumented: %+v", p.Skipped)
	}
	for name, want := range testapp.Expectations(r.Stdout) {
		if c := callers(p.Function(name)); len(c) != 1 || c["VbTest.TailIL.Run"] != want {
			t.Errorf("%s: callers %v, want only VbTest.TailIL.Run", name, c)
		}
	}
}

// A method the rewriter cannot handle safely runs as it was, and the
// profile names it with the reason instead of counting it wrongly.
func TestInstrumentationSkipsWhatItCannotRewrite(t *testing.T) {
	plain := testapp.Run(t, nil, "tailskip", "10")
	r, p := profiled(t, modes.EngineInstrumentation, nil, 0, "tailskip", "10")
	if r.Stdout != plain.Stdout {
		t.Fatalf("output changed:\n%s\n---\n%s", plain.Stdout, r.Stdout)
	}
	want := profile.Skipped{Name: "VbSkipDyn.Skip.Text", Module: "RefEmit_InMemoryManifestModule",
		Reason: "a tail call to an instance method of a type from another module"}
	if len(p.Skipped) != 1 || p.Skipped[0] != want {
		t.Fatalf("skipped %+v, want [%+v]", p.Skipped, want)
	}
	if p.Function(want.Name) != nil {
		t.Errorf("a skipped method has counts: %+v", p.Function(want.Name))
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "1 selected method was left uninstrumented") {
		t.Errorf("warnings %q", p.Warnings)
	}
	// vbench profile says so too.
	cmd := exec.Command(testbin.Vbench(t), "profile", "--profiler", lib(t), "--mode", "instrumentation", "--out", t.TempDir(),
		"--", testbin.Dotnet(t), testapp.DLL(t), "tailskip", "3")
	cmd.Env = attach.ScrubEnv(os.Environ())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "vbench: warning: 1 selected method was left uninstrumented") {
		t.Errorf("vbench profile: %v\n%s", err, out)
	}
}

// The point of the engine: no enter/leave hooks, so the runtime keeps the
// framework's ReadyToRun code. With tiering off every method is compiled at
// most once, and the program reports how many the runtime JIT-compiled.
// Measured 2026-11-22: none 47, instrumentation 49, tracing ~730.
// A run the engine never profiled would JIT as few methods as an unprofiled
// one, so both profiled runs must also have counted JitCount.Triple exactly.
func TestInstrumentationKeepsReadyToRun(t *testing.T) {
	env := []string{"DOTNET_TieredCompilation=0"}
	jitted := func(r testapp.Result, engine modes.Engine) int {
		t.Helper()
		m := regexp.MustCompile(`(?m)^VBENCH jit (\d+)$`).FindStringSubmatch(r.Stdout)
		if r.Code != 0 || m == nil {
			t.Fatalf("jitcount under %q: exit %d\n%s\n%s", engine, r.Code, r.Stdout, r.Stderr)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	profiledJit := func(engine modes.Engine) int {
		t.Helper()
		r, p := profiled(t, engine, env, 0, "jitcount")
		const triple = "VbTest.JitCount.Triple"
		want, ok := testapp.Expectations(r.Stdout)[triple]
		if !ok {
			t.Fatalf("jitcount printed no expectation for %s:\n%s", triple, r.Stdout)
		}
		if f := p.Function(triple); p.Mode != engine || f == nil || f.Calls != want {
			t.Fatalf("under %s: profile mode %q, %s %+v, want %d calls: the engine did not count the run\nstderr:\n%s", engine, p.Mode, triple, f, want, r.Stderr)
		}
		if len(p.Skipped) != 0 {
			t.Errorf("under %s: methods left uninstrumented: %+v", engine, p.Skipped)
		}
		return jitted(r, engine)
	}
	none := jitted(testapp.Run(t, env, "jitcount"), "")
	instr, tracing := profiledJit(modes.EngineInstrumentation), profiledJit(modes.EngineTracing)
	t.Logf("methods JIT-compiled: none %d, instrumentation %d, tracing %d", none, instr, tracing)
	if instr > none+5 {
		t.Errorf("instrumentation JIT-compiled %d methods, unprofiled %d: precompiled framework code was refused", instr, none)
	}
	if tracing < 4*none {
		t.Errorf("tracing JIT-compiled only %d methods (unprofiled %d): the comparison no longer shows what the hooks cost", tracing, none)
	}
}

// Selecting framework code (an include pattern) refuses the precompiled
// bodies of exactly those methods, which are then rewritten and counted.
func TestInstrumentationIncludesFrameworkCode(t *testing.T) {
	_, p := profiled(t, modes.EngineInstrumentation, []string{modes.EnvVar("include") + "=System.Console"}, 0, "loop", "10")
	if f := p.Function("System.Console.WriteLine"); f == nil || f.Calls < 2 {
		t.Errorf("Console.WriteLine %+v, want >= 2 calls", f)
	} else if c := callers(f); c["VbTest.Loop.Run"] != 1 {
		t.Errorf("Console.WriteLine callers %v", c)
	}
	if f := p.Function("VbTest.Loop.Step"); f == nil || f.Calls != 10 {
		t.Errorf("Loop.Step %+v, want 10 calls", f)
	}
	// The pattern matches the assembly System.Console and types named System.Console*.
	for _, f := range p.Functions {
		if f.Assembly != "VbTestApp" && f.Assembly != "System.Console" && !strings.HasPrefix(f.Name, "System.Console") {
			t.Errorf("%s (%s) counted, but only System.Console was included", f.Name, f.Assembly)
		}
	}
}

// TestTooShortToTimeInCaller: a hot tiny getter called from a heavier
// method. Timed on 1 call in 256, a timed call of it measured mostly the
// clock and the slow path around it, and extrapolated over its 20 million
// calls it was 84 % of the profile and its caller's self time 0 (the
// sampler: 5-8 % and 65-88 %). Its shortest timed call is within twice an
// empty timed frame's, so it is too short to time: its calls stay exact,
// its time is left in its caller's, and a warning names it.
func TestTooShortToTimeInCaller(t *testing.T) {
	_, p := profiled(t, modes.EngineInstrumentation, nil, 0, "getter", "200")
	g, h := p.Function("VbTest.Getter.Box.get_Value"), p.Function("VbTest.Getter.Heavy")
	if g == nil || h == nil {
		t.Fatalf("getter %+v, Heavy %+v", g, h)
	}
	if g.Calls != 20_000_000 || h.Calls != 200 {
		t.Errorf("calls: getter %d, Heavy %d; want 20000000 and 200", g.Calls, h.Calls)
	}
	share := float64(h.ExclusiveNs) / float64(h.ExclusiveNs+g.ExclusiveNs)
	t.Logf("Heavy self %d ns, getter self %d ns (Heavy's share %.3f); warnings %q", h.ExclusiveNs, g.ExclusiveNs, share, p.Warnings)
	if g.ExclusiveNs != 0 || share < 0.5 {
		t.Errorf("getter self %d ns, Heavy self %d ns: want the getter's time in Heavy's", g.ExclusiveNs, h.ExclusiveNs)
	}
	if !slices.ContainsFunc(p.Warnings, func(w string) bool {
		return strings.Contains(w, "too short to time (VbTest.Getter.Box.get_Value)")
	}) {
		t.Errorf("no warning names the getter: %q", p.Warnings)
	}
}
