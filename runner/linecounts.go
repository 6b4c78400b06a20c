package runner

import (
	"sort"

	"vbench/internal/profile"
	"vbench/internal/results"
)

// checkLineCounts compares the executions the instrumentation engine with
// lines counted on each declared line (line.<File>:<N>=<count>, matched as
// lineshare.* lines are) with the workload's exact expectations, as
// checkCalls compares calls: each line is one more exact check of the
// cell's accuracy, a wrong one a mismatch naming the line.
func checkLineCounts(c *cellState, seq int, p *profile.Profile, want map[string]int64) {
	if c.accuracy == nil {
		c.accuracy = &results.Accuracy{}
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		_, got := lineTotals(p, k)
		c.accuracy.Checked++
		if got == want[k] {
			c.accuracy.Exact++
		} else if len(c.accuracy.Mismatches) < 10 {
			c.accuracy.Mismatches = append(c.accuracy.Mismatches, results.CallMismatch{Seq: seq, Line: k, Expected: want[k], Actual: got})
		}
	}
}
