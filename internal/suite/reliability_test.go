package suite

import (
	"path/filepath"
	"strings"
	"testing"
)

// Inputs the first reader let through, each of which would have failed (or
// silently distorted) a run only after the build: now refused at parse time
// with file, line and field.
func TestRefusedAtParseTime(t *testing.T) {
	const head = "name: s\nbaseline: b.json\nworkloads:\n"
	cases := []struct{ name, yaml, want string }{
		// NaN passed the range checks (every comparison with NaN is false).
		{"min_change NaN", "name: s\nthresholds:\n  min_change: NaN\n", `s.yaml:3: thresholds.min_change: must be between 0% and 100%, got NaN`},
		{"alpha NaN", "name: s\nthresholds: {alpha: nan}\n", `s.yaml:2: thresholds.alpha: must be a significance level`},
		{"min_change inf", "name: s\nthresholds: {min_change: +Inf}\n", `s.yaml:2: thresholds.min_change: must be between`},
		// The profiler declines to load outside 1ms..1s: every profiled cell
		// would fail with "profiler did not load" after the build.
		{"interval too long", "name: s\nprofiler:\n  interval: 5s\n", `s.yaml:3: profiler.interval: must be between 1ms and 1s (what the profiler accepts), got 5s`},
		{"interval too short", "name: s\nprofiler: {interval: 100us}\n", `s.yaml:2: profiler.interval: must be between 1ms and 1s`},
		// From the suite, these would load a profiler into mode none.
		{"env loads a profiler", head + "  - name: a\n    command: [true]\n    env:\n      CORECLR_ENABLE_PROFILING: \"1\"\n",
			`s.yaml:7: workloads[0].env.CORECLR_ENABLE_PROFILING: profiler variables are set by vbench for each mode`},
		{"env notification profiler", head + "  - name: a\n    command: [true]\n    env: {CORECLR_NOTIFICATION_PROFILERS: /x.so}\n",
			`s.yaml:6: workloads[0].env.CORECLR_NOTIFICATION_PROFILERS: profiler variables are set by vbench`},
		// Names become directory names under the results' profiles/ directory.
		{"name with slash", head + "  - name: a/b\n    command: [true]\n", `s.yaml:4: workloads[0].name: invalid name "a/b"`},
		{"name dotdot", head + "  - name: ..\n    command: [true]\n", `s.yaml:4: workloads[0].name: invalid name ".."`},
		{"name absolute", head + "  - name: /etc\n    command: [true]\n", `s.yaml:4: workloads[0].name: invalid name "/etc"`},
		{"name dot", head + "  - name: .\n    command: [true]\n", `s.yaml:4: workloads[0].name: invalid name "."`},
		{"name hidden", head + "  - name: .x\n    command: [true]\n", `s.yaml:4: workloads[0].name: invalid name ".x"`},
		{"empty document", "---\n", `s.yaml:1: empty suite file`},
	}
	for _, c := range cases {
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

// VBENCH_* tuning variables (not loaders) stay allowed in a workload's env:
// they reach the profiler only in profiled modes.
func TestEnvAllowsProfilerTuning(t *testing.T) {
	p := write(t, t.TempDir(), "s.yaml", "name: s\nbaseline: b.json\nworkloads:\n  - name: a\n    command: [true]\n    env: {VBENCH_TIME_SAMPLE: \"1\", DOTNET_gcServer: \"1\"}\n")
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Workloads[0].Env, " "); got != "DOTNET_gcServer=1 VBENCH_TIME_SAMPLE=1" {
		t.Errorf("env %q", got)
	}
}
