package stats

import (
	"math"
	"sort"
)

// Error control for a run's verdicts. Two things multiply the chances of a
// false "regressed" when nothing changed, and each gets its correction:
//
//   - looks: an A/B pair whose verdict is undecided gets more rounds and is
//     judged again (the runner's adaptive rounds); every look is another
//     chance to cross the line. The looks spend alpha: look k of a pair
//     whose runs are capped at max may use Spent(n_k) - Spent(n_{k-1}) of
//     it, Spent(n) = (n/max)^SpendPower, so the looks together never spend
//     more than alpha whatever the noise (a union bound, as in Bonferroni:
//     no assumption about how the looks' statistics correlate). SequentialP
//     folds a pair's looks into one p-value that is valid at any stopping
//     point: the smallest p of a look divided by that look's share.
//   - pairs: a run judges many cells and fails on any. Holm's step-down
//     adjustment of the cells' p-values keeps the chance that a run with
//     no change reports any change at alpha (family-wise), under any
//     dependence between the cells.
//
// A power of 2 spends little on early looks (a third of the cap: 1/9 of
// alpha) and most on the last, between Pocock's equal shares and
// O'Brien-Fleming's near-nothing early (Lan and DeMets' power family).
// Hand-written: the few lines of each; no library here has either.

// SpendPower is the exponent of the alpha-spending function.
const SpendPower = 2

// Spent is the share of alpha spent by a look at n of at most maxRuns runs.
func Spent(n, maxRuns int) float64 {
	if maxRuns <= 0 || n >= maxRuns {
		return 1
	}
	return math.Pow(float64(n)/float64(maxRuns), SpendPower)
}

// Looks are the run counts at which a pair planned at runs, capped at
// maxRuns, is judged: runs, then half of runs more at a time (at least
// one), the last look at maxRuns. Fixed before any run is measured, so the
// spending holds.
func Looks(runs, maxRuns int) []int {
	if runs <= 0 {
		return nil
	}
	looks := []int{runs}
	step := max(1, (runs+1)/2)
	for n := runs; n < maxRuns; {
		n = min(n+step, maxRuns)
		looks = append(looks, n)
	}
	return looks
}

// LooksTaken are the looks of Looks(runs, maxRuns) a pair with n runs has
// passed, ending at n (a run interrupted between looks, or cut short, ends
// with a look of its own).
func LooksTaken(runs, maxRuns, n int) []int {
	var out []int
	for _, k := range Looks(runs, maxRuns) {
		if k <= n {
			out = append(out, k)
		}
	}
	if len(out) == 0 || out[len(out)-1] != n {
		out = append(out, n)
	}
	return out
}

// SequentialP folds the p-values ps of a pair's looks (at run counts looks,
// ascending, capped at maxRuns) into one p-value: min over looks of p_k /
// (Spent(n_k) - Spent(n_{k-1})), at most 1. Rejecting when it is below
// alpha rejects at some look k with p_k below that look's share of alpha,
// which the union bound keeps at alpha overall.
func SequentialP(looks []int, ps []float64, maxRuns int) float64 {
	best := 1.0
	for k := range looks {
		if share := Share(looks, k, maxRuns); share > 0 {
			best = math.Min(best, ps[k]/share)
		}
	}
	return best
}

// Share is the share of alpha look k of looks may spend: Spent(n_k) -
// Spent(n_{k-1}).
func Share(looks []int, k, maxRuns int) float64 {
	prev := 0.0
	if k > 0 {
		prev = Spent(looks[k-1], maxRuns)
	}
	return Spent(looks[k], maxRuns) - prev
}

// Holm returns Holm's step-down adjusted p-values, in the order of ps: the
// i-th smallest p times (m - i + 1), made non-decreasing, at most 1. A
// hypothesis is rejected at family-wise level alpha when its adjusted p
// is below alpha.
func Holm(ps []float64) []float64 {
	m := len(ps)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	adj := make([]float64, m)
	run := 0.0
	for rank, i := range idx {
		run = math.Max(run, math.Min(1, float64(m-rank)*ps[i]))
		adj[i] = run
	}
	return adj
}
