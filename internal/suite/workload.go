package suite

// A workload's fields: what to run (a project to build or a command), its
// environment, directory and mode subset.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"vbench/internal/attach"
	"vbench/internal/modes"
)

func (p *parser) workloads(n *yaml.Node, s *Suite) {
	if n.Kind != yaml.SequenceNode {
		p.fail(n, "workloads", "must be a list of workloads, got %s", kindName(n))
		return
	}
	if len(n.Content) == 0 {
		p.fail(n, "workloads", "must list at least one workload")
		return
	}
	seen := map[string]int{}
	for i, wn := range n.Content {
		field := fmt.Sprintf("workloads[%d]", i)
		w := p.workload(wn, field, s)
		if p.err != nil {
			return
		}
		if line, dup := seen[w.Name]; dup {
			p.fail(wn, field+".name", "duplicate workload name %q (first defined at line %d)", w.Name, line)
			return
		}
		seen[w.Name] = wn.Line
		s.Workloads = append(s.Workloads, w)
	}
	for i, wn := range n.Content {
		p.workloadAgainst(wn, fmt.Sprintf("workloads[%d](%s).against", i, s.Workloads[i].Name), s, &s.Workloads[i])
		if p.err != nil {
			return
		}
	}
}

// workloadAgainst checks a workload's against: once every workload is
// known. The other workload must be another of the suite, itself judged
// against nothing (a pair is two workloads: no chains, so no cycles), with
// the same metric (a pair compares one metric round by round), running
// under every mode this one does; and the suite's modes must not say
// against: too (which cell a cell is judged against would be ambiguous:
// results.File.ReferenceKey).
func (p *parser) workloadAgainst(n *yaml.Node, field string, s *Suite, w *Workload) {
	if w.Against == "" {
		return
	}
	an := valueOf(n, "against")
	var names []string
	for _, o := range s.Workloads {
		names = append(names, o.Name)
	}
	i := slices.IndexFunc(s.Workloads, func(o Workload) bool { return o.Name == w.Against })
	if i < 0 {
		p.fail(an, field, "unknown workload %q: a workload is judged against another workload of the suite (its workloads: %s)", w.Against, strings.Join(names, ", "))
		return
	}
	o := &s.Workloads[i]
	switch {
	case o.Name == w.Name:
		p.fail(an, field, "a workload cannot be judged against itself: name another workload of the suite (e.g. the base build of the same program)")
	case o.Against != "":
		p.fail(an, field, "workload %s is itself judged against %s: a pair is two workloads, so point %s at %s too, or drop one against:", o.Name, o.Against, w.Name, o.Against)
	case !sameScale(p.scales[w.Name], p.scales[o.Name]):
		p.fail(an, field, "workload %s and %s are not scaled alike: a pair gives the same scale: (arg and sizes), or neither does", o.Name, w.Name)
	case o.Metric.OrDefault() != w.Metric.OrDefault():
		p.fail(an, field, "workload %s is measured by %s and %s by %s: a pair is judged round by round on one metric", o.Name, o.Metric.OrDefault(), w.Name, w.Metric.OrDefault())
	}
	if p.err != nil {
		return
	}
	for _, m := range w.EffectiveModes(s) {
		if !slices.Contains(o.EffectiveModes(s), m) {
			p.fail(an, field, "workload %s does not run under mode %s, which %s does: a pair runs under the same modes", o.Name, m, w.Name)
			return
		}
	}
	for _, sp := range s.Specs {
		if sp.Against != "" {
			p.fail(an, field, "mode %s of the suite is judged against mode %s: a suite judges modes against each other or workloads, not both (split it into two suites)", sp.Name, sp.Against)
			return
		}
	}
}

// valueOf is the value node of key in mapping n (n itself when absent).
func valueOf(n *yaml.Node, key string) *yaml.Node {
	for j := 0; j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value == key {
			return n.Content[j+1]
		}
	}
	return n
}

// workload reads one workload: its fields first, then what only the whole
// workload can tell (project or command, its modes among the suite's, cwd).
// Errors after the fields name the workload: "workloads[1](fib).project".
func (p *parser) workload(n *yaml.Node, field string, s *Suite) (w Workload) {
	w = Workload{Line: n.Line}
	p.lack = nil
	defer func() { w.Lacks, p.lack = p.lack, nil }()
	var nodes workloadNodes
	var scale *scaleSpec
	env := map[string]string{}
	w.Metric = s.Metric
	ownMetric := false
	p.fields(n, field, []string{"name", "project", "args", "command", "server", "load", "env", "cwd", "checksum", "metric", "runs", "timeout", "modes", "against", "instructions", "scale"}, func(key string, k, v *yaml.Node) {
		f := join(field, key)
		switch key {
		case "name":
			w.Name = p.name(v, f)
		case "project":
			if nodes.server != nil {
				p.fail(v, f, "a service's project goes under server:")
				return
			}
			nodes.project = v
			w.Project = p.str(v, f)
		case "args":
			nodes.args = v
			w.Args = p.strList(v, f)
		case "command":
			if nodes.server != nil {
				p.fail(v, f, "a service's command goes under server:")
				return
			}
			nodes.command = v
			w.Command = p.strList(v, f)
			if p.err == nil && len(w.Command) == 0 {
				p.fail(v, f, "must not be empty: give the program and its arguments as a list")
			}
		case "env":
			p.env(v, f, env)
		case "cwd":
			nodes.cwd = v
			w.Cwd = p.str(v, f)
		case "server":
			if nodes.project != nil || nodes.command != nil {
				p.fail(v, f, "a service's command goes under server: (server: {command: […]} or {project: …, args: […]}), not beside it")
				return
			}
			nodes.prefix = ".server"
			p.server(v, f, &nodes, &w)
		case "load":
			p.load(v, f, &w)
		case "checksum":
			nodes.checksum = v
			w.Checksum = p.str(v, f)
		case "metric":
			ownMetric = true
			w.Metric = p.metric(v, f)
		case "runs":
			w.Runs = p.count(v, f, 1)
		case "timeout":
			w.Timeout = p.duration(v, f)
		case "modes":
			w.Modes = p.modeNames(v, f)
		case "against":
			w.Against = p.name(v, f)
		case "instructions":
			w.Instructions = p.instructionSize(v, f)
		case "scale":
			scale = p.scale(v, f)
		}
	})
	if p.err != nil {
		return w
	}
	if w.Name == "" {
		p.fail(n, field+".name", "missing: every workload needs a name")
		return w
	}
	field = fmt.Sprintf("%s(%s)", field, w.Name)
	p.service(n, field, nodes, &w, ownMetric)
	p.target(n, field, nodes, &w)
	p.modeSubset(n, field, s, &w)
	p.attachWorkload(n, field, s, &w)
	p.cwd(nodes.cwd, field+".cwd", &w)
	p.checkScale(field, &w, scale)
	if scale != nil {
		if p.scales == nil {
			p.scales = map[string]*scaleSpec{}
		}
		p.scales[w.Name] = scale
	}
	if p.err != nil {
		return w
	}
	for k, v := range env {
		w.Env = append(w.Env, k+"="+v)
	}
	sort.Strings(w.Env)
	return w
}

// workloadNodes are the nodes of a workload's fields that checks after the
// field loop point at (nil: the field is absent).
type workloadNodes struct {
	project, args, command, cwd, checksum, server *yaml.Node
	prefix                                        string // ".server" when the command is a server's
}

// env reads a workload's environment variables into env. Variables that
// load a profiler are refused: every mode's runs get the workload's env, so
// they would load it into mode none too.
func (p *parser) env(v *yaml.Node, f string, env map[string]string) {
	p.envMap(v, f, env)
	for i := 0; p.err == nil && i+1 < len(v.Content); i += 2 {
		if kk := v.Content[i]; attach.LoadsProfiler(kk.Value) {
			p.fail(kk, f+"."+kk.Value, "profiler variables are set by vbench for each mode (use the suite's profiler settings, or define a mode whose env loads another profiler)")
		}
	}
}

// envMap reads a mapping of environment variables into env.
func (p *parser) envMap(v *yaml.Node, f string, env map[string]string) {
	if v.Kind != yaml.MappingNode {
		p.fail(v, f, "must be a mapping of variable names to values, got %s", kindName(v))
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		kk, vv := v.Content[i], v.Content[i+1]
		name := kk.Value
		if _, dup := env[name]; dup {
			p.fail(kk, f+"."+name, "defined twice")
			return
		}
		if name == "" || strings.ContainsAny(name, "= \t") {
			p.fail(kk, f+"."+name, "invalid environment variable name")
			return
		}
		env[name] = p.str(vv, f+"."+name)
		if p.err != nil {
			return
		}
	}
}

// target checks what the workload runs: a project to build (with args) or
// a command, exactly one of them.
func (p *parser) target(n *yaml.Node, field string, nodes workloadNodes, w *Workload) {
	field += nodes.prefix
	if nodes.server != nil {
		n = nodes.server
	}
	switch {
	case nodes.project != nil && nodes.command != nil:
		p.fail(nodes.command, field+".command", "give either project or command, not both")
	case nodes.project == nil && nodes.command == nil:
		p.fail(n, field, "needs either project (a C# project to build) or command (an argv list)")
	case nodes.command != nil && nodes.args != nil:
		p.fail(nodes.args, field+".args", "args go with project; put a command's arguments in the command list")
	case nodes.project != nil:
		w.Project = p.abs(w.Project)
		p.checkProject(nodes.project, field+".project", w)
	default:
		w.Command[0] = p.resolveCommand(nodes.command, field+".command[0]", w.Command[0])
	}
}

// modeSubset checks that a workload's own modes are among the suite's.
func (p *parser) modeSubset(n *yaml.Node, field string, s *Suite, w *Workload) {
	if p.err != nil || w.Modes == nil {
		return
	}
	for i, m := range w.Modes {
		if !slices.Contains(s.Modes, m) {
			p.fail(w.modeNode(n, i), fmt.Sprintf("%s.modes[%d]", field, i), "mode %q is not among the suite's modes [%s]", m, modes.List(s.Modes))
			return
		}
	}
}

// cwd resolves the workload's directory: cwd, or the suite file's directory.
func (p *parser) cwd(n *yaml.Node, field string, w *Workload) {
	if p.err != nil {
		return
	}
	if n == nil {
		w.Cwd = p.dir
		return
	}
	w.Cwd = p.abs(w.Cwd)
	if fi, err := os.Stat(w.Cwd); err != nil || !fi.IsDir() {
		p.fail(n, field, "%s is not a directory", w.Cwd)
	}
}

func (w *Workload) modeNode(n *yaml.Node, i int) *yaml.Node {
	for j := 0; j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value == "modes" && i < len(n.Content[j+1].Content) {
			return n.Content[j+1].Content[i]
		}
	}
	return n
}

// checkProject accepts a .csproj file, or a directory holding exactly one.
func (p *parser) checkProject(n *yaml.Node, field string, w *Workload) {
	fi, err := os.Stat(w.Project)
	if err != nil {
		p.fail(n, field, "%s does not exist", w.Project)
		return
	}
	if fi.IsDir() {
		m, _ := filepath.Glob(filepath.Join(w.Project, "*.csproj"))
		if len(m) != 1 {
			p.fail(n, field, "%s holds %d .csproj files; name the project file", w.Project, len(m))
			return
		}
		w.Project = m[0]
		return
	}
	if filepath.Ext(w.Project) != ".csproj" {
		p.fail(n, field, "%s is not a .csproj file", w.Project)
	}
}

// resolveCommand finds argv[0]: a name without a slash is looked up in PATH
// (as a shell would, but without one), a path with a slash is taken relative
// to the suite file's directory.
func (p *parser) resolveCommand(n *yaml.Node, field, name string) string {
	if name == "" {
		p.fail(n, field, "must not be empty")
		return name
	}
	if !strings.Contains(name, "/") {
		path, err := exec.LookPath(name)
		if err != nil {
			p.need(n, field, "command %q not found in PATH", name)
			return name
		}
		return path
	}
	path := p.abs(name)
	fi, err := os.Stat(path)
	if err != nil {
		p.fail(n, field, "command %s not found", path)
		return name
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		p.fail(n, field, "command %s is not an executable file", path)
	}
	return path
}

// instructionSize reads a workload's instructions: field, the size it runs
// at when measured in instructions (a process under valgrind runs ~30-50x
// slower: a kernel of seconds takes minutes there).
func (p *parser) instructionSize(n *yaml.Node, field string) *Size {
	sz := &Size{}
	var args *yaml.Node
	p.fields(n, field, []string{"args", "checksum", "runs", "timeout"}, func(key string, k, v *yaml.Node) {
		f := join(field, key)
		switch key {
		case "args":
			args = v
			sz.Args = p.strList(v, f)
		case "checksum":
			sz.Checksum = p.str(v, f)
		case "runs":
			sz.Runs = p.integer(v, f, 2) // one run a side estimates no spread
		case "timeout":
			sz.Timeout = p.duration(v, f)
		}
	})
	if p.err == nil && args == nil {
		p.fail(n, field+".args", "missing: the arguments the workload runs with under metric instructions (a project's args, or a command's arguments after its program)")
	}
	return sz
}
