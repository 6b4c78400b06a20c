package suite

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gopkg.in/yaml.v3"

	"vbench/internal/attach"
	"vbench/internal/modes"
)

// FuzzParse feeds the suite reader arbitrary bytes, starting from the
// committed corpus in testdata/fuzz/FuzzParse (the benchmarks' suites, the
// CLI scripts' suites, crashers found earlier). Properties:
//   - it never panics;
//   - an error is a *suite.Error naming this file and a line inside it;
//   - an accepted suite satisfies every documented rule (checkSuite);
//   - an accepted suite written back as YAML parses to the same suite.
//
// The suite is parsed as if it lived in benchmarks/, so the real projects'
// relative paths resolve, and a stub "fakework" is on PATH for the CLI
// scripts' suites.
func FuzzParse(f *testing.F) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "benchmarks"))
	if err != nil {
		f.Fatal(err)
	}
	bin := f.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "fakework"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		f.Fatal(err)
	}
	os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	path := filepath.Join(dir, "fuzz.yaml")
	f.Add([]byte("name: x\nworkloads:\n  - name: a\n    command: [true]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Go's fuzzer has no hang detection: a stuck worker just stops
		// counting. A panic makes it save the input as a crasher.
		wd := time.AfterFunc(30*time.Second, func() { panic(fmt.Sprintf("Parse hangs (over 30s) on %q", data)) })
		defer wd.Stop()
		s, err := Parse(path, data)
		if err != nil {
			checkError(t, path, data, err)
			return
		}
		checkSuite(t, s)
		again, err := Parse(path, encode(t, s))
		if err != nil {
			t.Fatalf("re-parsing the accepted suite written back as YAML: %v\n%s", err, encode(t, s))
		}
		opts := []cmp.Option{cmpopts.EquateEmpty(), cmpopts.IgnoreFields(Suite{}, "SHA256"), cmpopts.IgnoreFields(Workload{}, "Line"), cmpopts.IgnoreFields(Error{}, "Line")}
		if d := cmp.Diff(s, again, opts...); d != "" {
			t.Fatalf("suite changed when written back and re-parsed (-first +again):\n%s", d)
		}
	})
}

// checkError: every rejection names the file and a line of it.
func checkError(t *testing.T, path string, data []byte, err error) {
	t.Helper()
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("error of type %T, want *suite.Error: %v", err, err)
	}
	lines := YAMLLines(data)
	if se.File != path || se.Line < 1 || se.Line > lines {
		t.Fatalf("error without a file and a line in 1..%d: %q (file %q, line %d)", lines, err, se.File, se.Line)
	}
	if se.Msg == "" || !strings.HasPrefix(err.Error(), path+":") {
		t.Fatalf("error message %q", err)
	}
}

// checkSuite asserts the rules docs/suite.md gives for a suite.
func checkSuite(t *testing.T, s *Suite) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("accepted suite breaks a rule: "+format, args...)
	}
	if !ValidName(s.Name) {
		fail("suite name %q", s.Name)
	}
	if s.Runs < 1 || s.Warmup < 0 || s.Timeout <= 0 {
		fail("runs %d warmup %d timeout %v", s.Runs, s.Warmup, s.Timeout)
	}
	if !(s.MinChange >= 0 && s.MinChange < 1) || !(s.Alpha > 0 && s.Alpha < 0.5) {
		fail("min_change %v alpha %v", s.MinChange, s.Alpha)
	}
	checkSettings := func(ps modes.ProfilerSettings, what string) {
		if err := modes.Validate(ps); err != nil {
			fail("%s: %v", what, err)
		}
	}
	checkSettings(s.Profiler, "profiler")
	if !s.Metric.Valid() {
		fail("suite metric %q", s.Metric)
	}
	checkModes := func(ms []modes.Mode, what string) {
		if len(ms) == 0 {
			fail("%s: no modes", what)
		}
		seen := map[modes.Mode]bool{}
		for _, m := range ms {
			if _, ok := s.Spec(m); !ok || seen[m] || !ValidName(string(m)) {
				fail("%s: modes %v", what, ms)
			}
			seen[m] = true
		}
	}
	checkModes(s.Modes, "suite")
	if len(s.Specs) != len(s.Modes) {
		fail("%d modes, %d definitions", len(s.Modes), len(s.Specs))
	}
	for i, sp := range s.Specs {
		if sp.Name != s.Modes[i] || (sp.Engine != "" && !sp.Engine.Valid()) {
			fail("mode definition %d: %+v", i, sp)
		}
		if !sp.Name.Builtin() && sp.Engine == "" && (!sp.ProfilerSettings.IsZero() || sp.Profiler != "") {
			fail("mode %s: settings without an engine", sp.Name)
		}
		if sp.Engine != "" {
			checkSettings(sp.ProfilerSettings, string(sp.Name))
			for k := range sp.Env {
				if attach.LoadsProfiler(k) || strings.HasPrefix(k, "VBENCH_") {
					fail("mode %s with an engine sets %s", sp.Name, k)
				}
			}
		}
	}
	if !filepath.IsAbs(s.Baseline) || !filepath.IsAbs(s.Dir) {
		fail("relative paths: baseline %q dir %q", s.Baseline, s.Dir)
	}
	if len(s.Workloads) == 0 {
		fail("no workloads")
	}
	names := map[string]bool{}
	for _, w := range s.Workloads {
		name := w.Name
		if w.Scale != nil { // "a@n=10": a valid name, then its size
			name, _, _ = strings.Cut(name, "@")
			if name != w.Scale.Of || w.Name != ScaledName(name, w.Scale.Arg, w.Scale.Size) {
				fail("scaled workload %q of %q", w.Name, w.Scale.Of)
			}
		}
		if !ValidName(name) || names[w.Name] || strings.Contains(w.Name, "/") || strings.Contains(w.Name, "..") {
			fail("workload name %q (duplicate or unsafe)", w.Name)
		}
		names[w.Name] = true
		if (w.Project == "") == (len(w.Command) == 0) {
			fail("workload %s: project %q and command %q", w.Name, w.Project, w.Command)
		}
		if w.Project != "" && (!filepath.IsAbs(w.Project) || filepath.Ext(w.Project) != ".csproj") {
			fail("workload %s: project %q", w.Name, w.Project)
		}
		if len(w.Command) > 0 && !filepath.IsAbs(w.Command[0]) && w.Lacks == nil {
			fail("workload %s: command[0] %q not resolved to an absolute path", w.Name, w.Command[0])
		}
		if !filepath.IsAbs(w.Cwd) {
			fail("workload %s: cwd %q", w.Name, w.Cwd)
		}
		if w.Runs < 0 || w.Timeout < 0 {
			fail("workload %s: runs %d timeout %v", w.Name, w.Runs, w.Timeout)
		}
		if !w.Metric.Valid() {
			fail("workload %s: metric %q", w.Name, w.Metric)
		}
		for _, kv := range w.Env {
			if k, _, _ := strings.Cut(kv, "="); attach.LoadsProfiler(k) {
				fail("workload %s: env %s loads a profiler into every mode", w.Name, k)
			}
		}
		if w.Modes != nil {
			checkModes(w.Modes, "workload "+w.Name)
			for _, m := range w.Modes {
				if !slices.Contains(s.Modes, m) {
					fail("workload %s: mode %s not among the suite's %v", w.Name, m, s.Modes)
				}
			}
		}
		for _, kv := range w.Env {
			k, _, ok := strings.Cut(kv, "=")
			if !ok || k == "" || strings.ContainsAny(k, " \t") {
				fail("workload %s: env entry %q", w.Name, kv)
			}
			if len(attach.ScrubEnv([]string{kv})) == 0 && !strings.HasPrefix(k, "VBENCH_") {
				fail("workload %s: env %q would load a profiler in mode none", w.Name, kv)
			}
		}
	}
}

// encode writes s back as suite YAML (the test's own writer: vbench never
// writes suites).
func encode(t *testing.T, s *Suite) []byte {
	t.Helper()
	// Settings as a mapping: a given empty list (which a mode does not
	// inherit over) must stay given.
	settings := func(ps modes.ProfilerSettings) map[string]any {
		m := map[string]any{}
		if ps.Interval != 0 {
			m["interval"] = ps.Interval.String()
		}
		if ps.Include != nil {
			m["include"] = ps.Include
		}
		if ps.Exclude != nil {
			m["exclude"] = ps.Exclude
		}
		if ps.TimeSample != 0 {
			m["time_sample"] = ps.TimeSample
		}
		if ps.NoInline {
			m["no_inline"] = true
		}
		if ps.MaxStack != 0 {
			m["max_stack"] = ps.MaxStack
		}
		return m
	}
	type thresholds struct {
		MinChange float64 `yaml:"min_change"`
		Alpha     float64 `yaml:"alpha"`
	}
	type workload struct {
		Name     string            `yaml:"name"`
		Project  string            `yaml:"project,omitempty"`
		Args     []string          `yaml:"args,omitempty"`
		Command  []string          `yaml:"command,omitempty"`
		Env      map[string]string `yaml:"env,omitempty"`
		Cwd      string            `yaml:"cwd"`
		Checksum string            `yaml:"checksum,omitempty"`
		Metric   string            `yaml:"metric"`
		Runs     int               `yaml:"runs,omitempty"`
		Timeout  string            `yaml:"timeout,omitempty"`
		Modes    []modes.Mode      `yaml:"modes,omitempty"`
		Scale    map[string]any    `yaml:"scale,omitempty"`
	}
	type doc struct {
		Name       string         `yaml:"name"`
		Runs       int            `yaml:"runs"`
		Warmup     int            `yaml:"warmup"`
		Modes      []any          `yaml:"modes"`
		Metric     string         `yaml:"metric"`
		Timeout    string         `yaml:"timeout"`
		Profiler   map[string]any `yaml:"profiler"`
		Thresholds thresholds     `yaml:"thresholds"`
		Baseline   string         `yaml:"baseline"`
		Workloads  []workload     `yaml:"workloads"`
	}
	dur := func(d time.Duration) string {
		if d == 0 {
			return ""
		}
		return d.String()
	}
	d := doc{Name: s.Name, Runs: s.Runs, Warmup: s.Warmup, Metric: string(s.Metric), Timeout: s.Timeout.String(),
		Profiler:   settings(s.Profiler),
		Thresholds: thresholds{s.MinChange, s.Alpha}, Baseline: s.Baseline}
	for _, sp := range s.Specs {
		if sp.Name.Builtin() {
			d.Modes = append(d.Modes, string(sp.Name))
			continue
		}
		m := map[string]any{"name": string(sp.Name)}
		if sp.Engine != "" {
			m["engine"] = string(sp.Engine)
			for k, v := range settings(sp.ProfilerSettings) {
				// What the engine does not read came from the profiler
				// block (a mode may not give it): read back, it is inherited again.
				if sp.Engine.Uses(k) {
					m[k] = v
				}
			}
		}
		if sp.Profiler != "" {
			m["profiler"] = sp.Profiler
		}
		if sp.Env != nil {
			m["env"] = sp.Env
		}
		d.Modes = append(d.Modes, m)
	}
	if math.Signbit(d.Thresholds.MinChange) {
		d.Thresholds.MinChange = 0 // -0 is 0 to the reader too
	}
	scaled := map[string]int{} // a scaled workload's sizes are one entry
	for _, w := range s.Workloads {
		y := workload{Name: w.Name, Project: w.Project, Args: w.Args, Command: w.Command, Cwd: w.Cwd,
			Checksum: w.Checksum, Metric: string(w.Metric), Runs: w.Runs, Timeout: dur(w.Timeout), Modes: w.Modes}
		if len(w.Env) > 0 {
			y.Env = map[string]string{}
			for _, kv := range w.Env {
				k, v, _ := strings.Cut(kv, "=")
				y.Env[k] = v
			}
		}
		if sc := w.Scale; sc != nil {
			size := strconv.FormatFloat(sc.Size, 'g', -1, 64)
			if i, ok := scaled[sc.Of]; ok {
				d.Workloads[i].Scale["sizes"] = append(d.Workloads[i].Scale["sizes"].([]string), size)
				continue
			}
			scaled[sc.Of] = len(d.Workloads)
			y.Name, y.Scale = sc.Of, map[string]any{"arg": sc.Arg, "sizes": []string{size}}
		}
		d.Workloads = append(d.Workloads, y)
	}
	b, err := yaml.Marshal(&d)
	if err != nil {
		t.Fatalf("encoding the suite: %v", err)
	}
	return b
}
