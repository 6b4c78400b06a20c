package cli

import (
	"strings"
	"testing"

	"vbench/internal/results"
	"vbench/internal/testbin"
	"vbench/runner"
)

// A why explains the measured part: two builds of a program (Phases, on
// the benchmarks' harness, whose clock marks its kernel) in which the head
// does 0.6 s more at start-up, before its kernel, and twice the kernel's
// work. Whole-process profiles led with the start-up's Setup.Build (a Jint
// A/B's why led with a table built before the kernel); the kernel's alone
// lead with Kernel.Run, and say so.
func TestWhyExplainsTheKernel(t *testing.T) {
	t.Parallel() // exact call counts
	ch := phasesPair(t, []string{"600", "300", "0"}, []string{"0", "150", "0"})
	if ch.ExplainScope != results.ExplainKernel {
		t.Errorf("explain scope %q, want %q", ch.ExplainScope, results.ExplainKernel)
	}
	if first := ch.Explain[0]; first.Function != "Kernel.Run" || !(first.Change > 0) {
		t.Errorf("the why leads with %+v, want Kernel.Run grown", first)
	}
	for _, e := range ch.Explain {
		if e.Function == "Setup.Build" && e.New > 0 {
			t.Errorf("the start-up's Setup.Build is in the kernel's why: %+v", e)
		}
	}
}

// A head that allocates more (2 GiB more a run: hundreds of collections)
// is explained by its collections too: the runtime's GC pauses, with the
// count, which no function of a profile shows.
func TestWhyNamesTheGC(t *testing.T) {
	t.Parallel() // asserts names, not times
	ch := phasesPair(t, []string{"0", "200", "500"}, []string{"0", "200", "0"})
	found := false
	for _, e := range ch.Explain {
		if strings.HasPrefix(e.Function, runner.ExplainGC) {
			found = true
			if !(e.New > e.Old) || !strings.Contains(e.Function, "collections") {
				t.Errorf("GC entry %+v: want more pause time, with the collections' count", e)
			}
		}
	}
	if !found {
		t.Errorf("the why does not name the GC: %+v", ch.Explain)
	}
}

// phasesPair runs Phases with newArgs against oldArgs (setup, kernel,
// allocs), 3 runs a side under the sampler at 1 ms, and returns the pair's
// judgement, which must have a why.
func phasesPair(t *testing.T, newArgs, oldArgs []string) *results.Change {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a program's two builds under the sampler")
	}
	dll := testbin.Workload(t, "cmd/vbench/cli/testdata/csharp/phases/Phases.csproj")
	quoted := func(args []string) string { return `"` + strings.Join(args, `", "`) + `"` }
	f, _, stdout := runPairSuite(t, `name: explain-phases
runs: 3
warmup: 0
modes:
  - name: sampled
    engine: sampling
    interval: 1ms
workloads:
  - name: new
    command: [dotnet, `+dll+`, `+quoted(newArgs)+`]
    against: old
  - name: old
    command: [dotnet, `+dll+`, `+quoted(oldArgs)+`]
`, "3")
	c := f.Find("new", "sampled")
	if c == nil || c.Compare == nil || len(c.Compare.Explain) == 0 {
		t.Fatalf("no explain for the sampled pair:\n%s", stdout)
	}
	t.Logf("explain (%s, %s): %+v", c.Compare.ExplainUnit, c.Compare.ExplainScope, c.Compare.Explain)
	return c.Compare
}
