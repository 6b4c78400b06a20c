package cli_test

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/testbin"
	"vbench/internal/verdict"
	"vbench/stats"
)

// fibCalls is what benchmarks/fibonacci declares on its VBENCH line, in all:
// iterations × (2·fib(n+1) − 1) calls of Fib and one of Run.
func fibCalls(n, iterations int64) int64 {
	a, b := int64(0), int64(1)
	for i := int64(0); i < n+1; i++ {
		a, b = b, a+b
	}
	return iterations*(2*a-1) + 1
}

// fibSuite is a suite of the real fibonacci workload at two sizes, run
// through the dotnet host on its prebuilt assembly.
func fibSuite(t *testing.T, runs int, modeList string) string {
	dll := testbin.Workload(t, "benchmarks/fibonacci/Fibonacci.csproj")
	dotnet := testbin.Dotnet(t)
	return fmt.Sprintf(`name: cost
runs: %d
warmup: 1
metric: kernel-cpu
modes: [%s]
profiler: {interval: 1ms}
workloads:
  - name: fib20
    command: [%s, %s, --n, "20", --iterations, "20"]
  - name: fib22
    command: [%s, %s, --n, "22", --iterations, "20"]
`, runs, modeList, dotnet, dll, dotnet, dll)
}

// nearly reports whether a and b agree to float rounding.
func nearly(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// The profiler's cost per call on the real fibonacci under every engine:
// the file's cost is (median − none's median) / calls per run from its own
// numbers, inside its interval; calls per run is the profile's exact count,
// the same in every run, the workload's declared calls plus the same few
// calls around the kernel at either size (so it moves exactly as the
// declared count does), the kept profile's total, and null's is tracing's.
func TestCostPerCallOnRealWorkload(t *testing.T) {
	t.Parallel()           // checks the arithmetic of what was measured
	testbin.ProfilerLib(t) // next to vbench: the default library of engine modes
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), fibSuite(t, 6, `none, "null", tracing, instrumentation, sampling`))
	stdout, stderr, code := vbRun(t, dir, ciEnv(), "run", "suite.yaml", "--quiet", "--json", "out/r.json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "cost/event [95% CI]") || !strings.Contains(stdout, " ns/call [") {
		t.Errorf("the table shows no cost per call:\n%s", stdout)
	}
	f, err := results.ReadFile(filepath.Join(dir, "out", "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	outside := map[string]float64{} // calls per run beyond the declared, per workload
	for wl, n := range map[string]int64{"fib20": 20, "fib22": 22} {
		none := f.Find(wl, modes.None)
		declared := fibCalls(n, 20)
		for _, m := range []modes.Mode{modes.Null, modes.Tracing, modes.Instrumentation} {
			c := f.Find(wl, m)
			if c == nil || c.Runs != 6 || none == nil {
				t.Fatalf("%s/%s: missing cell or runs", wl, m)
			}
			if c.CallsPerRun < float64(declared) || c.CallsPerRun > float64(declared)+1000 {
				t.Errorf("%s: %v calls per run, the workload declares %d in its kernel", c.Key(), c.CallsPerRun, declared)
			}
			want := (c.MedianNs - none.MedianNs) / c.CallsPerRun
			if !nearly(c.CostPerCallNs, want) {
				t.Errorf("%s: cost per call %v, want (%v − %v) / %v = %v", c.Key(), c.CostPerCallNs, c.MedianNs, none.MedianNs, c.CallsPerRun, want)
			}
			if !(c.CostPerCallLoNs <= c.CostPerCallNs && c.CostPerCallNs <= c.CostPerCallHiNs) || c.CostPerCallLoNs == c.CostPerCallHiNs {
				t.Errorf("%s: cost per call %v outside its interval [%v, %v]", c.Key(), c.CostPerCallNs, c.CostPerCallLoNs, c.CostPerCallHiNs)
			}
			if m == modes.Null {
				if tr := f.Find(wl, modes.Tracing); c.CallsPerRun != tr.CallsPerRun {
					t.Errorf("%s: %v calls per run, its tracing cell's %v", c.Key(), c.CallsPerRun, tr.CallsPerRun)
				}
				continue
			}
			for _, r := range c.Measured() {
				if float64(r.Calls) != c.CallsPerRun {
					t.Errorf("%s run %d: %d calls, the cell's per run %v: not exact", c.Key(), r.Seq, r.Calls, c.CallsPerRun)
				}
			}
			tree, err := profile.ReadTree(filepath.Join(dir, "out", "r.profiles", wl, string(m)))
			if err != nil {
				t.Fatal(err)
			}
			var total int64
			for _, fn := range tree.Merge().Functions {
				total += fn.Calls
			}
			if float64(total) != c.CallsPerRun {
				t.Errorf("%s: the kept profile counts %d calls, the cell %v per run", c.Key(), total, c.CallsPerRun)
			}
			if o, ok := outside[wl]; ok && o != c.CallsPerRun-float64(declared) {
				t.Errorf("%s: %v calls beyond the declared, another engine %v", c.Key(), c.CallsPerRun-float64(declared), o)
			}
			outside[wl] = c.CallsPerRun - float64(declared)
		}
		// Sampling: per sample taken within the kernel, when the kernel
		// was long enough for ticks.
		s := f.Find(wl, modes.Sampling)
		if s.CallsPerRun != 0 || s.CostPerCallNs != 0 {
			t.Errorf("%s: a sampler has no calls to divide by: %v, %v", s.Key(), s.CallsPerRun, s.CostPerCallNs)
		}
		if s.SamplesPerRun > 0 && !nearly(s.CostPerSampleNs, (s.MedianNs-none.MedianNs)/s.SamplesPerRun) {
			t.Errorf("%s: cost per sample %v, want (%v − %v) / %v", s.Key(), s.CostPerSampleNs, s.MedianNs, none.MedianNs, s.SamplesPerRun)
		}
	}
	if outside["fib20"] != outside["fib22"] {
		t.Errorf("calls beyond the declared differ with the kernel's size: %v at n=20, %v at n=22", outside["fib20"], outside["fib22"])
	}
}

// An A/B pair against a known regression (the slow build adds a few cycles
// to every enter hook): the pair's change per call is reported with its interval,
// computed from the file's own rounds: the Hodges–Lehmann estimate of the
// per-round differences slow − shipped and its signed-rank interval, over
// the calls per run both sides counted alike.
func TestChangePerCallAgainstSlowBuild(t *testing.T) {
	t.Parallel() // checks the arithmetic of what was measured
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), fibSuite(t, 8, "none, tracing"))
	slow, shipped := testbin.SlowProfilerLib(t), testbin.ProfilerLib(t)
	stdout, stderr, code := vbRun(t, dir, ciEnv(), "run", "suite.yaml", "--quiet", "--workloads", "fib22",
		"--profiler", slow, "--against", shipped, "--max-runs", "8", "--json", "out/ab.json")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "A/B per event") {
		t.Errorf("the table shows no change per call:\n%s", stdout)
	}
	f, err := results.ReadFile(filepath.Join(dir, "out", "ab.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, old := f.Find("fib22", modes.Tracing), f.Find("fib22", modes.OldBuild(modes.Tracing))
	if c == nil || old == nil || c.Compare == nil || c.Compare.Against != old.Mode {
		t.Fatalf("no A/B pair: %+v", f.Results)
	}
	if want := float64(fibCalls(22, 20)); c.CallsPerRun < want || c.CallsPerRun != old.CallsPerRun {
		t.Errorf("calls per run: slow %v, shipped %v, declared %v", c.CallsPerRun, old.CallsPerRun, want)
	}
	oldX, newX := verdict.Rounds(old, c)
	d := make([]float64, len(newX))
	for i := range d {
		d[i] = newX[i] - oldX[i]
	}
	lo, hi := stats.SignedRankInterval(d, stats.Confidence)
	ch := c.Compare
	for _, p := range [][2]float64{{ch.ChangePerCallNs, stats.HodgesLehmann(d)}, {ch.ChangePerCallLoNs, lo}, {ch.ChangePerCallHiNs, hi}} {
		if !nearly(p[0], p[1]/c.CallsPerRun) {
			t.Errorf("change per call %v [%v, %v], want from the rounds %v [%v, %v] / %v",
				ch.ChangePerCallNs, ch.ChangePerCallLoNs, ch.ChangePerCallHiNs, stats.HodgesLehmann(d), lo, hi, c.CallsPerRun)
			break
		}
	}
	if !(ch.ChangePerCallLoNs <= ch.ChangePerCallNs && ch.ChangePerCallNs <= ch.ChangePerCallHiNs) || ch.ChangePerCallLoNs == ch.ChangePerCallHiNs {
		t.Errorf("change per call %v outside its interval [%v, %v]", ch.ChangePerCallNs, ch.ChangePerCallLoNs, ch.ChangePerCallHiNs)
	}
	t.Logf("slow − shipped: %+.2f ns/call [%+.2f, %+.2f] over %d rounds; %s", ch.ChangePerCallNs, ch.ChangePerCallLoNs, ch.ChangePerCallHiNs, len(d), c.Verdict)
}
