package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// Textbook values: for n = 10 the distribution-free 95% interval of the
// median is [x(2), x(9)] with actual coverage 1 - 2*P(Bin(10,.5) <= 1) = 0.9785.
func TestSummarizeKnown(t *testing.T) {
	xs := []float64{7, 3, 10, 1, 5, 2, 9, 4, 8, 6}
	s := Summarize(xs)
	if s.N != 10 || s.Median != 5.5 || s.Lo != 2 || s.Hi != 9 || !near(s.Confidence, 0.978515625, 1e-9) {
		t.Errorf("Summarize = %+v", s)
	}
	if s.MAD != 2.5 { // |x-5.5| = .5,.5,1.5,1.5,2.5,2.5,3.5,3.5,4.5,4.5
		t.Errorf("MAD = %v, want 2.5", s.MAD)
	}
	if xs[0] != 7 {
		t.Errorf("Summarize sorted its input")
	}
	// Odd n: the middle value; n=5 has no 95% interval.
	s = Summarize([]float64{5, 1, 4, 2, 3})
	if s.Median != 3 || !math.IsInf(s.Lo, -1) || len(s.Warnings) != 1 {
		t.Errorf("n=5: %+v", s)
	}
}

func TestOutliers(t *testing.T) {
	xs := []float64{10, 11, 12, 13, 100}
	got := Outliers(xs)
	want := []bool{false, false, false, false, true}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("Outliers(%v) = %v, want %v", xs, got, want)
		}
	}
	// MAD 0: everything off the median is an outlier.
	got = Outliers([]float64{5, 5, 5, 5, 6})
	if !got[4] || got[0] {
		t.Errorf("MAD 0: %v", got)
	}
	// MAD 0 at small n: a run 1.7% off the other two is no outlier (it
	// used to be flagged: every value off the median was); 10% off is.
	if got := Outliers([]float64{101.2, 101.2, 102.9}); got[2] {
		t.Errorf("101.2, 101.2, 102.9: flagged 102.9 (1.7%% off): %v", got)
	}
	if got := Outliers([]float64{100, 100, 110}); !got[2] || got[0] {
		t.Errorf("100, 100, 110: %v", got)
	}
	// A tight spread (MAD 0.1%) flags only what is beyond 3.5% as well.
	if got := Outliers([]float64{1000, 1001, 999, 1000, 1002, 998, 1030, 1040}); got[6] || !got[7] {
		t.Errorf("tight spread: %v", got)
	}
	// Normal spread: no flags.
	for _, o := range Outliers([]float64{100, 101, 99, 102, 98, 100, 101}) {
		if o {
			t.Errorf("flagged an ordinary value")
		}
	}
}

// Exact Mann-Whitney U: completely separated samples of 5 and 5 give the
// smallest two-sided p there is, 2/C(10,5) = 2/252.
func TestCompareKnown(t *testing.T) {
	c := Compare([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10})
	if !near(c.P, 2.0/252, 1e-12) || c.Ratio != 8.0/3 {
		t.Errorf("Compare = %+v", c)
	}
	c = Compare([]float64{1, 2, 3, 4, 5}, []float64{1, 2, 3, 4, 5})
	if c.P != 1 || c.Ratio != 1 {
		t.Errorf("identical samples: %+v", c)
	}
}

func TestRatioCI(t *testing.T) {
	den := []float64{100, 102, 98, 101, 99, 103, 97, 100, 101, 99}
	num := make([]float64, len(den))
	for i, x := range den {
		num[i] = 2 * x
	}
	r, lo, hi := RatioCI(num, den)
	if r != 2 || !(lo < 2 && 2 < hi) || lo < 1.9 || hi > 2.1 {
		t.Errorf("RatioCI = %v [%v, %v]", r, lo, hi)
	}
	r2, lo2, hi2 := RatioCI(num, den)
	if r2 != r || lo2 != lo || hi2 != hi {
		t.Errorf("RatioCI is not deterministic")
	}
	if _, lo, _ := RatioCI([]float64{1}, den); !math.IsNaN(lo) {
		t.Errorf("one value should give no interval")
	}
	// Below 6 runs a side, as for a median: no interval (3 vs 3 used to get
	// a "95%" one that covers about 89% of the time).
	if r, lo, hi := RatioCI(num[:5], den); r == 0 || !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("5 vs 10 runs: RatioCI = %v [%v, %v], want no interval", r, lo, hi)
	}
	if _, lo, _ := RatioCI(num[:6], den[:6]); math.IsNaN(lo) {
		t.Errorf("6 vs 6 runs: no interval")
	}
}

// The bootstrap interval must cover the true ratio of medians about 95% of
// the time. 300 simulated experiments of 10 vs 10 log-normal runs with a true
// ratio of 1.3; the seed is fixed, so this is deterministic.
func TestRatioCICoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	const trials, n, ratio, sigma = 300, 10, 1.3, 0.05
	covered := 0
	for i := 0; i < trials; i++ {
		den := make([]float64, n)
		num := make([]float64, n)
		for j := 0; j < n; j++ {
			den[j] = 1e6 * math.Exp(sigma*rng.NormFloat64())
			num[j] = ratio * 1e6 * math.Exp(sigma*rng.NormFloat64())
		}
		_, lo, hi := RatioCI(num, den)
		if lo <= ratio && ratio <= hi {
			covered++
		}
	}
	rate := float64(covered) / trials
	t.Logf("coverage %.3f", rate)
	// Percentile bootstraps of medians of small samples run a little under
	// nominal; below 0.88 would be a broken method.
	if rate < 0.88 || rate > 0.995 {
		t.Errorf("coverage %.3f, want about 0.95", rate)
	}
}

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
