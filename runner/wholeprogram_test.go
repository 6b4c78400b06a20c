package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/testbin"
)

// allocProject is the workload whose GC work is known (testdata/alloc).
func allocProject() string {
	return filepath.Join(testbin.RepoRoot(), "runner", "testdata", "alloc", "Alloc.csproj")
}

// Every run of a .NET program records what it cost the whole program, in
// every mode alike (none, vbench's sampling and tracing engines, an
// EventPipe mode that is only environment): its start-up, through the
// startup hook vbench adds, between 0 and its wall time; its own peak RSS;
// the GC's collections, pause and allocated bytes at its exit (the workload
// allocates a known amount: alloc_bytes within 1 % of it; it forces 3 full
// collections: gc_collections[2] >= 3); an engine mode the bytes of the
// profile written. A workload with a startup hook of its own has both run.
// A command that is no .NET program records none of them, and no error.
func TestWholeProgramFigures(t *testing.T) {
	const count, size, collections = 1000, 65536, 3
	dll := testbin.Workload(t, allocProject())
	fw := testbin.Fakework(t)
	mark := filepath.Join(t.TempDir(), "own-hook")
	plan := planFor(t, t.TempDir(), fmt.Sprintf(`name: whole
runs: 2
warmup: 0
timeout: 2m
profiler: {interval: 10ms}
modes:
  - none
  - sampling
  - tracing
  - name: eventpipe
    env:
      DOTNET_EnableEventPipe: "1"
      DOTNET_EventPipeOutputPath: "{rundir}/trace.nettrace"
      DOTNET_EventPipeConfig: "Microsoft-DotNETCore-SampleProfiler:0:5"
workloads:
  - name: alloc
    project: %s
    args: [alloc, "%d", "%d", "%d"]
  - name: ownhook
    command: [dotnet, %s, alloc, "10", "64", "0"]
    env: {DOTNET_STARTUP_HOOKS: %s, ALLOC_OWN_HOOK_MARK: %s}
    modes: [none]
  - name: native
    command: [%s, -elapsed, "5"]
    modes: [none]
`, allocProject(), count, size, collections, dll, dll, mark, fw))
	var logged []string
	f, _ := Run(context.Background(), plan, Env{Profiler: testbin.ProfilerLib(t), Log: func(format string, args ...any) {
		logged = append(logged, fmt.Sprintf(format, args...))
	}})
	want := float64(count * (size + 24)) // a byte[]'s header and length: 24 bytes on x64
	seen := map[string]bool{}
	for _, c := range f.Results {
		if c.Failure != "" || len(c.Samples) != 2 {
			t.Fatalf("%s: failure %q, %d runs", c.Key(), c.Failure, len(c.Samples))
		}
		seen[c.Key()] = true
		for _, m := range results.Measures {
			if v, ok := m.Of(&c.Samples[0]); ok {
				t.Logf("%s: %s %.0f", c.Key(), m, v)
			}
		}
		for _, r := range c.Samples {
			if c.Workload == "native" {
				if r.StartupNs != nil || r.GCCollections != nil || r.GCPauseNs != nil || r.AllocBytes != nil || r.ProfileBytes != nil || r.ProfilerMem != nil {
					t.Errorf("%s run %d: a program that is not .NET has figures %+v", c.Key(), r.Seq, r)
				}
				continue
			}
			if r.StartupNs == nil || *r.StartupNs <= 0 || *r.StartupNs >= r.WallNs {
				t.Errorf("%s run %d: startup_ns %v, wall %d ns", c.Key(), r.Seq, r.StartupNs, r.WallNs)
			}
			if len(r.GCCollections) != 3 || r.GCPauseNs == nil || r.AllocBytes == nil {
				t.Fatalf("%s run %d: GC figures missing: %v %v %v", c.Key(), r.Seq, r.GCCollections, r.GCPauseNs, r.AllocBytes)
			}
			// Its own peak RSS (VmHWM, which the hook reads at exit): a .NET
			// process's, and not above the rusage's where that is known (the
			// child's own) but for the few hundred KiB the two accountings
			// differ by (VmHWM read 0.1-0.8 % above it).
			if r.PeakRSS == nil || *r.PeakRSS < 16<<20 || (r.MaxRSS > 0 && *r.PeakRSS > r.MaxRSS+r.MaxRSS/20) {
				t.Errorf("%s run %d: peak_rss_bytes %s, max_rss_bytes %d", c.Key(), r.Seq, fmtPtr(r.PeakRSS), r.MaxRSS)
			}
			if r.ProfilerMem != nil {
				t.Errorf("%s run %d: profiler_mem %d, but profile.json reports no memory", c.Key(), r.Seq, *r.ProfilerMem)
			}
			engine := c.Mode == modes.Sampling || c.Mode == modes.Tracing
			if engine != (r.ProfileBytes != nil && *r.ProfileBytes > 0) {
				t.Errorf("%s run %d: profile_bytes %v", c.Key(), r.Seq, r.ProfileBytes)
			}
			if c.Workload != "alloc" {
				continue
			}
			if got := float64(*r.AllocBytes); got < want || got > want*1.01 {
				t.Errorf("%s run %d: alloc_bytes %.0f, want %.0f (+1%%)", c.Key(), r.Seq, got, want)
			}
			if r.GCCollections[2] < collections || r.GCCollections[1] < r.GCCollections[2] || r.GCCollections[0] < r.GCCollections[1] {
				t.Errorf("%s run %d: gc_collections %v, want gen 2 >= %d, each generation counted in the lower", c.Key(), r.Seq, r.GCCollections, collections)
			}
			if *r.GCPauseNs <= 0 {
				t.Errorf("%s run %d: gc_pause_ns %d after %d forced collections", c.Key(), r.Seq, *r.GCPauseNs, collections)
			}
		}
	}
	if len(seen) != 6 {
		t.Errorf("cells %v", seen)
	}
	b, _ := os.ReadFile(mark)
	if n := strings.Count(string(b), "own hook ran"); n != 2 {
		t.Errorf("the workload's own startup hook ran %d times in 2 runs: %q", n, b)
	}
	if len(logged) > 0 {
		t.Logf("logged: %q", logged)
	}
}

// A run killed for memory (here the program SIGKILLs itself holding 150 MiB,
// as the OOM killer would) keeps its peak RSS, the signal and its start-up
// in the run record; its GC work, which only a normal exit writes, is
// absent, not 0; the failure says where such a SIGKILL comes from.
func TestKilledRunKeepsItsFigures(t *testing.T) {
	plan := planFor(t, t.TempDir(), fmt.Sprintf(`name: killed
runs: 1
warmup: 0
timeout: 2m
modes: [none]
workloads:
  - name: hog
    project: %s
    args: [kill, "150"]
`, allocProject()))
	f, _ := Run(context.Background(), plan, Env{})
	c := f.Results[0]
	if len(c.Samples) != 1 {
		t.Fatalf("%d runs recorded, failure %q", len(c.Samples), c.Failure)
	}
	r := c.Samples[0]
	if r.Signal != "SIGKILL" || r.MaxRSS < 150<<20 || r.WallNs <= 0 || r.UserNs+r.SysNs <= 0 {
		t.Errorf("the killed run lost its figures: signal %q, max_rss %d, wall %d", r.Signal, r.MaxRSS, r.WallNs)
	}
	if r.StartupNs == nil || *r.StartupNs <= 0 || *r.StartupNs >= r.WallNs {
		t.Errorf("startup_ns %v of a run that started normally", r.StartupNs)
	}
	if r.GCCollections != nil || r.GCPauseNs != nil || r.AllocBytes != nil {
		t.Errorf("GC figures of a process that never exited: %v %v %v", r.GCCollections, r.GCPauseNs, r.AllocBytes)
	}
	if !strings.HasPrefix(c.Failure, "crashed: killed by SIGKILL, not by vbench (the OOM killer or a memory limit sends it), at a peak RSS of 1") {
		t.Errorf("failure %q", c.Failure)
	}
}

func fmtPtr(p *int64) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprint(*p)
}

// vbench's startup hook is the harness's code, not the program's: no
// engine profiles it (its assembly is excluded by default), while a
// startup hook of the program's own, whose class has the same name
// (StartupHook, as the runtime requires), is profiled as any user code.
func TestOwnHookProfiledVbenchsNot(t *testing.T) {
	dll := testbin.Workload(t, allocProject())
	mark := filepath.Join(t.TempDir(), "own-hook")
	plan := planFor(t, t.TempDir(), fmt.Sprintf(`name: hooks
runs: 1
warmup: 0
timeout: 2m
modes: [tracing, instrumentation]
workloads:
  - name: ownhook
    command: [dotnet, %s, alloc, "10", "64", "0"]
    env: {DOTNET_STARTUP_HOOKS: %s, ALLOC_OWN_HOOK_MARK: %s}
`, dll, dll, mark))
	kept := t.TempDir()
	f, _ := Run(context.Background(), plan, Env{Profiler: testbin.ProfilerLib(t), ProfilesDir: kept})
	for _, c := range f.Results {
		if c.Failure != "" {
			t.Fatalf("%s: %s", c.Key(), c.Failure)
		}
		paths, _ := filepath.Glob(filepath.Join(kept, "ownhook", string(c.Mode), "*", "profile.json"))
		if len(paths) != 1 {
			t.Fatalf("%s: profiles kept %v", c.Key(), paths)
		}
		p, err := profile.ReadFile(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		own := false
		for _, fn := range p.Functions {
			if fn.Assembly == "VbenchStartupHook" {
				t.Errorf("%s: vbench's hook profiled: %s (%s)", c.Key(), fn.Name, fn.Assembly)
			}
			if fn.Name == "StartupHook.Initialize" && fn.Assembly == "Alloc" && fn.Calls == 1 {
				own = true
			}
		}
		if !own {
			t.Errorf("%s: the program's own StartupHook.Initialize is not in its profile", c.Key())
		}
	}
}
