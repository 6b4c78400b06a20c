package reports

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"
	"time"
	"vbench/internal/summary"

	"golang.org/x/perf/benchfmt"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// peers is a run with modes its suite defined and two metrics: plain is
// measured by wall time, fib by its own elapsed time.
func peers() *results.File {
	runs := func(el, wall int64) []results.Run {
		var out []results.Run
		for i := int64(0); i < 6; i++ {
			out = append(out, results.Run{Seq: int(i), ElapsedNs: el + i, WallNs: wall + 10*i, UserNs: wall / 2, SysNs: wall / 10, MaxRSS: 1 << 20})
		}
		return out
	}
	f := &results.File{Schema: results.SchemaVersion, Suite: results.Suite{Name: "peers"},
		Started: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC),
		Settings: results.Settings{Runs: 6, Modes: []modes.Mode{modes.None, "sampling-1ms", "eventpipe"},
			ModeSpecs: []modes.Spec{{Name: modes.None},
				{Name: "sampling-1ms", Engine: modes.EngineSampling, ProfilerSettings: modes.ProfilerSettings{Interval: modes.Duration(time.Millisecond)}},
				{Name: "eventpipe", Env: map[string]string{"DOTNET_EnableEventPipe": "1"}}}},
		Results: []results.Cell{
			{Workload: "fib", Mode: modes.None, Metric: results.MetricElapsed, Samples: runs(100e6, 900e6)},
			{Workload: "fib", Mode: "sampling-1ms", Metric: results.MetricElapsed, Samples: runs(110e6, 950e6)},
			{Workload: "fib", Mode: "eventpipe", Metric: results.MetricElapsed, Samples: runs(115e6, 990e6)},
			{Workload: "plain", Mode: modes.None, Metric: results.MetricWall, Samples: runs(0, 300e6)},
			{Workload: "plain", Mode: "sampling-1ms", Metric: results.MetricWall, Samples: runs(0, 330e6)},
			{Workload: "plain", Mode: "eventpipe", Metric: results.MetricWall, Samples: runs(0, 360e6)},
		}}
	summary.Fill(f)
	return f
}

// Every output names the metric and carries the suite's modes: the results
// table (a metric column when workloads differ), CSV, gobench (ns/op is the
// metric, named by a file key), JUnit, and the reports (subtitle, matrix
// rows, the modes' definitions).
func TestOutputsNameMetricsAndModes(t *testing.T) {
	f := peers()
	header, rows := ResultsRows(f)
	if got := strings.Join(header, "|"); got != "workload|mode|metric|runs|median ± 95% CI|overhead [95% CI]|verdict" {
		t.Errorf("results table header %s", got)
	}
	if got := strings.Join(rows[4], "|"); !strings.HasPrefix(got, "plain|sampling-1ms|wall|6|330.0ms") || !strings.Contains(got, "×1.10") {
		t.Errorf("plain/sampling-1ms row %s", got)
	}
	one := *f
	one.Results = f.Results[3:]
	if header, _ := ResultsRows(&one); strings.Join(header, "|") != "workload|mode|runs|median (wall) ± 95% CI|overhead [95% CI]|verdict" {
		t.Errorf("one metric: header %q", header)
	}

	var csvOut bytes.Buffer
	if err := ResultsCSV(&csvOut, f); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	metric := slices.Index(rows[0], "metric")
	if metric < 0 || rows[6][metric] != "wall" || !strings.HasPrefix(strings.Join(rows[6], ","), "plain,eventpipe,6,3.60000025e+08,") {
		t.Errorf("csv: metric column %d in\n%q", metric, rows)
	}

	var gb bytes.Buffer
	if err := GoBench(&gb, f); err != nil {
		t.Fatal(err)
	}
	r := benchfmt.NewReader(&gb, "gobench")
	seen := map[string]float64{}
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		for _, v := range res.Values {
			if v.OrigUnit == "ns/op" {
				seen[string(res.Name)+" "+res.GetConfig("metric")] = v.OrigValue
			}
		}
	}
	if seen["Fib/mode=sampling-1ms elapsed"] != 110e6+5 || seen["Plain/mode=eventpipe wall"] != 360e6+50 {
		t.Errorf("gobench ns/op by name and metric: %v\n%s", seen, gb.String())
	}

	var ju bytes.Buffer
	if err := JUnit(&ju, f); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ju.String(), "median 330.0ms (wall) over 6 runs") {
		t.Errorf("junit:\n%s", ju.String())
	}

	var txt, md, html bytes.Buffer
	for _, r := range []struct {
		out  *bytes.Buffer
		draw func(*bytes.Buffer) error
	}{
		{&txt, func(b *bytes.Buffer) error { return Text(b, []*results.File{f}, Options{}) }},
		{&md, func(b *bytes.Buffer) error { return Markdown(b, []*results.File{f}, Options{}) }},
		{&html, func(b *bytes.Buffer) error { return HTML(b, []*results.File{f}, Options{}) }},
	} {
		if err := r.draw(r.out); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"metrics elapsed, wall", "sampling-1ms  vbench sampling, interval 1ms", "eventpipe     env DOTNET_EnableEventPipe=1",
		"Overhead (median each workload's metric over", "plain (wall)", "fib (elapsed)"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, txt.String())
		}
	}
	for _, want := range []string{"metrics elapsed, wall", "`sampling-1ms` vbench sampling, interval 1ms", "plain (wall)"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown report lacks %q:\n%s", want, md.String())
		}
	}
	for _, want := range []string{`<dl class="modes" id="modes">`, "<dd>vbench sampling, interval 1ms</dd>", "<th>plain (wall)</th>", "(wall time) over 6 runs"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("html report lacks %q", want)
		}
	}
}

// A mode's colour depends on its name only: the same in every report,
// whatever other modes the run has; the built-in modes keep theirs.
func TestModeColorsAreStable(t *testing.T) {
	a := &Matrix{Modes: []modes.Mode{modes.None, "eventpipe", "sampling-1ms"}}
	b := &Matrix{Modes: []modes.Mode{"sampling-1ms", modes.Tracing, "other-profiler", "tracing-base"}}
	if a.ModeColor("sampling-1ms") != b.ModeColor("sampling-1ms") {
		t.Errorf("sampling-1ms has two colours: %v, %v", a.ModeColor("sampling-1ms"), b.ModeColor("sampling-1ms"))
	}
	if a.ModeColor(modes.None) != modeColors[modes.None] || b.ModeColor(modes.Tracing) != modeColors[modes.Tracing] {
		t.Errorf("a built-in mode lost its colour")
	}
	seen := map[string]modes.Mode{}
	for _, m := range b.Modes {
		c := hexColor(b.ModeColor(m))
		if other, dup := seen[c]; dup {
			t.Errorf("%s and %s share colour %s in one report", m, other, c)
		}
		seen[c] = m
	}
}
