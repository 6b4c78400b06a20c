// Package baseline compares results with a stored baseline (a verdict per
// cell) and writes baselines safely: atomically, under a lock, and only from
// complete, successful results.
package baseline

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"vbench/internal/machine"
	"vbench/internal/results"
	"vbench/reports/numfmt"
	"vbench/stats"
)

// Options are the decision thresholds.
type Options struct {
	Alpha     float64 // significance level of the Mann-Whitney U test, e.g. 0.01
	MinChange float64 // smallest relative change that counts, e.g. 0.05
}

// OptionsOf reads the thresholds recorded in a results file's settings.
func OptionsOf(f *results.File) Options {
	return Options{Alpha: f.Settings.Alpha, MinChange: f.Settings.Threshold}
}

// Compare gives every cell of cur a verdict against the same cell of base and
// records the comparison in cell.Compare. A cell is
//
//   - failed    when it failed in cur;
//   - new       when base has no successful cell to compare with;
//   - regressed when its times (its metric) are slower, significantly (U test,
//     p < Alpha) and by more than MinChange (median ratio > 1+MinChange), or
//     when its overhead multiple grew in the same sense (per-run multiples
//     against the none median of the same file, U test, ratio of overheads);
//   - improved  when faster in the same sense (ratio < 1-MinChange) and not
//     regressed;
//   - same      otherwise.
//
// A machine fingerprint mismatch adds a warning to cur; it does not stop the
// comparison. Callers refuse files whose metrics differ first (CheckMetrics).
func Compare(base, cur *results.File, opts Options) {
	// A warning about an earlier comparison's baseline no longer applies.
	kept := cur.Warnings[:0]
	for _, w := range cur.Warnings {
		if !strings.HasPrefix(w, mismatchWarning) && !strings.HasPrefix(w, suiteWarning) {
			kept = append(kept, w)
		}
	}
	cur.Warnings = kept
	if m := machine.Mismatch(base.Machine, cur.Machine); len(m) > 0 {
		cur.Warnings = append(cur.Warnings, mismatchWarning+" ("+strings.Join(m, "; ")+"): verdicts may reflect the machine, not the code")
	}
	if base.Suite.SHA256 != cur.Suite.SHA256 {
		cur.Warnings = append(cur.Warnings, suiteWarning+": workload arguments may differ")
	}
	for i := range cur.Results {
		compareCell(base, cur, &cur.Results[i], opts)
	}
}

const (
	mismatchWarning = "baseline was measured on a different machine"
	suiteWarning    = "baseline was recorded from another version of the suite file"
)

// MarkNew gives verdicts without a baseline: failed cells fail, the rest are new.
func MarkNew(cur *results.File) {
	for i := range cur.Results {
		c := &cur.Results[i]
		c.Compare = nil
		if c.Failed() {
			c.Verdict = results.VerdictFailed
		} else {
			c.Verdict = results.VerdictNew
		}
	}
}

func compareCell(base, cur *results.File, c *results.Cell, opts Options) {
	c.Compare = nil
	if c.Failed() {
		c.Verdict = results.VerdictFailed
		return
	}
	old := base.Find(c.Workload, c.Mode)
	if old == nil || old.Failed() || len(old.Values()) == 0 || c.Runs == 0 || old.Metric.OrDefault() != c.Metric.OrDefault() {
		c.Verdict = results.VerdictNew
		return
	}
	oldEl, newEl := old.Values(), c.Values()
	t := stats.Compare(oldEl, newEl)
	_, lo, hi := stats.RatioCI(newEl, oldEl)
	// Verdicts use the ratios as they are; the file gets them finite (JSON
	// has no Inf or NaN, and a baseline whose median is 0 made the ratio
	// infinite: the whole run's results could not be saved).
	ch := &results.Change{
		BaselineMedianNs: stats.Median(oldEl),
		Ratio:            finite(t.Ratio),
		RatioLo:          finite(lo),
		RatioHi:          finite(hi),
		P:                t.P,
		Comparable:       minP(len(oldEl), len(newEl)) < opts.Alpha,
	}
	timeV := decide(t.P, t.Ratio, opts)
	reasons := []string{describe("time", timeV, t.P, t.Ratio, opts)}

	overV := results.VerdictSame
	if c.Mode != results.ModeNone {
		oa, na := stats.OverheadSamples(base, old), stats.OverheadSamples(cur, c)
		if len(oa) > 0 && len(na) > 0 {
			o := stats.Compare(oa, na)
			ch.BaselineOverhead = old.Overhead
			if ch.BaselineOverhead == 0 {
				ch.BaselineOverhead = finite(stats.Median(oa))
			}
			ch.OverheadRatio = finite(o.Ratio)
			ch.OverheadP = o.P
			overV = decide(o.P, o.Ratio, opts)
			reasons = append(reasons, describe("overhead", overV, o.P, o.Ratio, opts))
		}
	}
	switch {
	case timeV == results.VerdictRegressed || overV == results.VerdictRegressed:
		c.Verdict = results.VerdictRegressed
	case timeV == results.VerdictImproved || overV == results.VerdictImproved:
		c.Verdict = results.VerdictImproved
	default:
		c.Verdict = results.VerdictSame
	}
	if !ch.Comparable {
		reasons = append(reasons, fmt.Sprintf("too few runs (%d vs %d) to reach p < %g", len(oldEl), len(newEl), opts.Alpha))
	}
	ch.Reason = strings.Join(reasons, "; ")
	c.Compare = ch
}

// decide applies both tests: significance and the minimum effect.
func decide(p, ratio float64, opts Options) string {
	if !(p < opts.Alpha) {
		return results.VerdictSame
	}
	switch {
	case ratio > 1+opts.MinChange:
		return results.VerdictRegressed
	case ratio < 1-opts.MinChange:
		return results.VerdictImproved
	}
	return results.VerdictSame
}

func describe(what, verdict string, p, ratio float64, opts Options) string {
	d := what + " " + numfmt.ChangeP(ratio, p)
	switch {
	case verdict != results.VerdictSame:
		return d + " " + verdict
	case !(p < opts.Alpha):
		return d + " not significant"
	default:
		return d + fmt.Sprintf(" within ±%g%%", 100*opts.MinChange)
	}
}

// minP is the smallest two-sided p-value a U test of n1 vs n2 values can
// give: 2 / C(n1+n2, n1). Below alpha only if the test can ever fire.
func minP(n1, n2 int) float64 {
	lc, _ := math.Lgamma(float64(n1 + n2 + 1))
	l1, _ := math.Lgamma(float64(n1 + 1))
	l2, _ := math.Lgamma(float64(n2 + 1))
	return math.Min(1, 2*math.Exp(-(lc-l1-l2)))
}

func finite(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0
	}
	return x
}

// CheckMetrics refuses to judge cur against base when a workload both
// measured was measured by different metrics: a wall time against an
// elapsed time is no change of the code. cur maps each workload to the
// metric of its cells (MetricsOf, or a plan's before it runs); the names
// are the files' as the user gave them.
func CheckMetrics(baseName string, base *results.File, curName string, cur map[string]results.Metric) error {
	old := MetricsOf(base)
	for _, w := range sortedKeys(cur) {
		if om, ok := old[w]; ok && om != cur[w] {
			return fmt.Errorf("workload %s is measured by %s in %s and by %s in %s: refusing to compare different metrics (record a new baseline with 'vbench baseline update')", w, om, baseName, cur[w], curName)
		}
	}
	return nil
}

// MetricsOf maps each workload of f to the metric its cells measured.
func MetricsOf(f *results.File) map[string]results.Metric {
	m := map[string]results.Metric{}
	for _, c := range f.Results {
		m[c.Workload] = c.Metric.OrDefault()
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
