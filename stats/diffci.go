package stats

import (
	"math"
	"slices"
)

// DiffCI estimates median(a) − median(b) and a 95% percentile-bootstrap
// interval, each sample resampled on its own BootstrapResamples times (the
// model and method of RatioCI). With fewer than MinRunsForInterval values
// on either side there is no interval (0, 0), as for RatioCI: a percentile
// bootstrap of 3 runs covers far less than 95%.
func DiffCI(a, b []float64) (diff, lo, hi float64) {
	diff = Median(a) - Median(b)
	if len(a) < MinRunsForInterval || len(b) < MinRunsForInterval {
		return diff, 0, 0
	}
	lo, hi = medianBootstrap(a, b, func(x, y float64) float64 { return x - y })
	return diff, lo, hi
}

// medianBootstrap is the 95% percentile-bootstrap interval of
// op(median(num), median(den)), with the fixed seed of every interval here.
func medianBootstrap(num, den []float64, op func(x, y float64) float64) (lo, hi float64) {
	rng := newBootstrapRand()
	rs := make([]float64, BootstrapResamples)
	sn, sd := newResampler(num), newResampler(den)
	for i := range rs {
		bn := sn.draw(rng)
		rs[i] = op(sortedMedian(bn), sortedMedian(sd.draw(rng)))
	}
	slices.Sort(rs)
	lo, hi = percentiles(rs, Confidence)
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return 0, 0
	}
	return lo, hi
}
