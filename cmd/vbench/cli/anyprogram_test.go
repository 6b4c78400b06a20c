package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/testbin"
)

// A real C# program that knows nothing of vbench (it prints its own result
// line, no VBENCH line), measured by wall and by CPU time under: no
// profiler; vbench's sampler at an interval of its own; the runtime's
// EventPipe sampler writing a trace into the run's directory; and vbench's
// library attached by hand through plain CORECLR_* variables, as someone
// else's profiler would be. Every cell must succeed with its metric and an
// overhead against none, and what each profiler wrote must be real: the
// trace is a nettrace file, the sampler ran at its interval, and the
// by-hand tracer counted the program's calls exactly.
func TestAnyProgramUnderAnyProfiler(t *testing.T) {
	testbin.Dotnet(t)
	lib := testbin.ProfilerLib(t) // next to vbench: the default library of engine modes
	dir := t.TempDir()
	// The program is built once, in place; the run's own build of it is then
	// an up-to-date check.
	testbin.Workload(t, "cmd/vbench/cli/testdata/csharp/plainapp/PlainApp.csproj")
	plain := filepath.Join(testbin.RepoRoot(), "cmd/vbench/cli/testdata/csharp/plainapp/PlainApp.csproj")
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: anyprogram
runs: 3
warmup: 1
metric: wall
baseline: none.json
modes:
  - none
  - name: sampling-2ms
    engine: sampling
    interval: 2ms
  - name: eventpipe
    env:
      DOTNET_EnableEventPipe: "1"
      DOTNET_EventPipeOutputPath: "{rundir}/trace.nettrace"
      DOTNET_EventPipeConfig: "Microsoft-DotNETCore-SampleProfiler:0:5,Microsoft-Windows-DotNETRuntime:4c14fccbd:5"
  - name: by-hand
    env:
      CORECLR_ENABLE_PROFILING: "1"
      CORECLR_PROFILER: "`+attach.CLSID+`"
      CORECLR_PROFILER_PATH: `+lib+`
      VBENCH_MODE: tracing
      VBENCH_PROFILE_DIR: "{rundir}"
workloads:
  - name: plain-wall
    project: `+plain+`
    args: ["3000000", "12"]
  - name: plain-cpu
    project: `+plain+`
    args: ["3000000", "12"]
    metric: cpu
`)
	os.MkdirAll(filepath.Join(dir, "out"), 0o755)
	stdout, stderr, code := vbRun(t, dir, ciEnv(), "run", "suite.yaml", "--quiet", "--json", "out/r.json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	f, err := results.ReadFile(filepath.Join(dir, "out", "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]results.Metric{"plain-wall": results.MetricWall, "plain-cpu": results.MetricCPU}
	ran := []modes.Mode{modes.None, "sampling-2ms", "eventpipe", "by-hand"}
	for w, metric := range want {
		for _, m := range ran {
			c := f.Find(w, m)
			if c == nil {
				t.Fatalf("no cell %s/%s\n%s", w, m, stdout)
			}
			if c.Failed() || c.Runs != 3 || c.Metric != metric || !(c.MedianNs > 0) {
				t.Errorf("%s: failure %q, %d runs, metric %q, median %v", c.Key(), c.Failure, c.Runs, c.Metric, c.MedianNs)
			}
			if !(c.Overhead > 0) {
				t.Errorf("%s: no overhead against none", c.Key())
			}
			for _, r := range c.Measured() {
				// No VBENCH line: nothing of the program's own is recorded,
				// and the cell's numbers are the metric's.
				if r.ElapsedNs != 0 || r.Checksum != "" {
					t.Errorf("%s run %d: elapsed %d checksum %q from a program that prints no VBENCH line", c.Key(), r.Seq, r.ElapsedNs, r.Checksum)
				}
			}
			if v := c.Values(); metric == results.MetricCPU && v[0] != float64(c.Samples[1].UserNs+c.Samples[1].SysNs) {
				t.Errorf("%s: cpu value %v is not user+sys of the run", c.Key(), v[0])
			}
		}
		if f.Find(w, modes.None).Profile != "" {
			t.Errorf("%s/none kept a profile", w)
		}
	}
	if sp := f.ModeSpec("sampling-2ms"); sp.Engine != modes.EngineSampling || sp.Interval.String() != "2ms" {
		t.Errorf("recorded definition of sampling-2ms: %+v", sp)
	}
	for w := range want {
		kept := filepath.Join(dir, "out", "r.profiles", w)
		// The runtime's own sampler wrote its trace into {rundir}, kept.
		trace, err := os.ReadFile(filepath.Join(kept, "eventpipe", "trace.nettrace"))
		if err != nil || !bytes.HasPrefix(trace, []byte("Nettrace")) || len(trace) < 10_000 {
			t.Errorf("%s/eventpipe: trace %d bytes (%v), want a nettrace file", w, len(trace), err)
		}
		// vbench's sampler ran at the mode's interval, and saw the sieve.
		p, err := profile.ReadFile(filepath.Join(kept, "sampling-2ms"))
		if err != nil {
			t.Fatalf("%s/sampling-2ms: %v", w, err)
		}
		if p.Mode != modes.EngineSampling || p.IntervalNs != 2_000_000 || p.Samples == 0 || !sampled(p, "PlainApp.Primes.CountBelow") {
			t.Errorf("%s/sampling-2ms: mode %s, interval %dns, %d samples, saw CountBelow %v", w, p.Mode, p.IntervalNs, p.Samples, sampled(p, "PlainApp.Primes.CountBelow"))
		}
		// The library attached by hand really loaded: it wrote its profile
		// to {rundir}, and counted the 12 rounds exactly.
		p, err = profile.ReadFile(filepath.Join(kept, "by-hand"))
		if err != nil {
			t.Fatalf("%s/by-hand: the hand-attached profiler left no profile: %v", w, err)
		}
		if p.Mode != modes.EngineTracing || calls(p, "PlainApp.Primes.CountBelow") != 12 || calls(p, "PlainApp.Program.Main") != 1 {
			t.Errorf("%s/by-hand: mode %s, CountBelow called %d times, Main %d, want 12 and 1", w, p.Mode, calls(p, "PlainApp.Primes.CountBelow"), calls(p, "PlainApp.Program.Main"))
		}
	}
	if !strings.Contains(stdout, "sampling-2ms") || !strings.Contains(stdout, "by-hand") {
		t.Errorf("the table leaves modes out:\n%s", stdout)
	}
}

func calls(p *profile.Profile, name string) int64 {
	var n int64
	for _, fn := range p.Functions {
		if fn.Name == name {
			n += fn.Calls
		}
	}
	return n
}

func sampled(p *profile.Profile, name string) bool {
	for _, fn := range p.Functions {
		if fn.Name == name && fn.InclusiveSamples > 0 {
			return true
		}
	}
	return false
}
