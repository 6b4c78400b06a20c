package reports

import (
	"slices"
	"strings"
	"testing"
	"vbench/internal/summary"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// measured is a cell of workload w in mode m whose measured runs took ms
// milliseconds each (elapsed), its summaries left to summary.Fill.
func measured(w string, m modes.Mode, ms ...float64) results.Cell {
	c := results.Cell{Workload: w, Mode: m}
	for i, x := range ms {
		c.Samples = append(c.Samples, results.Run{Seq: i, Round: i + 1, ElapsedNs: int64(x * 1e6), WallNs: int64(x * 1e6)})
	}
	return c
}

// Below 6 runs an overhead has no interval, as a median has none: the
// table prints "± ∞" for both and the legend says why. 3 vs 3 runs used to
// get a bootstrap "95%" interval, ×1.11 [0.80, 1.33], beside a median
// printed "± ∞".
func TestFewRunsOverheadHasNoInterval(t *testing.T) {
	f := &results.File{Results: []results.Cell{
		measured("cpu", modes.None, 102.2, 98.1, 110.4),
		measured("cpu", modes.Tracing, 113.0, 120.5, 109.9),
	}}
	summary.Fill(f)
	_, rows := ResultsRows(f)
	if got := rows[1][4]; !strings.HasSuffix(got, " ± ∞") || strings.Contains(got, "[") {
		t.Errorf("tracing's overhead at 3 runs = %q, want a multiple with ± ∞ and no interval", got)
	}
	var b strings.Builder
	if err := ResultsTable(&b, f); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "± ∞: fewer than 6 runs (for an overhead: in its cell or the none cell), too few for a 95% interval (vbench run --runs 6 or more)") {
		t.Errorf("the legend does not explain ± ∞:\n%s", b.String())
	}
	// At 6 runs a side the interval is back.
	f = &results.File{Results: []results.Cell{
		measured("cpu", modes.None, 102, 98, 110, 101, 99, 100),
		measured("cpu", modes.Tracing, 113, 120, 110, 112, 111, 115),
	}}
	summary.Fill(f)
	if _, rows = ResultsRows(f); !strings.Contains(rows[1][4], "[") || strings.Contains(rows[1][4], "∞") {
		t.Errorf("tracing's overhead at 6 runs = %q, want an interval", rows[1][4])
	}
}

// The legend under a comparison of two files (compare, run against a
// baseline) names only what decides an inconclusive cell there — more runs
// through vbench run, not --max-runs (A/B pairs alone get rounds), not the
// bare --runs compare does not have — gives the reason the JSON has, and
// says what adj. p was adjusted for without claiming A/B looks.
func TestLegendOfAComparison(t *testing.T) {
	reason := "kernel-cpu +37.9% (p=0.095; adjusted p=0.668 over 7 tests) inconclusive: could hide a change of ±119.4% (min_change ±5%); too few runs (3 vs 3) to reach p < 0.01 over 7 tests"
	f := &results.File{Settings: results.Settings{Alpha: 0.01, Threshold: 0.05}, Results: []results.Cell{
		{Workload: "cpu", Mode: modes.None, Runs: 3, MedianNs: 162e6, Verdict: results.VerdictInconclusive,
			Compare: &results.Change{BaselineMedianNs: 102e6, Ratio: 1.379, P: 0.095, PAdjusted: 0.668, Family: 7, Hides: 1.194, Reason: reason}},
		{Workload: "cpu", Mode: modes.Tracing, Runs: 3, MedianNs: 129e6, Verdict: results.VerdictInconclusive,
			Compare: &results.Change{BaselineMedianNs: 113e6, Ratio: 1.239, P: 0.391, PAdjusted: 1, Family: 7, Reason: reason}},
	}}
	legend := strings.Join(Legend(f), "\n")
	for _, want := range []string{
		"adj. p: the p a verdict is decided by, adjusted for the 7 tests judged here (Holm), so that",
		"more runs decide it (vbench run --runs N, on both sides of a baseline); exit 0 unless --fail-on inconclusive",
		"cpu/none, cpu/tracing: too few runs (3 vs 3) to reach p < 0.01 over 7 tests: no change can be shown, only ruled out (same) by an interval within ±5%, which theirs was not",
	} {
		if !strings.Contains(legend, want) {
			t.Errorf("legend lacks %q:\n%s", want, legend)
		}
	}
	for _, bad := range []string{"--max-runs", "(--runs", "this run's", "A/B pair's extra looks"} {
		if strings.Contains(legend, bad) {
			t.Errorf("legend of a baseline comparison says %q:\n%s", bad, legend)
		}
	}
	// No interval at all (the A/B row below 6 pairs): ±∞, not a bare word.
	f.Results[1].Compare.Hides = 0
	if _, rows := ResultsRows(f); rows[1][len(rows[1])-1] != "inconclusive ±∞" || rows[0][len(rows[0])-1] != "inconclusive ±119.4%" {
		t.Errorf("verdicts %q, %q", rows[0][len(rows[0])-1], rows[1][len(rows[1])-1])
	}
}

// CSV leaves an interval that does not exist empty: below 6 runs it used
// to write ci_lo_ns,ci_hi_ns = 0,0 (and overhead_lo,overhead_hi = 0,0),
// which reads as the interval [0, 0].
func TestCSVNoIntervalIsEmpty(t *testing.T) {
	f := &results.File{Results: []results.Cell{
		measured("cpu", modes.None, 102.2, 98.1, 110.4),
		measured("cpu", modes.Tracing, 113.0, 120.5, 109.9),
	}}
	summary.Fill(f)
	var b strings.Builder
	if err := ResultsCSV(&b, f); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if !strings.HasPrefix(lines[0], "workload,mode,runs,median_ns,ci_lo_ns,ci_hi_ns,mad_ns,overhead,overhead_lo,overhead_hi,") {
		t.Fatalf("header %q", lines[0])
	}
	for _, l := range lines[1:3] {
		col := strings.Split(l, ",")
		if col[4] != "" || col[5] != "" {
			t.Errorf("ci of %s: %q,%q, want empty", col[1], col[4], col[5])
		}
		if col[1] == "tracing" && (col[7] == "" || col[8] != "" || col[9] != "") {
			t.Errorf("overhead of tracing: %q [%q, %q], want a multiple and no interval", col[7], col[8], col[9])
		}
	}
}

// A service's rps cell keeps its runs as time per request: its MAD, shown
// in µs beside a median in req/s, read as a rate it was not. It is shown as
// a share of the median instead.
func TestServiceMADIsAShare(t *testing.T) {
	c := results.Cell{Workload: "web", Mode: modes.None, Metric: results.MetricRPS, Runs: 5, MedianNs: 50000, MADNs: 2500}
	r := NewCellRow(&c, results.VerdictNew, nil)
	if r.MAD != "5.0%" || !strings.Contains(r.Median, "req/s") {
		t.Errorf("rps cell: median %q, MAD %q; want req/s and 5.0%%", r.Median, r.MAD)
	}
	c.Metric = results.MetricElapsed
	if r := NewCellRow(&c, results.VerdictNew, nil); strings.HasSuffix(r.MAD, "%") {
		t.Errorf("an elapsed cell's MAD is a time, got %q", r.MAD)
	}
}

// A service cell's table row shows the load generator's other figures
// beside the metric it is judged by: rps, p50 and p99, medians over its
// runs (they were only in the JSON and the progress lines); a file without
// services gets no such column.
func TestServiceRowShowsLoad(t *testing.T) {
	c := results.Cell{Workload: "web", Mode: modes.None, Metric: results.MetricLatencyP99, Runs: 3}
	for i, x := range []struct {
		rps      float64
		p50, p99 int64
	}{{30000, 400_000, 2_000_000}, {32000, 500_000, 2_800_000}, {31000, 450_000, 9_000_000}} {
		c.Samples = append(c.Samples, results.Run{Seq: i, Round: i + 1, Service: &results.Service{Requests: 1000, RPS: x.rps, LatencyP50Ns: x.p50, LatencyP99Ns: x.p99}})
	}
	header, rows := ResultsRows(&results.File{Results: []results.Cell{c}})
	col := slices.Index(header, "load (medians)")
	if col < 0 || rows[0][col] != "31000 req/s · p50 450.0µs · p99 2.800ms" {
		t.Errorf("header %q, row %q", header, rows[0])
	}
	if header, _ := ResultsRows(&results.File{Results: []results.Cell{measured("cpu", modes.None, 1, 2, 3)}}); slices.Contains(header, "load (medians)") {
		t.Errorf("a batch file got a load column: %q", header)
	}
	// The reports (text, Markdown, HTML) say it under their table of cells.
	files := []*results.File{{Suite: results.Suite{Name: "svc"}, Results: []results.Cell{c}}}
	const line = "load web/none: 31000 req/s · p50 450.0µs · p99 2.800ms (medians over its runs)"
	for name, render := range map[string]func(*strings.Builder) error{
		"text":     func(b *strings.Builder) error { return Text(b, files, Options{}) },
		"markdown": func(b *strings.Builder) error { return Markdown(b, files, Options{}) },
		"html":     func(b *strings.Builder) error { return HTML(b, files, Options{}) },
	} {
		if out := renderString(t, render); !strings.Contains(out, line) {
			t.Errorf("%s report lacks %q:\n%s", name, line, out)
		}
	}
}

// An explain line gives the change's interval where the pair has one, as
// vbench diff does (a new user missed it under a sampling pair).
func TestContributionTextHasInterval(t *testing.T) {
	lo, hi := 1.05e6, 1.35e6
	c := results.Contribution{Function: "A.B", Old: 4.5e6, New: 5.7e6, Change: 1.2e6, Lo: &lo, Hi: &hi}
	if got, want := ContributionText("ns", c), "+1.200ms [+1.050ms, +1.350ms] (4.500ms → 5.700ms)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	c.Lo, c.Hi = nil, nil
	if got, want := ContributionText("ns", c), "+1.200ms (4.500ms → 5.700ms)"; got != want {
		t.Errorf("without an interval: got %q, want %q", got, want)
	}
}

// A file counted with tiering off says so under its table, since the
// multiple of optimized code is not a short run's; a file from before
// the counting environment was recorded claims nothing.
func TestLegendSaysCountsAreOfOptimizedCode(t *testing.T) {
	f := &results.File{Settings: results.Settings{Alpha: 0.01, Threshold: 0.05, CountingEnv: []string{"DOTNET_TieredCompilation=0"}}, Results: []results.Cell{
		{Workload: "w", Mode: modes.None, Metric: results.MetricInstructions, Runs: 2, MedianNs: 1e8},
	}}
	said := "counted with tiered compilation off"
	if legend := strings.Join(Legend(f), "\n"); !strings.Contains(legend, said) {
		t.Errorf("legend lacks %q:\n%s", said, legend)
	}
	f.Settings.CountingEnv = nil
	if legend := strings.Join(Legend(f), "\n"); strings.Contains(legend, said) {
		t.Errorf("a file with no counting environment recorded says %q:\n%s", said, legend)
	}
}
