package baseline

import (
	"fmt"
	"strings"

	"vbench/internal/results"
	"vbench/stats"
)

// JudgeAgainst gives every cell whose mode is judged against another mode
// of the same run (ModeSpec.Against: a suite's `against:`, or the OLD
// build's twin under `vbench run --against`) its A/B verdict: the same rule
// as Compare (stats.Judge on the cells' metric), the other cell as the
// baseline, the pair's runs interleaved in the same rounds so that drift
// between invocations cannot enter. It replaces whatever verdict the cell
// had (a stored baseline's); cells without an against keep theirs.
//
//   - failed    when the cell failed;
//   - new       when the cell it is judged against failed or is missing (a
//     shard of another split);
//   - regressed, improved or same as Decide says.
func JudgeAgainst(f *results.File, opts Options) {
	for i := range f.Results {
		c := &f.Results[i]
		against := f.ModeSpec(c.Mode).Against
		if against == "" {
			continue
		}
		c.Compare = nil
		if c.Failed() {
			c.Verdict = results.VerdictFailed
			continue
		}
		old := f.Find(c.Workload, against)
		if old == nil || old.Failed() || len(old.Values()) == 0 || c.Runs == 0 {
			c.Verdict = results.VerdictNew
			continue
		}
		oldX, newX := old.Values(), c.Values()
		ch, v := judge(oldX, newX, opts)
		ch.Against = against
		ch.BaselineMedianNs = stats.Median(oldX)
		reasons := []string{describe(fmt.Sprintf("%s vs %s", c.Metric.OrDefault(), against), v, ch.Ratio, ch.P, opts)}
		if !ch.Comparable {
			reasons = append(reasons, fmt.Sprintf("too few runs (%d vs %d) to reach p < %g", len(oldX), len(newX), opts.Alpha))
		}
		ch.Reason = strings.Join(reasons, "; ")
		c.Compare, c.Verdict = ch, v
	}
}

// IsAB reports whether f holds an A/B run's cells: measured with two builds
// of the profiler (`vbench run --against`).
func IsAB(f *results.File) bool { return f.Settings.Against != "" }
