package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/internal/testbin"
)

// A/B for services, both ways a suite has: two workloads (a service's two
// builds, here the same app: an A/A pair) judged by `against:`, and two
// builds of the profiler by --against. Either way each judged cell carries
// its pair's change, paired by round, both sides measured under load (rps
// and both percentiles every run), the handler's count exact on both sides
// under tracing, an explain per request served, the OLD side shown as the
// reference, and nothing of the run left behind. 2 runs a side are too few
// for any pair to reach p < 0.01 (so inconclusive, whatever was measured):
// the rate at which the slow build is caught by rps and by latency-p99 is
// measured in docs/notebook/measurements.md ("Services"), not asserted.
// Half a second of measured load a run is plenty for what is asserted
// (requests, percentiles, exact counts, a pair); the warm-up stays at
// 300 ms: at 100 ms a cold server under a busy machine's load completed no
// request in it, which fails the run.
func TestServiceABPairs(t *testing.T) {
	t.Parallel() // asserts what each run recorded, not how fast it ran
	if testing.Short() {
		t.Skip("runs a web app under load under two builds")
	}
	dll := testbin.WebApp(t)
	server := func(marker string) string {
		return fmt.Sprintf(`    server:
      command: [dotnet, %s, "--marker=%s", "--urls=http://127.0.0.1:{port}"]
      ready: "http://127.0.0.1:{port}/ready"
      ready_timeout: 20s
    load: {url: "http://127.0.0.1:{port}/ping?m=%s", connections: 4, warmup: 300ms, duration: 500ms, handler: TestWeb.Api.Handle}
`, dll, marker, marker)
	}
	head := func(metric string) string {
		return "name: svc-ab\nruns: 2\nmax_runs: 2\nwarmup: 0\nmodes: [none, tracing]\nmetric: " + metric + "\ntimeout: 1m\nworkloads:\n"
	}
	mw, mp := testbin.Marker("abw"), testbin.Marker("abp")
	cases := []struct {
		name, suite, judged, marker string
		args                        []string
	}{
		{"against: another workload", head("latency-p99") +
			"  - name: web\n" + server(mw) + "    against: web-base\n" +
			"  - name: web-base\n" + server(mw), "web-base", mw, nil},
		{"--against another profiler build", head("rps") + "  - name: web\n" + server(mp),
			"", mp, []string{"--against", testbin.SlowProfilerLib(t)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // two independent suites, each its own server and marker
			dir := t.TempDir()
			suite := filepath.Join(dir, "suite.yaml")
			if err := os.WriteFile(suite, []byte(tc.suite), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "r.json")
			stdout, stderr, code := runVbench(t, append([]string{"run", suite, "--no-baseline", "--json", out}, tc.args...)...)
			if code != 0 && code != 1 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			f, err := results.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			judged := 0
			for _, c := range f.Results {
				if c.Failure != "" || c.Runs != 2 {
					t.Fatalf("%s: failure %q, %d runs\n%s", c.Key(), c.Failure, c.Runs, stderr)
				}
				for _, r := range c.Samples {
					if sv := r.Service; !r.Warmup && (sv == nil || sv.Requests <= 0 || sv.RPS <= 0 || sv.LatencyP99Ns < sv.LatencyP50Ns || sv.LatencyP50Ns <= 0 || r.Round <= 0) {
						t.Errorf("%s run %d: round %d, service %+v", c.Key(), r.Seq, r.Round, sv)
					}
				}
				if (c.Mode == modes.Tracing || c.Mode == modes.OldBuild(modes.Tracing)) && (c.Accuracy == nil || c.Accuracy.Exact != 2 || c.Accuracy.Checked != 2) {
					t.Errorf("%s: handler counts %+v, want 2/2 exact", c.Key(), c.Accuracy)
				}
				ch := c.Compare
				if tc.judged == "" && c.Mode == modes.None {
					continue // --against twins engine modes only
				}
				if c.Verdict == results.VerdictReference {
					if ch != nil {
						t.Errorf("%s: the reference side was judged too: %+v", c.Key(), ch)
					}
					continue
				}
				if ch == nil || !ch.Paired || ch.Reason == "" {
					t.Errorf("%s (%s): not judged as a pair: %+v", c.Key(), c.Verdict, ch)
					continue
				}
				judged++
				other := f.Find(tc.judged, c.Mode)
				if tc.judged == "" {
					other = f.Find(c.Workload, ch.Against)
					if ch.Against != modes.OldBuild(c.Mode) {
						t.Errorf("%s judged against %q", c.Key(), ch.Against)
					}
				} else if ch.AgainstWorkload != tc.judged {
					t.Errorf("%s judged against workload %q, want %q", c.Key(), ch.AgainstWorkload, tc.judged)
				}
				if other == nil || other.Verdict != results.VerdictReference {
					t.Fatalf("%s: its other side is missing or not the reference: %+v", c.Key(), other)
				}
				if a, b := roundsOf(&c), roundsOf(other); a != b {
					t.Errorf("%s ran in rounds %s, its other side in %s: a pair is paired by round", c.Key(), a, b)
				}
				if c.Mode != modes.Tracing {
					continue
				}
				if ch.ExplainUnit != results.ExplainPerRequest || len(ch.Explain) == 0 {
					t.Errorf("%s: explain %q %+v, want functions per request served", c.Key(), ch.ExplainUnit, ch.Explain)
				}
				for _, e := range ch.Explain {
					if e.Old < 0 || e.New < 0 || e.Old > 1e9 || e.New > 1e9 {
						t.Errorf("%s: explain %+v is no time per request", c.Key(), e)
					}
				}
				if ch.ChangePerCallNs != 0 {
					t.Errorf("%s: a service's pair got a change per call (%v): its time is a request's under load", c.Key(), ch.ChangePerCallNs)
				}
			}
			if want := map[bool]int{true: 1, false: 2}[tc.judged == ""]; judged != want {
				t.Errorf("%d pairs judged, want %d:\n%s", judged, want, stdout)
			}
			if !strings.Contains(stdout, "vs ") || !strings.Contains(stdout, "reference") {
				t.Errorf("the table shows no pair:\n%s", stdout)
			}
			if left := testbin.ProcessesWith(tc.marker); len(left) > 0 {
				t.Errorf("processes left after the run: %v", left)
			}
		})
	}
}

// roundsOf lists the rounds a cell's measured runs ran in, in order.
func roundsOf(c *results.Cell) string {
	var rs []int
	for _, r := range c.Measured() {
		rs = append(rs, r.Round)
	}
	sort.Ints(rs)
	return fmt.Sprint(rs)
}
