package history

import (
	"math/rand/v2"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/stats"
)

// synthetic builds a history of n invocations of a suite with the
// calibration workload "cal" and the program "app": every invocation runs
// at the machine's speed of the moment (a factor both workloads share,
// moving up to ±8% between invocations, as this machine's did), and app
// does step times the work from invocation at on.
func synthetic(n, at int, step float64) []Entry {
	rng := rand.New(rand.NewPCG(7, 24))
	var es []Entry
	for i := 0; i < n; i++ {
		machine := 1 + 0.16*(rng.Float64()-0.5)
		work := 1.0
		if i >= at {
			work = step
		}
		cell := func(name string, ms float64) results.Cell {
			c := results.Cell{Workload: name, Mode: modes.None, Metric: results.MetricWall}
			for r := 0; r < 5; r++ {
				noise := 1 + 0.004*rng.Float64() // the fastest of 5 runs: little left
				c.Samples = append(c.Samples, results.Run{Seq: r, Round: r + 1, WallNs: int64(ms * machine * noise * 1e6)})
			}
			c.Runs = len(c.Samples)
			return c
		}
		es = append(es, Entry{
			Schema: SchemaVersion, Commit: string(rune('a' + i)),
			Settings: results.Settings{Calibration: "cal"},
			Cells:    []results.Cell{cell("cal", 300), cell("app", 400*work)},
		})
	}
	return es
}

// With a calibration, a 5% step of a program is found where it happened
// even when the machine's speed moves between invocations by more than
// the step: the calibrated series (app over cal in the same run) holds the
// step alone. The raw time's change points, if any, are marked Raw and do
// not fail CI; the calibration's own cells get no calibrated series.
func TestCalibratedSeriesFindsTheStep(t *testing.T) {
	es := synthetic(12, 8, 1.05)
	a := Analyze(es, stats.ChangeOptions{})
	var cal *Series
	for _, s := range a.Series {
		if s.Kind == KindCalibrated {
			if s.Workload != "app" || cal != nil {
				t.Fatalf("calibrated series of %s/%s: want app's only", s.Workload, s.Mode)
			}
			cal = s
		}
	}
	if cal == nil || len(cal.Points) != 12 {
		t.Fatalf("no calibrated series of 12 points for app: %+v", cal)
	}
	if v := cal.Points[0].Value; v < 400.0/300*0.99 || v > 400.0/300*1.01 {
		t.Errorf("app's first calibrated value %.4f, want ~%.4f (400 ms over 300 ms)", v, 400.0/300)
	}
	var found []Change
	for _, c := range a.All() {
		if c.Series == KindCalibrated {
			found = append(found, c)
		}
		if c.Series == KindTime && c.Workload == "app" && !c.Raw {
			t.Errorf("app's raw time change point %+v not marked Raw", c)
		}
	}
	if len(found) != 1 || found[0].Index != 8 || found[0].Change < 0.04 || found[0].Change > 0.06 {
		t.Fatalf("calibrated change points %+v, want one at 8 of about +5%%", found)
	}
	slower := a.NewSlower()
	if len(slower) != 1 || slower[0].Series != KindCalibrated {
		t.Errorf("new slower change points %+v, want the calibrated one alone", slower)
	}
	// Without the calibration, the same invocations are judged by their raw
	// time, whose drift is larger than the step.
	for i := range es {
		es[i].Settings.Calibration = ""
	}
	for _, c := range Analyze(es, stats.ChangeOptions{}).All() {
		if c.Raw || c.Series == KindCalibrated {
			t.Errorf("without a calibration: %+v", c)
		}
	}
}
