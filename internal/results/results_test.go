package results

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vbench/internal/modes"
)

func sample(suite string, cells ...Cell) *File {
	return &File{Schema: SchemaVersion, Suite: Suite{Name: suite, SHA256: "abc"}, Started: time.Unix(100, 0).UTC(), Finished: time.Unix(200, 0).UTC(), Results: cells}
}

func TestRoundTrip(t *testing.T) {
	f := sample("s", Cell{Workload: "w", Mode: "none", Runs: 1, Samples: []Run{{ElapsedNs: 5}}})
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	g, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if g.Suite.Name != "s" || g.Results[0].Samples[0].ElapsedNs != 5 || !g.Started.Equal(f.Started) {
		t.Errorf("round trip: %+v", g)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temp files left: %v", entries)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := map[string]string{
		"{\n  \"schema\": 1,\n  \"suite\": {\"name\": \"s\"},\n  \"results\": [{\"workload\": \"w\", \"mode\": \"none\"}, {\"workload\": \"w\", \"mode\": \"none\"}]\n}": "f.json: results[1]: cell w/none appears twice",
		`{"schema": 1, "suite": {"name": "s"}, "results": [{"workload": "w", "mode": "none", "runs": 3, "samples": []}]}`:                                                "runs 3 but 0 samples",
		`{"schema": 1, "suite": {"name": ""}}`:                             "f.json: suite.name is empty",
		"{\"schema\": 1,\n\"suite\": {\"name\": \"s\"}} {}":                "f.json:2:25: trailing data",
		"{\"schema\": 1,\n\"results\": [{\"runs\": \"ten\"}]}":             "f.json:2:26: field results.runs: int cannot hold a JSON string",
		"{\"schema\": 1,\n\"suite\": {\"name\": \"s\"},\n\"results\": [":   "f.json:3:12: truncated JSON",
		"{\"schema\": 1,\n  ,\"suite\": {}}":                               "f.json:2:3: malformed JSON: invalid character ','",
		`{"schema": 2, "suite": {"name": "s"}}`:                            "f.json: results schema version 2, this vbench reads version 1",
		`{"name": "not ours"}`:                                             `f.json: no "schema" field: not a vbench results file`,
		`{"schema": 1, "mode": "tracing", "threads": [], "functions": []}`: "f.json: this is a profile, not a results file",
		" \n": "f.json: empty file",
		"{\"schema\": 1,\n\"suite\": {\"name\": \"s\"},\n\"finished\": \"last tuesday\"}": "f.json:3:26: field finished: not a time like 2025-06-04T09:14:00Z",
	}
	for in, want := range cases {
		_, err := Decode("f.json", []byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want %q", in, err, want)
		}
	}
}

// A shard can hold no cells (more shards than cells); its file is valid.
func TestDecodeEmptyShard(t *testing.T) {
	f, err := Decode("s.json", []byte(`{"schema": 1, "suite": {"name": "s"}, "shard": {"index": 3, "count": 3}, "results": []}`))
	if err != nil || len(f.Results) != 0 || f.Shard.Index != 3 {
		t.Fatalf("empty shard: %v %+v", err, f)
	}
}

func TestReadFileNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json: cannot read results: no such file") {
		t.Errorf("missing file: %v", err)
	}
	p := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(p, []byte("{\n  \"schema\": 1,\n  \"suite\": {\"name\": 7}\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), p+":3:21: field suite.name: string cannot hold a JSON number") {
		t.Errorf("wrong type: %v", err)
	}
}

func TestMerge(t *testing.T) {
	a := sample("s", Cell{Workload: "w", Mode: "none", Verdict: VerdictSame})
	b := sample("s", Cell{Workload: "w", Mode: "tracing", Failure: "crashed"})
	b.Started = time.Unix(50, 0).UTC()
	m, err := Merge([]string{"a", "b"}, []*File{a, b}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Results) != 2 || m.Results[0].Verdict != "" || m.Results[1].Verdict != VerdictFailed || !m.Started.Equal(b.Started) || m.Shard != nil {
		t.Errorf("merged: %+v", m)
	}
	// The same warning from two shards is said once (a merged report used
	// to repeat the busy-machine warning); different ones are all kept.
	busy := "the machine was busy: other processes kept 1.6 of its 2 cores busy"
	a.Warnings, b.Warnings = []string{busy}, []string{busy, "other"}
	if m, err := Merge([]string{"a", "b"}, []*File{a, b}, false); err != nil || !slices.Equal(m.Warnings, []string{busy, "other"}) {
		t.Errorf("merged warnings: %q (%v)", m.Warnings, err)
	}
	a.Warnings, b.Warnings = nil, nil
	// How counts were taken comes from the shard that counted, not from
	// the first shard, whose cells were timed.
	cb := sample("s", Cell{Workload: "v", Mode: "none", Metric: MetricInstructions, Samples: []Run{{Instructions: 5}}})
	cb.Settings.CountingEnv, cb.Settings.Valgrind = []string{TieringOff}, "valgrind-3.19.0"
	if m, err := Merge([]string{"a", "cb"}, []*File{a, cb}, false); err != nil {
		t.Errorf("merging a counted shard: %v", err)
	} else if m.Settings.Valgrind != "valgrind-3.19.0" || !slices.Equal(m.Settings.CountingEnv, []string{TieringOff}) {
		t.Errorf("merged counting: %+v", m.Settings)
	}
	if _, err := Merge([]string{"a", "a2"}, []*File{a, a}, false); err == nil || !strings.Contains(err.Error(), "shards overlap") {
		t.Errorf("overlap: %v", err)
	}
	c := sample("t")
	if _, err := Merge([]string{"a", "c"}, []*File{a, c}, false); err == nil || !strings.Contains(err.Error(), "different suites") {
		t.Errorf("other suite: %v", err)
	}
	p := sample("s")
	p.Partial = true
	if _, err := Merge([]string{"a", "p"}, []*File{a, p}, false); err == nil || !strings.Contains(err.Error(), "partial") {
		t.Errorf("partial: %v", err)
	}
	if m, err := Merge([]string{"a", "p"}, []*File{a, p}, true); err != nil || !m.Partial {
		t.Errorf("allowed partial: %v", err)
	}
}

func TestSortCells(t *testing.T) {
	cells := []Cell{{Workload: "b", Mode: "tracing"}, {Workload: "a", Mode: "sampling"}, {Workload: "b", Mode: "none"}, {Workload: "a", Mode: "none"}}
	SortCells(cells, nil, modes.Builtins)
	var got []string
	for _, c := range cells {
		got = append(got, c.Key())
	}
	if strings.Join(got, " ") != "a/none a/sampling b/none b/tracing" {
		t.Errorf("sorted: %v", got)
	}
}

// Coverage round-trips on sampling cells, is omitted when absent, and files
// written before it existed still read.
func TestCoverageField(t *testing.T) {
	f := sample("s",
		Cell{Workload: "w", Mode: "tracing", Runs: 1, Samples: []Run{{ElapsedNs: 5}}, Accuracy: &Accuracy{Checked: 2, Exact: 2}},
		Cell{Workload: "w", Mode: "sampling", Runs: 1, Samples: []Run{{ElapsedNs: 5}}, Coverage: &Coverage{Found: 1, Of: 2, Missing: []string{"B"}}})
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"coverage"`); n != 1 {
		t.Errorf("%d coverage fields, want 1 (omitted when absent):\n%s", n, b)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	g, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if c := g.Results[1].Coverage; c == nil || c.Found != 1 || c.Of != 2 || len(c.Missing) != 1 || c.Missing[0] != "B" || g.Results[0].Coverage != nil {
		t.Errorf("coverage after round trip: %+v, %+v", g.Results[0].Coverage, c)
	}
	if s := g.Results[1].AccuracyText(); s != "1/2 found" {
		t.Errorf("sampling AccuracyText %q", s)
	}
	if s := g.Results[0].AccuracyText(); s != "2/2 exact" {
		t.Errorf("tracing AccuracyText %q", s)
	}

	old := `{"schema": 1, "suite": {"name": "s"}, "results": [{"workload": "w", "mode": "sampling", "runs": 1, "samples": [{"elapsed_ns": 5}]}]}`
	path = filepath.Join(t.TempDir(), "old.json")
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err = ReadFile(path)
	if err != nil {
		t.Fatalf("a file without coverage: %v", err)
	}
	if g.Results[0].Coverage != nil || g.Results[0].AccuracyText() != "" {
		t.Errorf("coverage from nowhere: %+v", g.Results[0].Coverage)
	}
}

// Files from before metrics and mode definitions read as what they were:
// elapsed time, the built-in modes (sampling at the recorded interval).
func TestOldFilesReadAsElapsedAndBuiltinModes(t *testing.T) {
	old := `{"schema": 1, "suite": {"name": "s"}, "settings": {"modes": ["none", "sampling"], "interval": "5ms"},
	"results": [{"workload": "w", "mode": "none", "runs": 1, "samples": [{"elapsed_ns": 5, "wall_ns": 50}]},
	            {"workload": "w", "mode": "sampling", "runs": 1, "samples": [{"elapsed_ns": 6, "wall_ns": 60}]}]}`
	f, err := Decode("old.json", []byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if f.Results[0].Metric != MetricElapsed || f.Results[0].Values()[0] != 5 || f.Metric("w") != MetricElapsed {
		t.Errorf("old cell: metric %q, values %v", f.Results[0].Metric, f.Results[0].Values())
	}
	sp := f.ModeSpec(modes.Sampling)
	if sp.Engine != modes.EngineSampling || sp.Interval != modes.Duration(5*time.Millisecond) {
		t.Errorf("old sampling mode: %+v", sp)
	}
	if sp := f.ModeSpec("eventpipe"); sp.Engine != "" || sp.Name != "eventpipe" {
		t.Errorf("unknown mode: %+v", sp)
	}
}

// A recorded definition wins, survives a round trip (intervals as "1ms"),
// and a file's mode order puts the built-in modes first.
func TestModeSpecsRoundTrip(t *testing.T) {
	f := sample("s", Cell{Workload: "w", Mode: "sampling-1ms", Metric: MetricWall, Runs: 1, Samples: []Run{{WallNs: 7}}},
		Cell{Workload: "w", Mode: modes.None, Metric: MetricWall, Runs: 1, Samples: []Run{{WallNs: 5}}})
	f.Settings.Modes = []modes.Mode{"sampling-1ms", modes.None}
	f.Settings.ModeSpecs = []modes.Spec{{Name: "sampling-1ms", Engine: modes.EngineSampling, ProfilerSettings: modes.ProfilerSettings{Interval: modes.Duration(time.Millisecond)}},
		{Name: modes.None}}
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"interval": "1ms"`) || !strings.Contains(string(b), `"metric": "wall"`) {
		t.Errorf("written:\n%s", b)
	}
	g, err := Decode("f.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if sp := g.ModeSpec("sampling-1ms"); sp.Interval != modes.Duration(time.Millisecond) || sp.Engine != modes.EngineSampling {
		t.Errorf("read back: %+v", sp)
	}
	if got := modes.List(g.Modes()); got != "none, sampling-1ms" {
		t.Errorf("modes in report order: %s", got)
	}
	if g.Results[0].Values()[0] != 7 {
		t.Errorf("wall values %v", g.Results[0].Values())
	}
}

// What readers rely on about metrics and definitions is checked on read.
func TestValidateMetricsAndModeSpecs(t *testing.T) {
	for in, want := range map[string]string{
		`{"schema": 1, "suite": {"name": "s"}, "results": [{"workload": "w", "mode": "none", "metric": "cycles"}]}`:                               `results[0] (w/none): unknown metric "cycles" (known: elapsed, wall, cpu, kernel-cpu, rps, latency-p50, latency-p99, cpu-per-request, instructions, kernel-instructions)`,
		`{"schema": 1, "suite": {"name": "s"}, "results": [{"workload": "w", "mode": "none"}, {"workload": "w", "mode": "x", "metric": "wall"}]}`: `results[1] (w/x): metric wall, but cell w/none measured elapsed: a workload's cells share one metric`,
		`{"schema": 1, "suite": {"name": "s"}, "settings": {"mode_specs": [{"name": "x"}, {"name": "x"}]}}`:                                       `settings.mode_specs[1]: mode "x" is unnamed or defined twice`,
		`{"schema": 1, "suite": {"name": "s"}, "settings": {"mode_specs": [{"name": "x", "engine": "perf"}]}}`:                                    `settings.mode_specs[0] (x): unknown engine "perf"`,
		"{\"schema\": 1, \"suite\": {\"name\": \"s\"},\n\"settings\": {\"mode_specs\": [{\"name\": \"x\", \"interval\": \"often\"}]}}":            `f.json:2:52: settings.mode_specs[0].interval: "often" is not a duration like 10ms`,
	} {
		if _, err := Decode("f.json", []byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%s) = %v, want %q", in, err, want)
		}
	}
}

// Merge refuses a workload measured by two metrics, keeps every mode's
// definition, and warns when a mode is defined differently in two files.
func TestMergeMetricsAndModeSpecs(t *testing.T) {
	a := sample("s", Cell{Workload: "w", Mode: modes.None, Metric: MetricWall})
	a.Settings.ModeSpecs = []modes.Spec{{Name: modes.None}, {Name: "ep", Env: map[string]string{"A": "1"}}}
	b := sample("s", Cell{Workload: "w", Mode: "ep", Metric: MetricWall}, Cell{Workload: "v", Mode: "fast"})
	b.Settings.ModeSpecs = []modes.Spec{{Name: "ep", Env: map[string]string{"A": "2"}}, {Name: "fast", Engine: modes.EngineSampling}}
	m, err := Merge([]string{"a.json", "b.json"}, []*File{a, b}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Settings.ModeSpecs); got != 3 || m.ModeSpec("fast").Engine != modes.EngineSampling || m.ModeSpec("ep").Env["A"] != "1" {
		t.Errorf("merged definitions: %+v", m.Settings.ModeSpecs)
	}
	if len(a.Settings.ModeSpecs) != 2 {
		t.Errorf("merge changed its input's definitions: %+v", a.Settings.ModeSpecs)
	}
	if w := strings.Join(m.Warnings, "\n"); !strings.Contains(w, "mode ep is defined differently in a.json (env A=1) and b.json (env A=2)") {
		t.Errorf("warnings: %s", w)
	}
	c := sample("s", Cell{Workload: "w", Mode: "ep"})
	if _, err := Merge([]string{"a.json", "c.json"}, []*File{a, c}, false); err == nil || err.Error() != "workload w is measured by wall in a.json and by elapsed in c.json: refusing to mix metrics" {
		t.Errorf("mixed metrics: %v", err)
	}
}
