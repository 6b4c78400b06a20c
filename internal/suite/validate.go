package suite

// The suite's top-level fields: defaults, required fields, and the ranges
// the harness and the profiler accept.

import (
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// suite reads the top-level mapping into s, starting from the defaults.
func (p *parser) suite(root *yaml.Node, s *Suite) {
	s.Runs, s.Warmup, s.Timeout = DefaultRuns, DefaultWarmup, DefaultTimeout
	s.MinChange, s.Alpha = DefaultMinChange, DefaultAlpha
	s.MinChangeInstructions = -1 // unset: see below
	s.Metric = results.MetricElapsed
	for _, m := range modes.Builtins {
		s.Modes = append(s.Modes, m)
		s.Specs = append(s.Specs, modes.BuiltinSpec(m))
	}
	var nameNode, workloadsNode, maxRunsNode, calibrationNode *yaml.Node
	baseline, history := "", ""
	p.fields(root, "", []string{"name", "runs", "max_runs", "warmup", "modes", "metric", "timeout", "profiler", "thresholds", "baseline", "history", "calibration", "workloads"}, func(key string, k, v *yaml.Node) {
		switch key {
		case "name":
			nameNode = v
			s.Name = p.name(v, key)
		case "runs":
			s.Runs = p.count(v, key, 1)
		case "max_runs":
			maxRunsNode = v
			s.MaxRuns = p.count(v, key, 1)
		case "warmup":
			s.Warmup = p.count(v, key, 0)
		case "modes":
			p.suiteModes(v, key, s)
		case "metric":
			s.Metric = p.metric(v, key)
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
		case "history":
			history = p.str(v, key)
			if p.err == nil && history == "" {
				p.fail(v, key, "must not be empty")
			}
		case "calibration":
			calibrationNode = v
			s.Calibration = p.name(v, key)
		case "workloads":
			workloadsNode = v
		}
	})
	if p.err != nil {
		return
	}
	if s.MinChangeInstructions < 0 {
		s.MinChangeInstructions = min(s.MinChange, DefaultMinChangeInstructions)
	}
	if maxRunsNode != nil && s.MaxRuns < s.Runs {
		p.fail(maxRunsNode, "max_runs", "%d is below runs (%d): max_runs caps the runs an undecided A/B pair may add, so it must be at least runs (equal adds none)", s.MaxRuns, s.Runs)
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
		baseline = filepath.Join("baselines", s.Name+".json")
	}
	s.Baseline = p.abs(baseline)
	if history == "" {
		history = filepath.Join(filepath.Dir(s.Baseline), s.Name+".history.jsonl")
	}
	s.History = p.abs(history)
	s.resolveModes()
	p.workloads(workloadsNode, s)
	if p.err == nil && calibrationNode != nil {
		p.calibration(calibrationNode, s)
	}
	if p.err == nil {
		p.expandScales(s)
	}
}

// calibration checks the suite's calibration: a batch workload of the
// suite (a service's rps is no machine speed), in no A/B pair (its cells
// must measure the same program every run).
func (p *parser) calibration(n *yaml.Node, s *Suite) {
	var names []string
	for _, w := range s.Workloads {
		names = append(names, w.Name)
	}
	i := slices.IndexFunc(s.Workloads, func(w Workload) bool { return w.Name == s.Calibration })
	if i < 0 {
		p.fail(n, "calibration", "unknown workload %q: the calibration is a workload of the suite whose program never changes, run beside the others to measure the machine (its workloads: %s)", s.Calibration, strings.Join(names, ", "))
		return
	}
	c := &s.Workloads[i]
	switch {
	case c.Server != nil:
		p.fail(n, "calibration", "workload %s is a service: the calibration must be a batch program (its time stands for the machine's speed)", c.Name)
	case p.scales[c.Name] != nil:
		p.fail(n, "calibration", "workload %s is scaled: the calibration must be one program at one size, the same in every run", c.Name)
	case c.Against != "":
		p.fail(n, "calibration", "workload %s is judged against %s: the calibration must be one program, the same in every run", c.Name, c.Against)
	case len(s.Workloads) == 1:
		p.fail(n, "calibration", "workload %s is the suite's only workload: nothing is left to calibrate", c.Name)
	}
	for _, w := range s.Workloads {
		if p.err == nil && w.Against == c.Name {
			p.fail(n, "calibration", "workload %s is judged against %s: the calibration must be one program, the same in every run", w.Name, c.Name)
		}
	}
}

// abs resolves a path from the suite against the suite file's directory.
func (p *parser) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(p.dir, path)
}

// profiler reads the suite's profiler block: the settings of the built-in
// engine modes, and the defaults of the engine modes the suite defines.
func (p *parser) profiler(n *yaml.Node, field string, pr *Profiler) {
	p.fields(n, field, settingFields, func(key string, k, v *yaml.Node) {
		p.setting(key, v, join(field, key), pr)
	})
}

// measureThresholds reads thresholds.metrics: each judged measure's own
// minimum change (ParseMeasureMinChange).
func (p *parser) measureThresholds(n *yaml.Node, field string, s *Suite) {
	var judged []string
	for _, m := range results.Measures {
		if m.Judged() {
			judged = append(judged, string(m))
		}
	}
	p.fields(n, field, judged, func(key string, k, v *yaml.Node) {
		f := join(field, key)
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			p.fail(v, f, "must be a minimum change like \"5%% 1MB\", got %s", kindName(v))
			return
		}
		m := results.Measure(key)
		mc, err := ParseMeasureMinChange(m, v.Value)
		if err != nil {
			p.fail(v, f, "%s", err)
			return
		}
		if s.MeasureMinChange == nil {
			s.MeasureMinChange = map[results.Measure]results.MinChange{}
		}
		s.MeasureMinChange[m] = mc
	})
}

func (p *parser) thresholds(n *yaml.Node, field string, s *Suite) {
	p.fields(n, field, []string{"min_change", "min_change_instructions", "alpha", "metrics"}, func(key string, k, v *yaml.Node) {
		f := join(field, key)
		switch key {
		case "min_change", "min_change_instructions":
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
				p.fail(v, f, "must be a number or a percentage, got %s", kindName(v))
				return
			}
			mc, err := ParseMinChange(v.Value)
			if err != nil {
				p.fail(v, f, "%s", err)
			}
			if key == "min_change" {
				s.MinChange = mc
			} else {
				s.MinChangeInstructions = mc
			}
		case "metrics":
			p.measureThresholds(v, f, s)
		case "alpha":
			s.Alpha = p.fraction(v, f)
			if p.err == nil && !(s.Alpha > 0 && s.Alpha < 0.5) { // NaN too
				p.fail(v, f, "must be a significance level between 0 and 0.5 (e.g. 0.01), got %v", v.Value)
			}
		}
	})
}
