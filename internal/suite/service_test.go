package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vbench/internal/results"
)

const svcHead = "name: s\nbaseline: b.json\nworkloads:\n  - name: web\n"

// A service workload reads into its server's command, readiness and stop,
// its load, and the metric rps unless it names one.
func TestServiceWorkload(t *testing.T) {
	p := write(t, t.TempDir(), "s.yaml", "name: s\nmetric: kernel-cpu\nbaseline: b.json\nworkloads:\n  - name: web\n"+
		"    server: {command: [true, --urls, \"http://127.0.0.1:{port}\"], ready: \"http://127.0.0.1:{port}/health\", stop_grace: 2s}\n"+
		"    load: {url: \"http://localhost:{port}/work\", connections: 8, warmup: 0s, duration: 3s, handler: Web.Handler.Work}\n")
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	w := s.Workloads[0]
	if w.Metric != results.MetricRPS || w.Server == nil || w.Load == nil || !strings.HasSuffix(w.Command[0], "/true") || w.Command[2] != "http://127.0.0.1:{port}" {
		t.Fatalf("%+v", w)
	}
	if sv, ld := w.Server, w.Load; sv.ReadyTimeout != DefaultReadyTimeout || sv.StopGrace != 2*time.Second ||
		ld.Connections != 8 || ld.Warmup != 0 || ld.Duration != 3*time.Second || ld.Handler != "Web.Handler.Work" || !filepath.IsAbs(ld.Generator) {
		t.Errorf("server %+v, load %+v", sv, ld)
	}
}

// A ready URL on the load's path but another port (a health listener of
// its own) reaches no handler call of the load's: accepted.
func TestServiceReadyOnAnotherPort(t *testing.T) {
	p := write(t, t.TempDir(), "s.yaml", svcHead+
		"    server: {command: [true], ready: \"http://127.0.0.1:9901/work\"}\n"+
		"    load: {url: \"http://127.0.0.1:{port}/work\", handler: A.B.Work}\n")
	if _, err := Load(p); err != nil {
		t.Errorf("refused: %v", err)
	}
}

// Service workloads' mistakes, each named by file, line and field.
func TestServiceRefused(t *testing.T) {
	server := "    server: {command: [true], ready: \"http://127.0.0.1:{port}/\"}\n"
	load := "    load: {url: \"http://127.0.0.1:{port}/w\"}\n"
	for _, c := range []struct{ name, yaml, want string }{
		{"load without server", svcHead + load, `s.yaml:4: workloads[0](web).server: missing: a workload with load: needs the server it drives`},
		{"server without load", svcHead + server, `s.yaml:5: workloads[0](web).load: missing: a workload with server: needs a load`},
		{"no ready", svcHead + "    server: {command: [true]}\n" + load, `s.yaml:5: workloads[0].server.ready: missing: the URL vbench polls`},
		{"not loopback", svcHead + server + "    load: {url: \"http://example.org:{port}/w\"}\n", `s.yaml:6: workloads[0].load.url: must be on the loopback address (127.0.0.1, ::1 or localhost), got host "example.org"`},
		{"not http", svcHead + server + "    load: {url: \"ftp://127.0.0.1/w\"}\n", `s.yaml:6: workloads[0].load.url: must be an http URL`},
		{"command beside server", svcHead + "    command: [true]\n" + server + load, `s.yaml:6: workloads[0].server: a service's command goes under server:`},
		{"checksum", svcHead + server + load + "    checksum: x\n", `s.yaml:7: workloads[0](web).checksum: a server prints no VBENCH line`},
		{"batch metric", svcHead + server + load + "    metric: kernel-cpu\n", `s.yaml:4: workloads[0](web).metric: a service workload is measured by rps, latency-p50, latency-p99 or cpu-per-request, got kernel-cpu`},
		{"rps for a program", "name: s\nmetric: rps\nbaseline: b.json\nworkloads:\n  - name: a\n    command: [true]\n", `s.yaml:5: workloads[0](a).metric: metric rps is measured by a load generator`},
		{"ready is the load's URL", svcHead + "    server: {command: [true], ready: \"http://127.0.0.1:{port}/w\"}\n" + "    load: {url: \"http://127.0.0.1:{port}/w?q=1\", handler: A.B.Work}\n", `s.yaml:5: workloads[0](web).server.ready: "http://127.0.0.1:{port}/w" is the load's URL path too: its probes would reach the handler A.B.Work`},
		{"ready is the load's URL, in other case", svcHead + "    server: {command: [true], ready: \"http://127.0.0.1:{port}/Work\"}\n" + "    load: {url: \"http://127.0.0.1:{port}/work\", handler: A.B.Work}\n", `s.yaml:5: workloads[0](web).server.ready: "http://127.0.0.1:{port}/Work" is the load's URL path too`},
		{"bad handler", svcHead + server + "    load: {url: \"http://127.0.0.1:{port}/w\", handler: Work}\n", `s.yaml:6: workloads[0].load.handler: must name a method as Namespace.Type.Method`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, t.TempDir(), "s.yaml", c.yaml)
			_, err := Load(p)
			if err == nil {
				t.Fatalf("accepted\n%s", c.yaml)
			}
			if got := strings.TrimPrefix(err.Error(), filepath.Dir(p)+"/"); !strings.HasPrefix(got, c.want) {
				t.Errorf("error\n  %s\nwant prefix\n  %s", got, c.want)
			}
		})
	}
}

// Without the load generator a service workload lacks it, naming the load
// and what installs it: the suite still reads (its other workloads run),
// and a run that selects the service is refused (runner.NewPlan).
func TestServiceWithoutLoadGenerator(t *testing.T) {
	bin := t.TempDir()
	if err := os.Symlink("/bin/true", filepath.Join(bin, "true")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	p := write(t, t.TempDir(), "s.yaml", svcHead+"    server: {command: [true], ready: \"http://127.0.0.1:{port}/\"}\n    load: {url: \"http://127.0.0.1:{port}/w\"}\n")
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	want := "s.yaml:6: workloads[0].load: the load generator hey is not installed (not found in PATH): scripts/ensure-loadgen.sh installs it"
	if l := s.Workloads[0].Lacks; l == nil || !strings.HasPrefix(strings.TrimPrefix(l.Error(), filepath.Dir(p)+"/"), want) {
		t.Errorf("lacks %v\nwant %s", l, want)
	}
}
