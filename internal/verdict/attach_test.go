package verdict

import (
	"testing"

	"vbench/internal/results"
)

// attached is a service cell whose runs attached: time constant, the
// during window's throughput rps and p99 p99 (each run a little apart).
func attached(rps, p99 float64) results.Cell {
	c := cell("web", "sampling-attached", 1e6, 10)
	for k := range c.Samples {
		f := 1 + float64(k)/1000
		w := results.Window{Name: results.WindowDuring, Requests: 1000, RPS: rps * f, P50Ns: 1e6, P99Ns: int64(p99 * f)}
		c.Samples[k].Service = &results.Service{Attach: &results.AttachLoad{Pooled: []results.Window{w}}}
	}
	return c
}

// The windows of an attach are judged like any measure, the throughput
// the right way round: fewer requests a second is a regression, more an
// improvement; a longer p99 a regression.
func TestAttachWindowsJudged(t *testing.T) {
	base := file(cell("web", "none", 1e6, 10), attached(5000, 4e6))
	base.Settings.Threshold = 0.05
	for _, c := range []struct {
		name     string
		rps, p99 float64
		rpsWant  results.Verdict
		p99Want  results.Verdict
	}{
		{"same", 5000, 4e6, results.VerdictSame, results.VerdictSame},
		{"slower during the attach", 4000, 6e6, results.VerdictRegressed, results.VerdictRegressed},
		{"faster", 6000, 3e6, results.VerdictImproved, results.VerdictImproved},
	} {
		t.Run(c.name, func(t *testing.T) {
			cur := file(cell("web", "none", 1e6, 10), attached(c.rps, c.p99))
			cur.Settings.Threshold = 0.05
			Apply(cur, base, opts)
			got := cur.Find("web", "sampling-attached")
			rps, p99 := got.Metrics[results.MeasureRPSDuring], got.Metrics[results.MeasureP99During]
			if rps == nil || p99 == nil {
				t.Fatalf("no rps_during or p99_during: %v", got.Metrics)
			}
			if rps.Verdict != c.rpsWant || p99.Verdict != c.p99Want {
				t.Errorf("rps_during %s (median %g; %+v), p99_during %s; want %s, %s", rps.Verdict, rps.Median, rps.Compare, p99.Verdict, c.rpsWant, c.p99Want)
			}
			if c.rpsWant == results.VerdictRegressed && got.Verdict != results.VerdictRegressed {
				t.Errorf("cell %s, want regressed by its window", got.Verdict)
			}
		})
	}
}
