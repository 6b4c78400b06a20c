package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"

	hist "vbench/internal/history"
	"vbench/internal/results"
)

// Each series of a history prints in its own unit, in show's text and
// Markdown and on the page: memory in bytes, a count as a number, time as
// time, a service's rate in requests per second. Every value printed as a
// duration ("rss 80.19ms → 94.22ms", "gc_count 5.000ns") and the page
// labelled a memory chart "overhead multiple (× none)".
func TestHistoryPrintsEachSeriesInItsUnit(t *testing.T) {
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var entries []hist.Entry
	for i := 0; i < 4; i++ {
		entries = append(entries, hist.Entry{Commit: "c" + string(rune('0'+i)), Date: day.Add(time.Duration(i) * time.Hour)})
	}
	series := func(kind string, metric results.Metric, vs ...float64) *hist.Series {
		s := &hist.Series{Workload: "json", Mode: "tracing", Kind: kind, Metric: metric}
		for i, v := range vs {
			s.Points = append(s.Points, hist.Point{Entry: i, Commit: entries[i].Commit, Date: entries[i].Date, Value: v, Runs: 3})
		}
		return s
	}
	change := func(kind string, metric results.Metric, before, after float64) hist.Change {
		return hist.Change{Workload: "json", Mode: "tracing", Series: kind, Metric: metric, Index: 2, Commit: "c2", CommitBefore: "c1",
			Before: before, After: after, Change: after/before - 1, P: 0.01, New: true}
	}
	a := &hist.Analysis{Entries: entries,
		Series: []*hist.Series{
			series("rss", results.MetricElapsed, 80.19*(1<<20), 80.19*(1<<20), 94.22*(1<<20), 94.22*(1<<20)),
			series("gc_count", results.MetricElapsed, 5, 5, 9, 9),
			series("time", results.MetricRPS, 1e9/2000, 1e9/2000, 1e9/1500, 1e9/1500),
		},
		Changes: [][]hist.Change{
			{change("rss", results.MetricElapsed, 80.19*(1<<20), 94.22*(1<<20))},
			{change("gc_count", results.MetricElapsed, 5, 9)},
			{change("time", results.MetricRPS, 1e9/2000, 1e9/1500)},
		}}
	for _, format := range []string{"text", "markdown"} {
		var b bytes.Buffer
		if err := WriteHistory(&b, "h.jsonl", a, format); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"80.19MiB → 94.22MiB", "5 → 9", "2000 req/s → 1500 req/s", "new, higher"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s lacks %q:\n%s", format, want, b.String())
			}
		}
		for _, bad := range []string{"ms →", "ns →"} {
			if strings.Contains(b.String(), bad) {
				t.Errorf("%s prints a figure as a time (%q):\n%s", format, bad, b.String())
			}
		}
	}
	var page bytes.Buffer
	if err := HistoryHTML(&page, "h.jsonl", a); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"80.19MiB → 94.22MiB", "<strong>higher</strong>", "rss (MiB)", "gc_count (count)"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page.String(), "overhead multiple (× none)"); n != 0 {
		t.Errorf("the page labels %d charts of no overhead series \"overhead multiple (× none)\"", n)
	}
}
