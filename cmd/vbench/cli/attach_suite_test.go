package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/testbin"
)

// The done-when's web service through a suite: a service mode that
// attaches sampling after the warm-up, profiles, detaches, attaches again.
// The run passes (hey saw no error: a non-2xx fails the run), each attach's
// profile names the handler, the results file holds the windows in order
// (before, during 1, after 1, during 2, after 2) with requests in each, the
// attaches' spikes and the pooled windows' measures, and the table shows
// every window. No timing is asserted.
func TestSuiteAttachesToAService(t *testing.T) {
	t.Parallel() // asserts the attach table, not its figures
	testbin.ProfilerLib(t)
	dir := t.TempDir()
	marker := testbin.Marker("attachsuite")
	writeFile(t, filepath.Join(dir, "suite.yaml"), fmt.Sprintf(`name: attach
runs: 1
warmup: 0
modes:
  - name: sampling-attached
    engine: sampling
    interval: 1ms
    attach: {at: 2s, duration: 3s, times: 2, gap: 2s}
baseline: none.json
workloads:
  - name: web
    server:
      command: [%s, %s, "--marker=%s", "--urls=http://127.0.0.1:{port}"]
      ready: "http://127.0.0.1:{port}/ready"
    load: {url: "http://127.0.0.1:{port}/ping", connections: 2, warmup: 1s}
`, testbin.Dotnet(t), testbin.WebApp(t), marker))
	cmd := exec.Command(testbin.Vbench(t), "run", "suite.yaml", "--json", "r.json")
	cmd.Dir = dir
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if code := exitCode(t, cmd.Run()); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so.String(), se.String())
	}
	f, err := results.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Find("web", "sampling-attached")
	if c == nil || c.Runs != 1 || c.Failure != "" {
		t.Fatalf("cell %+v", c)
	}
	r := c.Measured()[0]
	if r.Error != "" || r.Service == nil || r.Service.Attach == nil {
		t.Fatalf("run: %+v", r)
	}
	al := r.Service.Attach
	want := []string{"before", "during 1", "after 1", "during 2", "after 2"}
	if len(al.Windows) != len(want) {
		t.Fatalf("windows %+v, want %v", al.Windows, want)
	}
	var sum int64
	for i, w := range al.Windows {
		if w.Name != want[i] || w.Requests == 0 || w.StartNs >= w.EndNs || (i > 0 && w.StartNs != al.Windows[i-1].EndNs) {
			t.Errorf("window %d: %+v (want %s, requests, after the previous window)", i, w, want[i])
		}
		sum += w.Requests
	}
	if sum > r.Requests {
		t.Errorf("the windows hold %d requests, the load completed %d", sum, r.Requests)
	}
	if len(al.Attaches) != 2 || len(al.Pooled) != 3 {
		t.Errorf("attaches %+v, pooled %+v", al.Attaches, al.Pooled)
	}
	for k, a := range al.Attaches {
		if a.SpikeRequests == 0 || a.AttachNs <= 0 {
			t.Errorf("attach %d: %+v", k+1, a)
		}
	}
	for _, m := range []results.Measure{results.MeasureRPSBefore, results.MeasureRPSDuring, results.MeasureRPSAfter, results.MeasureP99Before, results.MeasureP99During, results.MeasureP99After, results.MeasureAttachMax} {
		if c.Metrics[m] == nil {
			t.Errorf("no measure %s", m)
		}
	}
	kept := filepath.Join(dir, "r.profiles", "web", "sampling-attached")
	for _, a := range []string{"attach-1", "attach-2"} {
		tree, err := profile.ReadTree(filepath.Join(kept, a))
		if err != nil || len(tree.Processes) != 1 {
			t.Fatalf("%s's profile: %v", a, err)
		}
		named := false
		for _, fn := range tree.Processes[0].Functions {
			named = named || fn.Name == "TestWeb.Api.Handle"
		}
		if !named {
			t.Errorf("%s's profile does not name the handler TestWeb.Api.Handle", a)
		}
	}
	table := so.String()
	for _, w := range append(want, "Attach: the service's load before, during and after each attach", "spike 1", "spike 2", "during, pooled", "after, pooled") {
		if !strings.Contains(table, w) {
			t.Errorf("the table lacks %q:\n%s", w, table)
		}
	}
	// The HTML report of the same file: the same table, every window and spike.
	if out, err := exec.Command(testbin.Vbench(t), "report", filepath.Join(dir, "r.json"), "-o", filepath.Join(dir, "r.html")).CombinedOutput(); err != nil {
		t.Fatalf("vbench report -o r.html: %v\n%s", err, out)
	}
	html, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range append(want, "spike 1", "spike 2", "during, pooled", "after, pooled") {
		if !bytes.Contains(html, []byte("<td>"+w+"</td>")) {
			t.Errorf("the HTML report's attach table lacks the row %q", w)
		}
	}
	for _, w := range []string{`id="attach-table"`, "Attach: the service", "detach "} {
		if !bytes.Contains(html, []byte(w)) {
			t.Errorf("the HTML report lacks %q", w)
		}
	}
	if left := testbin.ProcessesWith(marker); len(left) > 0 {
		t.Errorf("processes left: %v", left)
	}
}
