package suite

// The suite's modes: built-in names and modes defined in the suite (a name,
// an optional engine of vbench's profiler with its settings, another build
// of the profiler, an environment), and the metric a workload is measured by.
// What a mode is, and the settings' ranges, live in internal/modes: this
// file reads them from YAML, with line and field in every error.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/results"
)

// settingFields are the profiler settings a suite's profiler block and an
// engine mode may give: the settings table's.
var settingFields = modes.SettingNames()

// modeFields are the fields of a mode defined in the suite.
var modeFields = append([]string{"name", "engine", "profiler", "env", "against", "profile", "wrap", "attach"}, settingFields...)

// suiteModes reads the suite's modes: each entry a built-in mode's name or
// a mapping defining a mode. The built-in modes' definitions get the suite's
// profiler settings later (resolveModes), when the whole suite is read.
func (p *parser) suiteModes(n *yaml.Node, field string, s *Suite) {
	if n.Kind != yaml.SequenceNode {
		p.fail(n, field, "must be a list of modes, got %s", kindName(n))
		return
	}
	if len(n.Content) == 0 {
		p.fail(n, field, "must list at least one mode (%s, or a mapping defining one)", modes.List(modes.Builtins))
		return
	}
	s.Modes, s.Specs = nil, nil
	lines := map[modes.Mode]int{}
	type against struct {
		node  *yaml.Node
		field string
		owner modes.Mode
	}
	var againsts []against // the against: fields, checked once every mode is known
	for i, e := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		var spec modes.Spec
		if e.Kind == yaml.MappingNode {
			var an *yaml.Node
			p.lack = nil
			spec, an = p.modeSpec(e, f)
			if p.lack != nil {
				if s.ModeLacks == nil {
					s.ModeLacks = map[modes.Mode]*Error{}
				}
				s.ModeLacks[spec.Name], p.lack = p.lack, nil
			}
			if an != nil {
				againsts = append(againsts, against{an, fmt.Sprintf("%s(%s).against", f, spec.Name), spec.Name})
			}
		} else {
			// YAML reads a bare null as "no value"; in a mode list it is the null mode.
			if e.Kind == yaml.ScalarNode && e.Tag == "!!null" && e.Value == "null" {
				e.Tag = "!!str"
			}
			m := modes.Mode(p.str(e, f))
			if p.err == nil && !m.Builtin() {
				p.fail(e, f, "unknown mode %q (known: %s; define other modes as a mapping with a name)", m, modes.List(modes.Builtins))
			}
			spec = modes.BuiltinSpec(m)
		}
		if p.err != nil {
			return
		}
		if line, dup := lines[spec.Name]; dup {
			p.fail(e, f, "mode %q listed twice (first at line %d)", spec.Name, line)
			return
		}
		lines[spec.Name] = e.Line
		s.Modes = append(s.Modes, spec.Name)
		s.Specs = append(s.Specs, spec)
	}
	// A mode is judged against another of the same run: one the suite lists,
	// and not itself.
	for _, a := range againsts {
		switch m := modes.Mode(a.node.Value); {
		case m == a.owner:
			p.fail(a.node, a.field, "a mode cannot be judged against itself: name another mode of the suite (its modes: %s)", modes.List(s.Modes))
			return
		case !slices.Contains(s.Modes, m):
			p.fail(a.node, a.field, "unknown mode %q: a mode is judged against another mode of the suite (its modes: %s)", m, modes.List(s.Modes))
			return
		}
	}
}

// modeNodes are the nodes of a mode's fields that checks after the field
// loop point at.
type modeNodes struct {
	name, engine, profiler, env, against, profile, wrap, attach, setting *yaml.Node
	settingKey                                                           string
	settings                                                             []*yaml.Node // every setting's key node, in order
}

// modeSpec reads a mode defined in the suite, and the node of its against
// field (nil without one), which suiteModes checks once every mode is known.
func (p *parser) modeSpec(n *yaml.Node, field string) (modes.Spec, *yaml.Node) {
	var spec modes.Spec
	var nodes modeNodes
	p.fields(n, field, modeFields, func(key string, k, v *yaml.Node) {
		f := join(field, key)
		switch key {
		case "name":
			nodes.name = v
			spec.Name = modes.Mode(p.name(v, f))
		case "engine":
			nodes.engine = v
			// A bare null is YAML's "no value"; here it is the null engine.
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" && v.Value == "null" {
				v.Tag = "!!str"
			}
			spec.Engine = modes.Engine(p.str(v, f))
		case "profiler":
			nodes.profiler = v
			spec.Profiler = p.str(v, f)
		case "env":
			nodes.env = v
			spec.Env = map[string]string{}
			p.envMap(v, f, spec.Env)
		case "against":
			nodes.against = v
			spec.Against = modes.Mode(p.str(v, f))
		case "profile":
			nodes.profile = v
			spec.Profile = p.profileFile(v, f)
		case "wrap":
			nodes.wrap = v
			spec.Wrap = p.strList(v, f)
		case "attach":
			nodes.attach = v
			spec.Attach = p.attachPlan(v, f)
		default:
			if nodes.setting == nil {
				nodes.setting, nodes.settingKey = k, key
			}
			nodes.settings = append(nodes.settings, k)
			p.setting(key, v, f, &spec.ProfilerSettings)
		}
	})
	if p.err != nil {
		return spec, nodes.against
	}
	if nodes.name == nil {
		p.fail(n, field+".name", "missing: a mode defined in the suite needs a name")
		return spec, nodes.against
	}
	if spec.Name.Builtin() {
		p.fail(nodes.name, field+".name", "%q is a built-in mode: list it by name, or give this mode a name of its own", spec.Name)
		return spec, nodes.against
	}
	field = fmt.Sprintf("%s(%s)", field, spec.Name)
	if nodes.wrap != nil {
		// A command the workload runs under (perf record, strace): its
		// program is found as a workload's command is.
		if len(spec.Wrap) == 0 {
			p.fail(nodes.wrap, field+".wrap", "must not be empty: give the wrapper and its arguments as a list; it runs the workload's command after them")
			return spec, nodes.against
		}
		if spec.Wrap[0] = p.resolveCommand(nodes.wrap.Content[0], field+".wrap[0]", spec.Wrap[0]); p.err != nil {
			return spec, nodes.against
		}
	}
	switch {
	case nodes.engine == nil:
	case spec.Engine == modes.Engine(modes.None):
		p.fail(nodes.engine, field+".engine", "%q is not an engine: leave engine out for a mode that loads no vbench profiler", spec.Engine)
	case !spec.Engine.Valid():
		p.fail(nodes.engine, field+".engine", "unknown engine %q (known: %s)", spec.Engine, modes.List(modes.Engines))
	}
	if p.err != nil {
		return spec, nodes.against
	}
	if spec.Attach != nil {
		p.attachMode(nodes.attach, field+".attach", &spec, nodes.wrap)
		if p.attachLines == nil {
			p.attachLines = map[modes.Mode]int{}
		}
		p.attachLines[spec.Name] = nodes.attach.Line
		if p.err != nil {
			return spec, nodes.against
		}
	}
	if spec.Engine != "" && nodes.profile != nil {
		p.fail(nodes.profile, field+".profile", "an engine mode's profile is vbench's own, read after every run already: profile names what another profiler writes, in a mode without engine")
		return spec, nodes.against
	}
	if spec.Engine == "" {
		// Without an engine nothing of vbench's is loaded: its settings
		// would silently do nothing.
		if nodes.profiler != nil {
			p.fail(nodes.profiler, field+".profiler", "needs an engine: a mode without engine loads no vbench profiler (load another profiler through env)")
		} else if nodes.setting != nil {
			p.fail(nodes.setting, field+"."+nodes.settingKey, "a profiler setting needs an engine: a mode without engine loads no vbench profiler")
		} else if nodes.env != nil {
			p.foreignProfiler(nodes.env, field+".env")
		}
		return spec, nodes.against
	}
	// A setting its engine does not read would silently do nothing (an
	// interval on a tracing mode). The suite's profiler block may hold any:
	// it serves every engine mode.
	for _, k := range nodes.settings {
		if !spec.Engine.Uses(k.Value) && !falseBool(&spec.ProfilerSettings, k.Value) {
			p.fail(k, field+"."+k.Value, "does nothing under engine %s: only %s read it", spec.Engine, modes.List(modes.UsedBy(k.Value)))
			return spec, nodes.against
		}
	}
	if nodes.profiler != nil {
		spec.Profiler = p.profilerLibrary(nodes.profiler, field+".profiler", spec.Profiler)
	}
	if nodes.env != nil {
		p.engineEnv(nodes.env, field+".env")
	}
	return spec, nodes.against
}

// profilerLibrary checks another build of the profiler given by a mode, as
// `vbench run` checks its own library: before anything is built or run.
func (p *parser) profilerLibrary(n *yaml.Node, field, path string) string {
	if path == "" {
		p.fail(n, field, "must not be empty")
		return path
	}
	abs := p.abs(path)
	if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
		p.fail(n, field, "%s does not exist", abs)
		return abs
	}
	lib, err := attach.Check(abs)
	if err != nil {
		p.fail(n, field, "%v", err)
	}
	return lib
}

// foreignProfiler checks the library an engine-less mode's env names as
// the CoreCLR profiler (CORECLR_PROFILER_PATH, CORECLR_PROFILER_PATH_64) as
// attach.Check checks vbench's own: the runtime silently runs without a
// profiler it cannot load, and the mode would then measure nothing while
// printing a believable overhead. A value with a placeholder ({rundir})
// names a file that exists only once a run starts: the runner checks at
// run time that every run mapped the library (runner's loaded.go).
func (p *parser) foreignProfiler(n *yaml.Node, field string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(attach.ProfilerPathVars, k.Value) {
			continue
		}
		f := field + "." + k.Value
		switch path := v.Value; {
		case path == "":
			p.fail(v, f, "must name the profiler library: with an empty path the runtime loads no profiler")
		case strings.Contains(path, "{") && strings.Contains(path, "}"):
			// a placeholder: checked when each run starts
		case !filepath.IsAbs(path):
			p.fail(v, f, "%q is a relative path: give the profiler library's absolute path (the runtime would look for it from each workload's directory)", path)
		default:
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				p.fail(v, f, "%s: no such file: the runtime would silently run without the profiler, and the mode would measure nothing", path)
			} else if _, err := attach.Check(path); err != nil {
				p.fail(v, f, "%v", err)
			}
		}
		if p.err != nil {
			return
		}
	}
	env := map[string]string{}
	keyNode := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		env[n.Content[i].Value] = n.Content[i+1].Value
		keyNode[n.Content[i].Value] = n.Content[i]
	}
	if pr := attach.CheckProfilerEnv(env); pr != nil {
		if pr.Var == "" {
			p.fail(n, field, "%s", pr.Msg)
		} else {
			p.fail(keyNode[pr.Var], field+"."+pr.Var, "%s", pr.Msg)
		}
	}
}

// engineEnv refuses, in an engine mode's env, the variables vbench sets to
// load its profiler and configure it: they would fight over the library.
func (p *parser) engineEnv(n *yaml.Node, field string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if attach.LoadsProfiler(k.Value) || strings.HasPrefix(k.Value, "VBENCH_") {
			p.fail(k, field+"."+k.Value, "set by vbench for a mode with an engine: use the mode's fields (engine, profiler, %s)", strings.Join(settingFields, ", "))
			return
		}
	}
}

// falseBool reports whether setting key is a bool given false: it asks for
// nothing, whatever the engine.
func falseBool(ps *modes.ProfilerSettings, key string) bool {
	b, ok := modes.FieldNamed(key).Ptr(ps).(*bool)
	return ok && !*b
}

// setting reads one profiler setting into ps, checked against the settings
// table's bounds: the profiler declines to load with anything else, which
// would fail every run after the build. (Durations and integers are already
// > 0 here.)
func (p *parser) setting(key string, v *yaml.Node, f string, ps *modes.ProfilerSettings) {
	fd := modes.FieldNamed(key)
	switch ptr := fd.Ptr(ps).(type) {
	case *modes.Duration:
		d := p.duration(v, f)
		if p.err == nil && !fd.Accepts(int64(d)) {
			min, max := fd.Bounds.Range()
			p.fail(v, f, "must be between %v and %v (what the profiler accepts), got %s", min, max, v.Value)
		}
		*ptr = modes.Duration(d)
	case *int:
		min, _ := fd.Bounds.Range()
		n := p.integer(v, f, int(min.(int)))
		if p.err == nil && !fd.Accepts(int64(n)) {
			p.fail(v, f, "must be %s (what the profiler accepts), got %d", fd.Want(), n)
		}
		*ptr = n
	case *bool:
		*ptr = p.boolean(v, f)
	case *[]string:
		*ptr = p.strList(v, f)
	}
}

// resolveModes gives the engine modes the suite's profiler settings: the
// built-in ones take them as they are, modes defined in the suite take each
// setting they leave out. Called once the whole suite is read, since the
// profiler block may follow the modes.
func (s *Suite) resolveModes() {
	for i := range s.Specs {
		sp := &s.Specs[i]
		if sp.Engine == "" {
			continue
		}
		sp.ProfilerSettings = modes.Inherit(sp.ProfilerSettings, s.Profiler)
	}
}

// Spec is the definition of mode m: the suite's, or a built-in mode's with
// the suite's profiler settings (a built-in mode the suite does not list can
// still be chosen with --modes). ok is false for a mode the suite does not know.
func (s *Suite) Spec(m modes.Mode) (spec modes.Spec, ok bool) {
	for _, sp := range s.Specs {
		if sp.Name == m {
			return sp, true
		}
	}
	if !m.Builtin() {
		return modes.Spec{}, false
	}
	sp := modes.BuiltinSpec(m)
	if sp.Engine != "" {
		sp.ProfilerSettings = s.Profiler
	}
	return sp, true
}

// KnownModes is every mode name the suite can run: the built-in ones, then
// the ones it defines.
func (s *Suite) KnownModes() []modes.Mode {
	all := append([]modes.Mode(nil), modes.Builtins...)
	for _, sp := range s.Specs {
		if !slices.Contains(all, sp.Name) {
			all = append(all, sp.Name)
		}
	}
	return all
}

// metric reads a metric's name.
func (p *parser) metric(n *yaml.Node, field string) results.Metric {
	m := results.Metric(p.str(n, field))
	if p.err == nil && !m.Valid() {
		p.fail(n, field, "unknown metric %q (known: %s)", m, modes.List(results.Metrics))
	}
	return m
}
