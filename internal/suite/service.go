package suite

// A service workload: a server started per run and driven by a load
// generator (runner/service.go). Its server's command reuses the workload's
// own project/args/command fields, read under server:.

import (
	"net"
	"net/url"
	"os/exec"
	"path"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"vbench/internal/results"
)

// Defaults of a service workload.
const (
	DefaultConnections  = 16
	DefaultLoadWarmup   = 1 * time.Second
	DefaultLoadDuration = 5 * time.Second
	DefaultReadyTimeout = 30 * time.Second
	DefaultStopGrace    = 5 * time.Second
	// Port is replaced in a service workload's command, env, ready and
	// load URLs by a free loopback port, a new one every run.
	Port = "{port}"
	// LoadGenerator is the program that drives a service: hey, which
	// stops a timed load by letting every request in flight finish and
	// reports each, so the requests it completed are the requests the
	// server handled (docs/suite.md, "Services").
	LoadGenerator = "hey"
)

// Server is how a service workload's server is started and stopped.
type Server struct {
	Ready        string        // URL polled until it answers 200; holds {port}
	ReadyTimeout time.Duration // how long the server may take to get ready
	StopGrace    time.Duration // SIGTERM, then SIGKILL after this
}

// LoadSpec is the load a service workload's server is driven with.
type LoadSpec struct {
	URL         string // holds {port}
	Connections int
	Warmup      time.Duration // load before the measured one; its requests count for Handler
	Duration    time.Duration // the measured load
	// Handler is the method that serves one request of URL
	// (Namespace.Type.Method): in a call-counting mode its calls must equal
	// the requests completed, warm-up included.
	Handler string
	// Generator is the load generator's absolute path (LoadGenerator, found
	// in PATH when the suite is read).
	Generator string
}

// server reads a workload's server: its command (command, or project and
// args, as a workload's own) into nodes and w, its readiness and stopping
// into w.Server.
func (p *parser) server(v *yaml.Node, f string, nodes *workloadNodes, w *Workload) {
	sv := &Server{ReadyTimeout: DefaultReadyTimeout, StopGrace: DefaultStopGrace}
	var ready *yaml.Node
	p.fields(v, f, []string{"command", "project", "args", "ready", "ready_timeout", "stop_grace"}, func(key string, k, vv *yaml.Node) {
		ff := join(f, key)
		switch key {
		case "command":
			nodes.command = vv
			w.Command = p.strList(vv, ff)
			if p.err == nil && len(w.Command) == 0 {
				p.fail(vv, ff, "must not be empty: give the program and its arguments as a list")
			}
		case "project":
			nodes.project = vv
			w.Project = p.str(vv, ff)
		case "args":
			nodes.args = vv
			w.Args = p.strList(vv, ff)
		case "ready":
			ready = vv
			sv.Ready = p.loopbackURL(vv, ff)
		case "ready_timeout":
			sv.ReadyTimeout = p.duration(vv, ff)
		case "stop_grace":
			sv.StopGrace = p.duration(vv, ff)
		}
	})
	if p.err == nil && ready == nil {
		p.fail(v, f+".ready", "missing: the URL vbench polls until the server answers 200, e.g. \"http://127.0.0.1:{port}/health\"")
	}
	nodes.server = v
	w.Server = sv
}

// load reads a workload's load.
func (p *parser) load(v *yaml.Node, f string, w *Workload) {
	ld := &LoadSpec{Connections: DefaultConnections, Warmup: DefaultLoadWarmup, Duration: DefaultLoadDuration}
	var u *yaml.Node
	p.fields(v, f, []string{"url", "connections", "warmup", "duration", "handler"}, func(key string, k, vv *yaml.Node) {
		ff := join(f, key)
		switch key {
		case "url":
			u = vv
			ld.URL = p.loopbackURL(vv, ff)
		case "connections":
			ld.Connections = p.integer(vv, ff, 1)
		case "warmup":
			ld.Warmup = 0
			if s := p.str(vv, ff); p.err == nil && s != "0" && s != "0s" {
				ld.Warmup = p.duration(vv, ff)
			}
		case "duration":
			ld.Duration = p.duration(vv, ff)
		case "handler":
			ld.Handler = p.str(vv, ff)
			if p.err == nil && strings.Count(ld.Handler, ".") < 1 {
				p.fail(vv, ff, "must name a method as Namespace.Type.Method (as the profile names it), got %q", ld.Handler)
			}
		}
	})
	if p.err == nil && u == nil {
		p.fail(v, f+".url", "missing: the URL the load generator requests, e.g. \"http://127.0.0.1:{port}/work\"")
	}
	if p.err != nil {
		return
	}
	gen, err := exec.LookPath(LoadGenerator)
	if err != nil {
		p.need(v, f, "the load generator %s is not installed (not found in PATH): scripts/ensure-loadgen.sh installs it (Debian package hey)", LoadGenerator)
	}
	ld.Generator = gen
	w.Load = ld
}

// loopbackURL reads an http URL on the loopback address: a service's
// server, probes and load stay on this machine.
func (p *parser) loopbackURL(n *yaml.Node, f string) string {
	s := p.str(n, f)
	if p.err != nil {
		return s
	}
	u, err := url.Parse(strings.ReplaceAll(s, Port, "1"))
	if err != nil || u.Scheme != "http" || u.Host == "" {
		p.fail(n, f, "must be an http URL such as \"http://127.0.0.1:{port}/path\", got %q", s)
		return s
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		p.fail(n, f, "must be on the loopback address (127.0.0.1, ::1 or localhost), got host %q", host)
	}
	return s
}

// samePath reports whether two loopback URLs (as loopbackURL read them)
// reach the same endpoint: the same port and path, the path's case aside
// (ASP.NET Core routes ignore it).
func samePath(a, b string) bool {
	ua, ea := url.Parse(strings.ReplaceAll(a, Port, "1"))
	ub, eb := url.Parse(strings.ReplaceAll(b, Port, "1"))
	return ea == nil && eb == nil && ua.Port() == ub.Port() && strings.EqualFold(path.Clean("/"+ua.Path), path.Clean("/"+ub.Path))
}

// service checks what only a whole service workload tells: a server and a
// load together, a service metric, no checksum (a server prints no VBENCH
// line). A service workload measures rps unless it names its metric.
func (p *parser) service(n *yaml.Node, field string, nodes workloadNodes, w *Workload, own bool) {
	if p.err != nil {
		return
	}
	switch {
	case w.Server == nil && w.Load == nil:
		if w.Metric.Service() {
			p.fail(n, field+".metric", "metric %s is measured by a load generator: it needs a service workload (server: and load:)", w.Metric)
		}
		return
	case w.Server == nil:
		p.fail(n, field+".server", "missing: a workload with load: needs the server it drives (server: {command: […], ready: URL})")
		return
	case w.Load == nil:
		p.fail(nodes.server, field+".load", "missing: a workload with server: needs a load (load: {url: URL, duration: 5s})")
		return
	case nodes.checksum != nil:
		p.fail(nodes.checksum, field+".checksum", "a server prints no VBENCH line: a service workload has no checksum (its handler's calls are checked instead)")
		return
	}
	if w.Load.Handler != "" && samePath(w.Server.Ready, w.Load.URL) {
		// Every readiness probe would be a call of the handler the load's
		// requests are counted against: the count would be off by the probes.
		p.fail(nodes.server, field+".server.ready", "%q is the load's URL path too: its probes would reach the handler %s, whose calls must equal the requests the load completed; poll another endpoint (e.g. /health)", w.Server.Ready, w.Load.Handler)
		return
	}
	if !own && !w.Metric.Service() {
		w.Metric = results.MetricRPS
	}
	if !w.Metric.Service() {
		p.fail(n, field+".metric", "a service workload is measured by %s, %s, %s or %s, got %s", results.MetricRPS, results.MetricLatencyP50, results.MetricLatencyP99, results.MetricCPUPerRequest, w.Metric)
	}
}
