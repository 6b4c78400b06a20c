package history

import (
	"fmt"
	"math/rand/v2"
	"slices"
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
	// CI fails once, on the run that brings the change point, on the
	// calibrated series alone; its family is app's calibrated series, not
	// app's raw time nor cal's.
	fails := 0
	for k := 2 * stats.ChangeMinSize; k <= len(es); k++ {
		a := Analyze(es[:k], stats.ChangeOptions{})
		a.Gate(GateAlpha)
		if a.Family != 1 {
			t.Errorf("%d runs: gate family %d series, want 1 (app calibrated)", k, a.Family)
		}
		slower := a.Failing()
		if len(slower) == 0 {
			continue
		}
		fails++
		if len(slower) != 1 || slower[0].Series != KindCalibrated || slower[0].Index != 8 || !(slower[0].GateP <= GateAlpha) {
			t.Errorf("%d runs: failing change points %+v, want the calibrated one at 8 alone", k, slower)
		}
	}
	if fails != 1 {
		t.Errorf("CI failed on %d of the runs, want the one that brought the step", fails)
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

// gateHistory is n runs of a suite of m workloads (no calibration), each a
// steady 100 ms ± 0.4%, but "w0", which takes step times as long from run
// at on.
func gateHistory(m, n, at int, step float64) []Entry {
	rng := rand.New(rand.NewPCG(11, 24))
	var es []Entry
	for i := 0; i < n; i++ {
		e := Entry{Schema: SchemaVersion, Commit: fmt.Sprint("c", i)}
		for w := 0; w < m; w++ {
			ms := 100.0
			if w == 0 && i >= at {
				ms *= step
			}
			c := results.Cell{Workload: fmt.Sprint("w", w), Mode: modes.None, Metric: results.MetricWall}
			for r := 0; r < 3; r++ {
				c.Samples = append(c.Samples, results.Run{Seq: r, Round: r + 1, WallNs: int64(ms * (1 + 0.004*rng.Float64()) * 1e6)})
			}
			c.Runs = len(c.Samples)
			e.Cells = append(e.Cells, c)
		}
		es = append(es, e)
	}
	return es
}

// The gate judges a run's recent slower change points as one family: the
// same 20% step fails a suite of one workload within 3 runs after 8 steady
// ones; in a suite of 40 it is held (shown, not failed on) 3 runs after 8 —
// which cannot say p < 0.05/40: at best 1 in C(11,3) = 165 orders — and
// fails within 3 runs after 20 steady runs (1 in C(23,3) = 1771), once held
// with 2. CI fails on one run only: the next says "failed before". No other
// workload, all steady, ever fails.
func TestGateJudgesTheRunAsOneFamily(t *testing.T) {
	for _, tc := range []struct {
		m, before, runs int
		fails           bool
	}{{1, 8, 13, true}, {40, 8, 11, false}, {40, 20, 25, true}} {
		es := gateHistory(tc.m, tc.runs, tc.before, 1.2)
		failedAt, failures, held, after := 0, 0, 0, ""
		for k := 2 * stats.ChangeMinSize; k <= len(es); k++ {
			a := Analyze(es[:k], stats.ChangeOptions{})
			a.Gate(GateAlpha)
			if a.Family != tc.m {
				t.Errorf("%d workloads, %d runs: family %d, want %d", tc.m, k, a.Family, tc.m)
			}
			for _, c := range a.All() {
				switch {
				case c.Gate == "":
				case c.Workload != "w0":
					if c.Gate == "fails" {
						t.Errorf("%d workloads, %d runs: steady %s fails: %+v", tc.m, k, c.Workload, c)
					}
				case c.Gate == "held":
					held++
				case c.Gate == "fails":
					failures++
					failedAt = k
					if c.Index < tc.before-1 || c.Index > tc.before+1 {
						t.Errorf("%d workloads: w0 fails at index %d, want %d±1", tc.m, c.Index, tc.before)
					}
				case failedAt == k-1:
					after = c.Gate
				}
			}
		}
		t.Logf("%d workloads, step after %d runs: held on %d runs, failed on run %d (%d runs in), then %q", tc.m, tc.before, held, failedAt, failedAt-tc.before, after)
		switch {
		case !tc.fails && failures > 0:
			t.Errorf("%d workloads, %d runs then 3 slower: CI failed, want held", tc.m, tc.before)
		case !tc.fails && held == 0:
			t.Errorf("%d workloads, %d runs then 3 slower: never held", tc.m, tc.before)
		case tc.fails && (failures != 1 || failedAt > tc.before+3 || after != "failed before"):
			t.Errorf("%d workloads, %d runs then slower: failed on %d runs (last at run %d, want one within 3 runs of the step), the run after says %q", tc.m, tc.before, failures, failedAt, after)
		}
	}
}

// A slower change point smaller than the suite's min_change does not fail
// CI, as a run's verdict would call it same: a steady 3% step holds over
// a suite of one workload, and fails CI where min_change is unset, but with
// min_change 5% it reads "small" on every run.
func TestGateKeepsMinChange(t *testing.T) {
	for _, tc := range []struct {
		minChange float64
		want      string
	}{{0, "fails"}, {0.05, "small"}} {
		es := gateHistory(1, 13, 8, 1.03)
		for i := range es {
			es[i].Settings.Threshold = tc.minChange
		}
		var got []string
		for k := 2 * stats.ChangeMinSize; k <= len(es); k++ {
			a := Analyze(es[:k], stats.ChangeOptions{})
			a.Gate(GateAlpha)
			for _, c := range a.All() {
				if c.Gate != "" {
					got = append(got, c.Gate)
				}
			}
		}
		if len(got) == 0 || got[0] != tc.want || (tc.want == "small" && slices.Contains(got, "fails")) {
			t.Errorf("min_change %g: the 3%% step's gate over the runs %v, want %s first (and never fails when small)", tc.minChange, got, tc.want)
		}
	}
}
