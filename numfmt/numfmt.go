// Package numfmt prints the numbers every vbench output shares, the way
// benchstat prints them, so a time or a change reads the same in the run
// table, a report, a verdict's reason and the progress lines.
package numfmt

import (
	"fmt"
	"math"

	"golang.org/x/perf/benchunit"
)

// Duration prints nanoseconds with four significant digits and an SI prefix:
// "412.3ms", "1.000µs", "49.65s" (x/perf benchunit, as benchstat). Long
// times stay in seconds ("1234.5s", not "1.234ks"); zero is "0s".
func Duration(ns float64) string {
	switch {
	case ns == 0:
		return "0s"
	case math.Abs(ns) >= 999.95e9:
		return fmt.Sprintf("%.1fs", ns/1e9)
	}
	return benchunit.Scale(ns/1e9, benchunit.Decimal) + "s"
}

// Change prints a ratio of medians as a signed percent change with the
// test's p-value: 1.2, 0.0001 → "+20.0% (p=0.000)".
func Change(ratio, p float64) string {
	return fmt.Sprintf("%+.1f%% (p=%.3f)", 100*(ratio-1), p)
}
