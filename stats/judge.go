package stats

import (
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// The verdict rule's statistics: how a new sample compares with an old one.
// Two tests, one per kind of comparison (internal/verdict picks and
// decides): JudgePaired for an A/B pair, whose runs ran in the same rounds
// (below), and Judge for a stored baseline, which ran in another
// invocation. Judge was chosen by its false alarms and its power on run
// times recorded on a shared 2-core machine (docs/notebook/statistical-quality.md;
// testdata/noise.json):
//
//   - estimate: the ratio of the two samples' FastHalf means (the mean of
//     the faster half of the runs: a disturbed run only ever adds time, so
//     the fast half is where the code's own speed shows; using half the runs
//     rather than one quantile keeps it steady);
//   - test: a permutation test of the same estimates: the runs are shuffled
//     between the two sides Permutations times, and p is the share of
//     shuffles whose estimates differ at least as much as the observed ones
//     (a difference rather than a ratio, so that a side of zeros — a kernel
//     too short for the clock — is still judged). Under "no change" a
//     shuffle leaves the samples' distribution unchanged, so p is
//     calibrated whatever the shape of the noise (heavy tails, several
//     modes) — as long as the runs are exchangeable, which a run's A/B
//     pairs, sharing host episodes round by round, are not (JudgePaired);
//   - intervals: a percentile bootstrap of the same ratio (each side
//     resampled on its own): at 95% to report, and at 1 - alpha, the
//     level of the test, to decide whether a change can be as large as
//     the minimum change (internal/verdict).
//
// Hand-written here: the estimator, the permutation loop and the bootstrap
// loop (a few lines each; no library in reach has a permutation test or a
// bootstrap for an arbitrary statistic). Quantiles come from gonum.

// Estimator is a location estimate of a sorted sample.
type Estimator func(sorted []float64) float64

// FastHalf is the mean of the faster half of a sorted sample (the middle
// value included when the count is odd).
func FastHalf(sorted []float64) float64 {
	h := sorted[:(len(sorted)+1)/2]
	t := 0.0
	for _, x := range h {
		t += x
	}
	return t / float64(len(h))
}

// Quantile returns the estimator of the q-quantile (gonum's linear
// interpolation of the empirical distribution).
func Quantile(q float64) Estimator {
	return func(s []float64) float64 { return stat.Quantile(q, stat.LinInterp, s, nil) }
}

// Estimate is the rule's estimator.
var Estimate Estimator = FastHalf

// Judgement is a new sample judged against an old one.
type Judgement struct {
	Ratio  float64 // Estimate(new) / Estimate(old)
	Lo, Hi float64 // 95% bootstrap interval of Ratio; NaN with fewer than 2 runs a side
	// DecideLo and DecideHi bound Ratio at level 1 - alpha (the same
	// resamples): what Verdict compares with the minimum change.
	DecideLo, DecideHi float64
	P                  float64 // two-sided permutation p-value; 1 when nothing could be tested
	// MinP is the smallest p-value the test can give these sample sizes:
	// 2/C(n1+n2, n1) (the observed split and its mirror), and no less than
	// 1/(1+Permutations). Below alpha only if the test can fire.
	MinP float64
	// Paired is set when the judgement is JudgePaired's: runs paired by
	// round, the signed-rank test and the Hodges-Lehmann ratio.
	Paired bool
}

// Settings of the resampling. The seed is fixed so the same samples always
// get the same judgement (results files are reproducible).
const (
	Permutations = 4000
	// MorePermutations is how many shuffles a p below alpha gets in all: a
	// run's verdicts are adjusted for the number of tests (Holm), which
	// needs p-values finer than 1/4001 to be told apart near alpha/tests.
	MorePermutations = 40000
	judgeSeed        = 0x6a75646765 // "judge"
)

// Judge applies the rule to old and new at significance level alpha.
func Judge(old, new []float64, alpha float64) Judgement {
	return JudgeWith(Estimate, old, new, alpha)
}

// JudgeWith is Judge with another estimator (the noise study compares them).
func JudgeWith(est Estimator, old, new []float64, alpha float64) Judgement {
	nan := math.NaN()
	j := Judgement{Ratio: nan, Lo: nan, Hi: nan, DecideLo: nan, DecideHi: nan, P: 1, MinP: 1}
	if len(old) == 0 || len(new) == 0 {
		return j
	}
	// Both loops hand the estimator sides already sorted (permuter, resampler).
	ratio := func(o, n []float64) float64 { return est(n) / est(o) }
	diff := func(o, n []float64) float64 { return est(n) - est(o) }
	j.Ratio = ratio(sorted(old), sorted(new))
	j.MinP = math.Max(minPUnpaired(len(old), len(new)), 1/float64(1+MorePermutations))
	rng := rand.New(rand.NewPCG(judgeSeed, uint64(len(old))<<32|uint64(len(new))))
	j.P = permutationP(rng, diff, old, new, alpha)
	if len(old) >= 2 && len(new) >= 2 {
		rs := bootstrap(rng, ratio, old, new)
		j.Lo, j.Hi = percentiles(rs, Confidence)
		j.DecideLo, j.DecideHi = percentiles(rs, 1-alpha)
	}
	return j
}

// JudgePaired applies the A/B rule to two cells that ran in the same
// rounds: old[i] and new[i] are round i's runs, in random order within the
// round. Each round gives one log ratio ln(new[i]/old[i]); under "no
// change" its sign is a coin flip whatever else happened in that round (a
// host episode that slowed the whole round cancels out), so the exact
// Wilcoxon signed-rank test is valid with no assumption about the noise
// but that, and the ratio is the Hodges-Lehmann estimate of the per-round
// ratio with its exact intervals (at 95% to report, at 1 - alpha to decide).
// Rounds are what the unpaired test could not account for: episodes that
// last several rounds made the runs of one cell not exchangeable.
//
// It falls back to Judge when the sides differ in length or a time is not
// positive (a kernel too short for the clock).
func JudgePaired(old, new []float64, alpha float64) Judgement {
	d, ok := logRatios(old, new)
	if !ok {
		return Judge(old, new, alpha)
	}
	nonzero := 0
	for _, x := range d {
		if x != 0 {
			nonzero++
		}
	}
	w := walsh(d)
	j := Judgement{Ratio: math.Exp(sortedMedian(w)), P: SignedRankP(d), MinP: MinSignedRankP(nonzero), Paired: true}
	nan := math.NaN()
	j.Lo, j.Hi, j.DecideLo, j.DecideHi = nan, nan, nan, nan
	if len(d) >= 2 {
		lo, hi := walshInterval(w, len(d), Confidence)
		j.Lo, j.Hi = math.Exp(lo), math.Exp(hi)
		lo, hi = walshInterval(w, len(d), 1-alpha)
		j.DecideLo, j.DecideHi = math.Exp(lo), math.Exp(hi)
	}
	return j
}

// PairedP is JudgePaired's p-value alone (what each earlier look of an A/B
// pair needs), without its intervals.
func PairedP(old, new []float64, alpha float64) float64 {
	if d, ok := logRatios(old, new); ok {
		return SignedRankP(d)
	}
	return Judge(old, new, alpha).P
}

// logRatios are ln(new[i]/old[i]); not ok when the sides differ in length,
// are empty, or a time is not positive.
func logRatios(old, new []float64) ([]float64, bool) {
	if len(old) != len(new) || len(old) == 0 {
		return nil, false
	}
	d := make([]float64, len(old))
	for i := range old {
		if !(old[i] > 0 && new[i] > 0) {
			return nil, false
		}
		d[i] = math.Log(new[i] / old[i])
	}
	return d, true
}

// permutationP is the share of shuffles whose |diff| is at least the
// observed one, counting the observed split itself ((1+hits)/(1+N), so p is
// never 0). diff takes each side sorted.
func permutationP(rng *rand.Rand, diff func(o, n []float64) float64, old, new []float64, alpha float64) float64 {
	observed := math.Abs(diff(sorted(old), sorted(new)))
	if math.IsNaN(observed) {
		return 1
	}
	perm := newPermuter(old, new)
	hits, done := 0, 0
	shuffle := func(until int) {
		for ; done < until; done++ {
			o, n := perm.shuffle(rng)
			// A tolerance for rounding: shuffles as extreme as the data count.
			if math.Abs(diff(o, n)) >= observed*(1-1e-12) {
				hits++
			}
		}
	}
	shuffle(Permutations)
	// Only a small p needs the finer resolution; the first Permutations
	// shuffles are the same either way, so larger p-values are unchanged.
	if float64(1+hits)/float64(1+done) < alpha {
		shuffle(MorePermutations)
	}
	return float64(1+hits) / float64(1+done)
}

// bootstrap is the ratio over BootstrapResamples resamples of each side on
// its own (drawn as RatioCI draws them), sorted. ratio takes each side
// sorted.
func bootstrap(rng *rand.Rand, ratio func(o, n []float64) float64, old, new []float64) []float64 {
	so, sn := newResampler(old), newResampler(new)
	rs := make([]float64, BootstrapResamples)
	for i := range rs {
		ro := so.draw(rng)
		rs[i] = ratio(ro, sn.draw(rng))
	}
	sort.Float64s(rs)
	return rs
}

// percentiles is the central interval at level of sorted resamples.
func percentiles(rs []float64, level float64) (lo, hi float64) {
	a := (1 - level) / 2
	return stat.Quantile(a, stat.Empirical, rs, nil), stat.Quantile(1-a, stat.Empirical, rs, nil)
}

// minPUnpaired is the smallest two-sided p-value of a test that shuffles
// n1+n2 runs between two sides: 2/C(n1+n2, n1).
func minPUnpaired(n1, n2 int) float64 {
	lc, _ := math.Lgamma(float64(n1 + n2 + 1))
	l1, _ := math.Lgamma(float64(n1 + 1))
	l2, _ := math.Lgamma(float64(n2 + 1))
	return math.Min(1, 2*math.Exp(-(lc-l1-l2)))
}
