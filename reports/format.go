package reports

import (
	"fmt"
	"math"
	"strings"

	"golang.org/x/perf/benchunit"

	"vbench/numfmt"
)

// Numbers are printed the way benchstat prints them: three significant
// digits with an SI prefix, so columns read at a glance.

// fmtNs formats a duration in nanoseconds as every vbench output does
// ("412.3ms", "49.65s", "180.0ns"), with a dash for a missing one.
func fmtNs(ns float64) string {
	if ns == 0 || math.IsNaN(ns) {
		return "—"
	}
	return numfmt.Duration(ns)
}

// fmtBytes formats a size in bytes with binary prefixes: "31.2Mi" + "B".
func fmtBytes(b float64) string {
	if b == 0 {
		return "—"
	}
	return benchunit.Scale(b, benchunit.Binary) + "B"
}

// fmtMult formats an overhead multiple as in table 7.1: "×110.1", "×1.13".
func fmtMult(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	return "×" + fmtSig(x)
}

// fmtSig prints x with three significant digits but never in exponent form
// and with at least two decimals below 10 (1.13, 6.16, 49.7, 121).
func fmtSig(x float64) string {
	switch a := math.Abs(x); {
	case a >= 100:
		return fmt.Sprintf("%.0f", x)
	case a >= 10:
		return fmt.Sprintf("%.1f", x)
	default:
		return fmt.Sprintf("%.2f", x)
	}
}

// fmtInterval prints a multiple's 95% interval: "[118.9–122.7]".
func fmtInterval(lo, hi float64) string {
	if lo == 0 || hi == 0 {
		return ""
	}
	return "[" + fmtSig(lo) + "–" + fmtSig(hi) + "]"
}

// fmtPct prints a ratio as a signed percent change: 1.093 → "+9.3%".
func fmtPct(ratio float64) string {
	if ratio == 0 {
		return "—"
	}
	d := (ratio - 1) * 100
	if math.Abs(d) < 0.05 {
		return "~0%"
	}
	return fmt.Sprintf("%+.1f%%", d)
}

// fmtP prints a p-value the way benchstat does.
func fmtP(p float64) string {
	if p == 0 || math.IsNaN(p) {
		return ""
	}
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

// oneLine squeezes a multi-line failure message into one line for tables.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
