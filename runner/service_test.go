package runner

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/internal/testbin"
)

// webSuite is a suite of one service workload: the test web app
// (internal/testbin/webapp) with extra server arguments, driven for 1 s
// after 300 ms of warm-up. marker, in the server's arguments and the load's
// URL, finds the run's processes in /proc.
func webSuite(t *testing.T, modeList, serverArgs, marker string) string {
	dll := testbin.WebApp(t)
	return fmt.Sprintf(`name: web
runs: 2
warmup: 0
modes: [%s]
timeout: 1m
profiler: {interval: 10ms}
workloads:
  - name: web
    server:
      command: [dotnet, %s, --marker=%s, %s]
      ready: "http://127.0.0.1:{port}/ready"
      ready_timeout: 20s
    load: {url: "http://127.0.0.1:{port}/ping?m=%s", connections: 4, warmup: 300ms, duration: 1s, handler: TestWeb.Api.Handle}
`, modeList, dll, marker, quoted(serverArgs), marker)
}

// quoted is the words of args as YAML strings, comma-separated.
func quoted(args string) string {
	var q []string
	for _, a := range strings.Fields(args) {
		q = append(q, fmt.Sprintf("%q", a))
	}
	return strings.Join(q, ", ")
}

// A web app under none, tracing and sampling: every run has its rps and
// both latency percentiles from the real load generator and the server's
// own CPU time over the measured load (cpu-per-request), the tracing runs'
// handler calls equal the requests completed (warm-up included), its
// start-up (exec until ready) and GC work are recorded, and nothing of the
// run is left: no process, nothing listening on its ports.
func TestServiceUnderEachMode(t *testing.T) {
	marker := testbin.Marker("svc")
	plan := planFor(t, t.TempDir(), webSuite(t, "none, tracing, sampling", "--urls=http://127.0.0.1:{port}", marker))
	f, _ := Run(context.Background(), plan, Env{Profiler: testbin.ProfilerLib(t)})
	for _, c := range f.Results {
		if c.Failure != "" || c.Runs != 2 || c.Metric != results.MetricRPS {
			t.Fatalf("%s: failure %q, %d runs, metric %s", c.Key(), c.Failure, c.Runs, c.Metric)
		}
		for _, r := range c.Samples {
			sv := r.Service
			if sv == nil || sv.Requests <= 0 || sv.WarmupRequests <= 0 || sv.RPS <= 0 || sv.LoadNs <= 0 ||
				sv.LatencyP50Ns <= 0 || sv.LatencyP99Ns < sv.LatencyP50Ns || r.ExitCode != 0 || r.Signal != "" {
				t.Errorf("%s run %d: %+v %+v", c.Key(), r.Seq, r, sv)
				continue
			}
			// Its start-up is exec until ready first answered; SIGTERM
			// ends it normally, so its GC work is there.
			if r.StartupNs == nil || *r.StartupNs <= 0 || *r.StartupNs >= r.WallNs || r.AllocBytes == nil || *r.AllocBytes <= 0 {
				t.Errorf("%s run %d: startup_ns %v (wall %d ns), alloc_bytes %v", c.Key(), r.Seq, r.StartupNs, r.WallNs, r.AllocBytes)
			}
			if got := results.MetricRPS.Of(&r); got <= 0 {
				t.Errorf("%s run %d: rps metric %d", c.Key(), r.Seq, got)
			}
			// The server's own CPU over the measured load: some, and no
			// more than every core for the load's span and the reads around it.
			if most := (sv.LoadNs + 250e6) * int64(runtime.NumCPU()); sv.ServerCPUNs <= 0 || sv.ServerCPUNs > most {
				t.Errorf("%s run %d: server CPU %d ns over a load of %d ns on %d cores", c.Key(), r.Seq, sv.ServerCPUNs, sv.LoadNs, runtime.NumCPU())
			} else if got, want := results.MetricCPUPerRequest.Of(&r), sv.ServerCPUNs/sv.Requests; got < want || got > want+1 {
				t.Errorf("%s run %d: cpu-per-request %d ns, want %d ns (%d ns over %d requests)", c.Key(), r.Seq, got, want, sv.ServerCPUNs, sv.Requests)
			}
			if addr := stillListening(sv.Port); addr != "" {
				t.Errorf("%s run %d: %s still listening after the run", c.Key(), r.Seq, addr)
			}
		}
		if c.Mode == modes.Tracing && (c.Accuracy == nil || c.Accuracy.Checked != 2 || c.Accuracy.Exact != 2) {
			t.Errorf("tracing: the handler's calls against the requests completed: %+v", c.Accuracy)
		}
		if c.Mode != modes.Tracing && c.Accuracy != nil {
			t.Errorf("%s counted calls: %+v", c.Key(), c.Accuracy)
		}
	}
	if left := testbin.ProcessesWith(marker); len(left) > 0 {
		t.Errorf("processes left after the run: %v", left)
	}
}

// A service that fails fails its cell with the reason in words, and leaves
// nothing behind: a server that never gets ready, one that crashes under
// load, one whose port is taken.
func TestServiceFailures(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	for _, tc := range []struct {
		name, args string
		want       []string
	}{
		{"never-ready", "--urls=http://127.0.0.1:{port} --never-ready", []string{"server not ready after 2s (http://127.0.0.1:", "/ready: answered 503 Service Unavailable) (then stopped)"}},
		{"crash", "--urls=http://127.0.0.1:{port} --crash-after 200", []string{"server died under load", "the server crashed: killed by SIGABRT", "crashing under load as asked"}},
		{"port-taken", fmt.Sprintf("--urls=http://127.0.0.1:%d", port), []string{"server exited before it was ready", fmt.Sprintf("Failed to bind to address http://127.0.0.1:%d: address already in use", port)}},
		{"not-2xx", "--urls=http://127.0.0.1:{port} --fail-every 50", []string{"load of http://127.0.0.1:", "responses were not 2xx (the first: 500)"}},
		{"no-stop", "--urls=http://127.0.0.1:{port} --hang-on-stop", []string{"server did not stop within 1s of SIGTERM and was killed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := testbin.Marker("svc")
			yaml := strings.Replace(webSuite(t, "none", tc.args, marker), "ready_timeout: 20s", "ready_timeout: 2s", 1)
			if tc.name == "no-stop" {
				yaml = strings.Replace(yaml, "ready_timeout: 2s", "ready_timeout: 20s\n      stop_grace: 1s", 1)
			}
			if tc.name == "port-taken" {
				yaml = strings.ReplaceAll(yaml, "127.0.0.1:{port}/", fmt.Sprintf("127.0.0.1:%d/", port))
				// Its server exits as soon as it fails to bind: a deadline
				// of 2s, at load 8, passed before .NET got that far, and
				// the failure read "not ready" rather than "exited".
				yaml = strings.Replace(yaml, "ready_timeout: 2s", "ready_timeout: 20s", 1)
			}
			plan := planFor(t, t.TempDir(), yaml)
			f, _ := Run(context.Background(), plan, Env{})
			c := f.Results[0]
			for _, w := range tc.want {
				if !strings.Contains(c.Failure, w) {
					t.Errorf("failure %q\nlacks %q", c.Failure, w)
				}
			}
			if left := testbin.ProcessesWith(marker); len(left) > 0 {
				t.Errorf("processes left after the run: %v", left)
			}
		})
	}
}

// A server under a mode that wraps it in a command (Linux perf through
// scripts/perf-record.sh): stopped by SIGTERM to its process group, the
// wrapper outlives the server to write the profile and then ends by SIGTERM
// itself, so the run is as clean as an unwrapped one; the server's CPU per
// request counts the wrapped server's process (not the wrapper's, which
// barely runs); and nothing is left: no process, no perf map in /tmp.
func TestServiceUnderAWrapper(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Fatal("perf is not installed: scripts/ensure-perf.sh installs it (make test runs it)")
	}
	marker := testbin.Marker("svc")
	perf := fmt.Sprintf(`{name: perf, wrap: [%q, "{rundir}", "1000"], env: {DOTNET_PerfMapEnabled: "3", DOTNET_EnableWriteXorExecute: "0"}, profile: {path: "{rundir}/perf.txt", format: perf-script}}`,
		filepath.Join(testbin.RepoRoot(), "scripts", "perf-record.sh"))
	mapsBefore, _ := filepath.Glob("/tmp/perf-*.map")
	plan := planFor(t, t.TempDir(), webSuite(t, "none, "+perf, "--urls=http://127.0.0.1:{port}", marker))
	f, _ := Run(context.Background(), plan, Env{})
	var perRequest = map[modes.Mode][]int64{}
	for _, c := range f.Results {
		if c.Failure != "" || c.Runs != 2 {
			t.Fatalf("%s: failure %q, %d runs", c.Key(), c.Failure, c.Runs)
		}
		for _, r := range c.Samples {
			if r.ExitCode != 0 || r.Signal != "" || r.Service == nil || r.Service.Requests <= 0 {
				t.Errorf("%s run %d: exit %d, signal %q, service %+v", c.Key(), r.Seq, r.ExitCode, r.Signal, r.Service)
				continue
			}
			if c.Mode == "perf" && r.SamplesTaken <= 0 {
				t.Errorf("perf run %d: no samples read from perf.txt", r.Seq)
			}
			perRequest[c.Mode] = append(perRequest[c.Mode], results.MetricCPUPerRequest.Of(&r))
		}
	}
	// Under perf the server does the same work or more per request; the
	// wrapper's own CPU would be a thousandth of it.
	for _, m := range []modes.Mode{"none", "perf"} {
		if len(perRequest[m]) != 2 || slices.Min(perRequest[m]) <= 0 {
			t.Fatalf("%s: CPU per request %v ns, want 2 runs' worth above 0", m, perRequest[m])
		}
	}
	if slices.Min(perRequest["perf"]) < slices.Min(perRequest["none"])/2 {
		t.Errorf("CPU per request under the wrapper %v ns, unwrapped %v ns: the wrapped server's CPU was not counted", perRequest["perf"], perRequest["none"])
	}
	if left := testbin.ProcessesWith(marker); len(left) > 0 {
		t.Errorf("processes left after the run: %v", left)
	}
	if mapsAfter, _ := filepath.Glob("/tmp/perf-*.map"); len(mapsAfter) > len(mapsBefore) {
		t.Errorf("perf maps left in /tmp: %v (before the run: %v)", mapsAfter, mapsBefore)
	}
}
