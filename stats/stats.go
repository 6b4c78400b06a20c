// Package stats turns raw run times into the numbers vbench reports: medians
// with 95% confidence intervals, median absolute deviations, outlier flags,
// overhead multiples with confidence intervals, and the verdict rule's
// judgement of a new sample against an old one (judge.go).
//
// Medians and their confidence intervals come from
// golang.org/x/perf/benchmath (AssumeNothing), so vbench prints the numbers
// benchstat would print for the same samples; so does Compare, the
// Mann-Whitney U test the rule replaced (kept for the noise study and the
// benchstat cross-check). Quantiles of bootstrap distributions come from
// gonum. The bootstrap and permutation loops (a few lines each) and the MAD
// are written here; no library in reach offers them.
package stats

import (
	"math"
	"math/rand/v2"
	"sort"

	"golang.org/x/perf/benchmath"
)

// Confidence is the level of every interval vbench reports.
const Confidence = 0.95

// MinRunsForInterval is the fewest runs a 95% interval is given from: a
// median's (order statistics: below 6 none reaches 95%) and, by the same
// rule, an overhead multiple's (each side).
const MinRunsForInterval = 6

// OutlierZ is the modified z-score beyond which a run is flagged as an
// outlier (Iglewicz and Hoaglin): |x - median| / (1.4826 * MAD) > 3.5.
const OutlierZ = 3.5

// OutlierFloor is the least scale of the outlier rule, as a fraction of
// the median (Outliers).
const OutlierFloor = 0.01

// madScale makes the MAD a consistent estimator of the standard deviation
// for normal data.
const madScale = 1.4826

// Summary describes one sample.
type Summary struct {
	N      int
	Median float64
	// Lo and Hi bound the median's confidence interval (order statistics,
	// distribution-free). They are ±Inf when N is too small for one (N < 6
	// at 95%); Warnings then says so.
	Lo, Hi     float64
	Confidence float64 // actual level, >= Confidence
	MAD        float64 // median absolute deviation (unscaled)
	Warnings   []string
}

// Summarize computes the median, its 95% confidence interval and the MAD.
// xs is not modified.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{Median: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), MAD: math.NaN(), Warnings: []string{"no samples"}}
	}
	s := benchmath.NewSample(clone(xs), &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, Confidence)
	out := Summary{N: len(xs), Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi, Confidence: sum.Confidence, MAD: MAD(xs, sum.Center)}
	for _, w := range sum.Warnings {
		out.Warnings = append(out.Warnings, w.Error())
	}
	return out
}

// Median is the sample median (the mean of the two middle values for an even
// count), the same statistic benchmath reports.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := clone(xs)
	sort.Float64s(s)
	return sortedMedian(s)
}

func sortedMedian(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// MAD is the median absolute deviation of xs around median.
func MAD(xs []float64, median float64) float64 {
	dev := make([]float64, len(xs))
	for i, x := range xs {
		dev[i] = math.Abs(x - median)
	}
	return Median(dev)
}

// Outliers flags the values whose modified z-score exceeds OutlierZ, with
// the scale (1.4826·MAD) never below OutlierFloor of the median: so a run
// is an outlier only when it is also more than OutlierZ·OutlierFloor (3.5%)
// off the median. Without the floor a MAD of zero (more than half the runs
// equal: two of three at n=3) made any run off the median an outlier, a
// 1.7% difference included; a shared machine's timings are not that precise.
func Outliers(xs []float64) []bool {
	out := make([]bool, len(xs))
	if len(xs) < 3 {
		return out
	}
	med := Median(xs)
	scale := math.Max(madScale*MAD(xs, med), OutlierFloor*math.Abs(med))
	for i, x := range xs {
		d := math.Abs(x - med)
		out[i] = d > 0 && (scale == 0 || d/scale > OutlierZ)
	}
	return out
}

// Comparison is the outcome of comparing a sample with a baseline sample.
type Comparison struct {
	P        float64 // Mann-Whitney U, two-sided; 1 when the test could not run
	Ratio    float64 // median(new) / median(old)
	Warnings []string
}

// Compare runs the Mann-Whitney U test (benchmath.AssumeNothing, as
// benchstat) between old and new and reports the ratio of their medians.
func Compare(old, new []float64) Comparison {
	th := benchmath.DefaultThresholds
	a := benchmath.NewSample(clone(old), &th)
	b := benchmath.NewSample(clone(new), &th)
	c := benchmath.AssumeNothing.Compare(a, b)
	out := Comparison{P: c.P, Ratio: Median(new) / Median(old)}
	for _, w := range c.Warnings {
		out.Warnings = append(out.Warnings, w.Error())
	}
	return out
}

// Bootstrap settings for ratio intervals. The seed is fixed so the same
// samples always give the same interval (results files are reproducible).
const (
	BootstrapResamples = 4000
	bootstrapSeed1     = 0x76626e6368 // "vbnch"
	bootstrapSeed2     = 1
)

// RatioCI estimates median(num)/median(den) and a 95% percentile-bootstrap
// interval: both samples are resampled independently (with replacement)
// BootstrapResamples times and the 2.5% and 97.5% quantiles of the resampled
// ratios are taken. The samples are independent runs of two cells, so
// resampling them independently is the right model; the percentile method
// needs no assumption about the shape of either distribution. With fewer
// than MinRunsForInterval values on either side there is no interval (NaN),
// as for a median's: a bootstrap of 3 vs 3 runs can draw only a few
// medians, and its "95%" interval covered the true ratio 89% of the time
// (n=4: 93%; 1000 simulated log-normal experiments, σ 5%).
func RatioCI(num, den []float64) (ratio, lo, hi float64) {
	ratio = Median(num) / Median(den)
	if len(num) < MinRunsForInterval || len(den) < MinRunsForInterval {
		return ratio, math.NaN(), math.NaN()
	}
	lo, hi = medianBootstrap(num, den, func(x, y float64) float64 { return x / y })
	if lo == 0 && hi == 0 {
		return ratio, math.NaN(), math.NaN()
	}
	return ratio, lo, hi
}

func newBootstrapRand() *rand.Rand { return rand.New(rand.NewPCG(bootstrapSeed1, bootstrapSeed2)) }

// sorted is a sorted copy of xs.
func sorted(xs []float64) []float64 {
	s := clone(xs)
	sort.Float64s(s)
	return s
}

func clone(xs []float64) []float64 { return append([]float64(nil), xs...) }
