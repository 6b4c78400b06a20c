package summary

import (
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
)

func run(seq int, elapsed int64) results.Run {
	return results.Run{Seq: seq, ElapsedNs: elapsed, WallNs: elapsed + 1000, UserNs: elapsed / 2, MaxRSS: 1 << 20}
}

func TestFill(t *testing.T) {
	none := results.Cell{Workload: "w", Mode: "none"}
	tr := results.Cell{Workload: "w", Mode: "tracing"}
	none.Samples = append(none.Samples, results.Run{Warmup: true, ElapsedNs: 1})
	for i := 0; i < 10; i++ {
		none.Samples = append(none.Samples, run(i, int64(1000+i)))
		tr.Samples = append(tr.Samples, run(i, int64(3000+3*i)))
	}
	tr.Samples = append(tr.Samples, results.Run{ElapsedNs: 5, Error: "exit 1"})
	short := results.Cell{Workload: "v", Mode: "none", Samples: []results.Run{run(0, 5), run(1, 6)}}
	f := &results.File{Results: []results.Cell{tr, none, short}}
	Fill(f)
	Fill(f) // idempotent
	n, c, s := f.Results[1], f.Results[0], f.Results[2]
	if n.Runs != 10 || n.MedianNs != 1004.5 || n.CILoNs != 1001 || n.CIHiNs != 1008 || n.Overhead != 1 {
		t.Errorf("none cell: %+v", n)
	}
	if c.Runs != 10 || c.MedianNs != 3013.5 || c.Overhead != 3013.5/1004.5 || !(c.OverheadLo < c.Overhead && c.Overhead < c.OverheadHi) {
		t.Errorf("tracing cell: runs %d median %v overhead %v [%v, %v]", c.Runs, c.MedianNs, c.Overhead, c.OverheadLo, c.OverheadHi)
	}
	if c.WallMedianNs != 4013.5 || c.UserMedianNs != 1506.5 || c.MaxRSSMedian != 1<<20 {
		t.Errorf("resource medians: %+v", c)
	}
	if s.CILoNs != 0 || s.CIHiNs != 0 || len(s.Warnings) == 0 {
		t.Errorf("2 runs should have no interval and a warning: %+v", s)
	}
	// Per-run multiples of the none cell's fast half: of 1000..1009, the
	// mean of 1000..1004.
	os := OverheadSamples(f, &f.Results[0])
	if len(os) != 10 || os[0] != 3000/1002.0 {
		t.Errorf("OverheadSamples = %v", os)
	}
	// An outlier is flagged on its run and counted, not dropped.
	f.Results[1].Samples[5].ElapsedNs = 1_000_000
	Fill(f)
	if f.Results[1].Outliers != 1 || !f.Results[1].Samples[5].Outlier || f.Results[1].Runs != 10 {
		t.Errorf("outlier: %+v", f.Results[1])
	}
}

// Each cell's statistics come from its metric: elapsed (the VBENCH line),
// wall, or user + sys; the overhead divides the same metric of both cells.
func TestFillUsesEachCellsMetric(t *testing.T) {
	runs := func(scale int64) []results.Run {
		var out []results.Run
		for i := int64(1); i <= 7; i++ {
			out = append(out, results.Run{ElapsedNs: 100 * i * scale, WallNs: 1000 * i * scale, UserNs: 30 * i * scale, SysNs: 10 * i * scale})
		}
		return out
	}
	f := &results.File{Results: []results.Cell{
		{Workload: "e", Mode: modes.None, Samples: runs(1)},
		{Workload: "e", Mode: modes.Tracing, Samples: runs(3)},
		{Workload: "w", Mode: modes.None, Metric: results.MetricWall, Samples: runs(1)},
		{Workload: "w", Mode: "eventpipe", Metric: results.MetricWall, Samples: runs(2)},
		{Workload: "c", Mode: modes.None, Metric: results.MetricCPU, Samples: runs(1)},
		{Workload: "c", Mode: modes.Sampling, Metric: results.MetricCPU, Samples: runs(5)},
	}}
	Fill(f)
	for _, c := range []struct {
		i              int
		median, over   float64
		wallMedianNs   float64
		firstValueSeen float64
	}{{0, 400, 1, 4000, 100}, {1, 1200, 3, 12000, 300}, {2, 4000, 1, 4000, 1000}, {3, 8000, 2, 8000, 2000}, {4, 160, 1, 4000, 40}, {5, 800, 5, 20000, 200}} {
		got := f.Results[c.i]
		if got.MedianNs != c.median || got.Overhead != c.over || got.WallMedianNs != c.wallMedianNs || got.Values()[0] != c.firstValueSeen {
			t.Errorf("%s (%s): median %v overhead %v wall %v first value %v, want %v %v %v %v", got.Key(), got.Metric.OrDefault(),
				got.MedianNs, got.Overhead, got.WallMedianNs, got.Values()[0], c.median, c.over, c.wallMedianNs, c.firstValueSeen)
		}
	}
}
