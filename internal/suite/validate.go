package suite

// The suite's top-level fields: defaults, required fields, and the ranges
// the harness and the profiler accept.

import (
	"path/filepath"

	"gopkg.in/yaml.v3"

	"vbench/internal/attach"
	"vbench/internal/results"
)

// suite reads the top-level mapping into s, starting from the defaults.
func (p *parser) suite(root *yaml.Node, s *Suite) {
	s.Runs, s.Warmup, s.Timeout = DefaultRuns, DefaultWarmup, DefaultTimeout
	s.MinChange, s.Alpha = DefaultMinChange, DefaultAlpha
	s.Modes = append([]results.Mode(nil), results.BuiltinModes...)
	var nameNode, workloadsNode *yaml.Node
	baseline := ""
	p.fields(root, "", []string{"name", "runs", "warmup", "modes", "timeout", "profiler", "thresholds", "baseline", "workloads"}, func(key string, k, v *yaml.Node) {
		switch key {
		case "name":
			nameNode = v
			s.Name = p.name(v, key)
		case "runs":
			s.Runs = p.integer(v, key, 1)
		case "warmup":
			s.Warmup = p.integer(v, key, 0)
		case "modes":
			s.Modes = p.modes(v, key)
		case "timeout":
			s.Timeout = p.duration(v, key)
		case "profiler":
			p.profiler(v, key, &s.Profiler)
		case "thresholds":
			p.thresholds(v, key, s)
		case "baseline":
			baseline = p.str(v, key)
			if p.err == nil && baseline == "" {
				p.fail(v, key, "must not be empty")
			}
		case "workloads":
			workloadsNode = v
		}
	})
	if p.err != nil {
		return
	}
	if nameNode == nil {
		p.fail(root, "name", "missing: every suite needs a name (results and baselines are keyed by it)")
		return
	}
	if workloadsNode == nil {
		p.fail(root, "workloads", "missing: list at least one workload")
		return
	}
	if baseline == "" {
		baseline = filepath.Join("..", "baselines", s.Name+".json")
	}
	s.Baseline = p.abs(baseline)
	p.workloads(workloadsNode, s)
}

// abs resolves a path from the suite against the suite file's directory.
func (p *parser) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(p.dir, path)
}

func (p *parser) profiler(n *yaml.Node, field string, pr *Profiler) {
	p.fields(n, field, []string{"interval", "include", "exclude"}, func(key string, k, v *yaml.Node) {
		f := join(field, key)
		switch key {
		case "interval":
			// The profiler declines to load with any other interval, which
			// would fail every profiled cell after the build: refuse it here.
			pr.Interval = p.duration(v, f)
			if p.err == nil && (pr.Interval < attach.MinInterval || pr.Interval > attach.MaxInterval) {
				p.fail(v, f, "must be between %v and %v (what the profiler accepts), got %s", attach.MinInterval, attach.MaxInterval, v.Value)
			}
		case "include":
			pr.Include = p.strList(v, f)
		case "exclude":
			pr.Exclude = p.strList(v, f)
		}
	})
}

func (p *parser) thresholds(n *yaml.Node, field string, s *Suite) {
	p.fields(n, field, []string{"min_change", "alpha"}, func(key string, k, v *yaml.Node) {
		f := join(field, key)
		switch key {
		case "min_change":
			s.MinChange = p.fraction(v, f)
			if p.err == nil && !(s.MinChange >= 0 && s.MinChange < 1) { // NaN too
				p.fail(v, f, "must be between 0%% and 100%%, got %v", v.Value)
			}
		case "alpha":
			s.Alpha = p.fraction(v, f)
			if p.err == nil && !(s.Alpha > 0 && s.Alpha < 0.5) { // NaN too
				p.fail(v, f, "must be a significance level between 0 and 0.5 (e.g. 0.01), got %v", v.Value)
			}
		}
	})
}
