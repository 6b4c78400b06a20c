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
	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/reports/numfmt"
	"vbench/stats"
)

// Options are the decision thresholds.
type Options struct {
	Alpha     float64 // significance level of the rule's test, e.g. 0.01
	MinChange float64 // smallest relative change that counts, e.g. 0.05
}

// OptionsOf reads the thresholds recorded in a results file's settings.
func OptionsOf(f *results.File) Options {
	return Options{Alpha: f.Settings.Alpha, MinChange: f.Settings.Threshold}
}

// Compare gives every cell of cur a verdict against the same cell of base and
// records the comparison in cell.Compare, with the rule of stats.Judge on
// the cells' metric (results.Cell.Values). A cell is
//
//   - failed    when it failed in cur;
//   - new       when base has no successful cell to compare with;
//   - regressed when it is slower (see Decide), or when its overhead
//     multiple grew in the same sense (per-run multiples against the none
//     cell of the same file);
//   - improved  when faster in the same sense and not regressed;
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
	oldX, newX := old.Values(), c.Values()
	ch, timeV := judge(oldX, newX, opts)
	ch.BaselineMedianNs = stats.Median(oldX)
	reasons := []string{describe(string(c.Metric.OrDefault()), timeV, ch.Ratio, ch.P, opts)}

	overV := results.VerdictSame
	if c.Mode != modes.None {
		oa, na := stats.OverheadSamples(base, old), stats.OverheadSamples(cur, c)
		if len(oa) > 0 && len(na) > 0 {
			o := stats.Judge(oa, na, opts.Alpha)
			ch.BaselineOverhead = old.Overhead
			if ch.BaselineOverhead == 0 {
				ch.BaselineOverhead = finite(stats.Median(oa))
			}
			ch.OverheadRatio = finite(o.Ratio)
			ch.OverheadP = o.P
			overV = Decide(o, opts)
			reasons = append(reasons, describe("overhead", overV, o.Ratio, o.P, opts))
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
		reasons = append(reasons, fmt.Sprintf("too few runs (%d vs %d) to reach p < %g", len(oldX), len(newX), opts.Alpha))
	}
	ch.Reason = strings.Join(reasons, "; ")
	c.Compare = ch
}

// judge applies the rule to one pair of samples and records it as a Change
// (ratios made finite: JSON has no Inf or NaN, and a baseline whose
// estimate is 0 made the ratio infinite).
func judge(old, new []float64, opts Options) (*results.Change, string) {
	j := stats.Judge(old, new, opts.Alpha)
	return &results.Change{
		Ratio:      finite(j.Ratio),
		RatioLo:    finite(j.Lo),
		RatioHi:    finite(j.Hi),
		P:          j.P,
		Comparable: j.MinP < opts.Alpha,
	}, Decide(j, opts)
}

// Decide turns a judgement into a verdict with the options' thresholds
// (stats.Judgement.Verdict: significant and not shown to be smaller than
// MinChange).
func Decide(j stats.Judgement, opts Options) string { return j.Verdict(opts.Alpha, opts.MinChange) }

func describe(what, verdict string, ratio, p float64, opts Options) string {
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
