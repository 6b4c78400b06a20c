// Package numfmt prints every number a vbench output shows, the way
// benchstat prints them, so a time, a multiple or a change reads the same in
// the run table, a report, a verdict's reason, the progress lines, a profile's
// top table and scripts/studies/statquality. It imports nothing from vbench, so every
// package can use it.
package numfmt

import (
	"fmt"
	"math"
	"strings"

	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

// Missing is printed for a number that was not measured.
const Missing = "—"

// OrMissing prints x with format, or Missing when x is 0, NaN or infinite:
// results files record a number that was not measured as 0.
func OrMissing(x float64, format func(float64) string) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return Missing
	}
	return format(x)
}

// Duration prints nanoseconds with four significant digits and an SI prefix:
// "412.3ms", "1.000µs", "49.65s" (x/perf benchunit, as benchstat). Long
// times stay in seconds ("1234.5s", not "1.234ks"); zero is "0s".
func Duration(ns float64) string {
	switch {
	case math.IsNaN(ns) || math.IsInf(ns, 0):
		return Missing
	case ns == 0:
		return "0s"
	case math.Abs(ns) >= 999.95e9:
		return fmt.Sprintf("%.1fs", ns/1e9)
	}
	return benchunit.Scale(ns/1e9, benchunit.Decimal) + "s"
}

// Bytes prints a size with binary prefixes: "47.99MiB", "512B".
func Bytes(b float64) string {
	if math.IsNaN(b) || math.IsInf(b, 0) {
		return Missing
	}
	return benchunit.Scale(b, benchunit.Binary) + "B"
}

// Multiple prints an overhead multiple with three significant digits:
// "×1.13", "×49.7", "×121". A multiple is never 0: 0, NaN and infinities,
// which mean "not measured", print as Missing.
func Multiple(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return Missing
	}
	return "×" + sig3(x)
}

// Interval prints a multiple's 95% interval: "[5.06, 5.95]"; "" when it
// has none (either end 0: too few runs).
func Interval(lo, hi float64) string {
	if lo == 0 || hi == 0 || math.IsNaN(lo) || math.IsNaN(hi) {
		return ""
	}
	return Range(sig3(lo), sig3(hi))
}

// MultipleCI prints a multiple with its interval, "×5.35 [5.06, 5.95]", or
// only the multiple when it has no interval.
func MultipleCI(x, lo, hi float64) string {
	s := Multiple(x)
	if iv := Interval(lo, hi); iv != "" && s != Missing {
		s += " " + iv
	}
	return s
}

// MultipleTick labels an axis tick at multiple x as briefly as it reads:
// "×1", "×1.5", "×100".
func MultipleTick(x float64) string {
	s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", x), "0"), ".")
	return "×" + s
}

// Range prints two formatted ends as an interval: "[410.2ms, 412.0ms]".
func Range(lo, hi string) string { return "[" + lo + ", " + hi + "]" }

// sig3 prints x with three significant digits but never in exponent form
// and with two decimals below 10 (1.13, 6.16, 49.7, 121).
func sig3(x float64) string {
	switch a := math.Abs(x); {
	case a >= 99.95:
		return fmt.Sprintf("%.0f", x)
	case a >= 9.995:
		return fmt.Sprintf("%.1f", x)
	default:
		return fmt.Sprintf("%.2f", x)
	}
}

// Change prints a ratio (new over old) as a signed percent change:
// 1.2 → "+20.0%", 0.8333 → "-16.7%". A change that rounds to zero is
// "+0.0%", never "-0.0%"; a ratio of 0 (none: the old value was 0) is Missing.
func Change(ratio float64) string {
	if ratio == 0 || math.IsNaN(ratio) || math.IsInf(ratio, 0) {
		return Missing
	}
	d := 100 * (ratio - 1)
	if math.Abs(d) < 0.05 {
		d = 0
	}
	return fmt.Sprintf("%+.1f%%", d)
}

// P prints a test's p-value as benchstat does: "p<0.001" below 0.001,
// else "p=0.012".
func P(p float64) string {
	switch {
	case math.IsNaN(p):
		return "p=" + Missing
	case p < 0.001:
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

// ChangeP prints a change with its test's p-value: "+20.0% (p<0.001)".
func ChangeP(ratio, p float64) string {
	return Change(ratio) + " (" + P(p) + ")"
}

// ChangeCIP prints a change with its interval and p-value:
// "+5.1% [+3.2%, +7.0%] (p<0.001)"; without an interval (lo and hi 0)
// as ChangeP.
func ChangeCIP(ratio, lo, hi, p float64) string {
	if lo == 0 && hi == 0 {
		return ChangeP(ratio, p)
	}
	return Change(ratio) + " " + Range(Change(lo), Change(hi)) + " (" + P(p) + ")"
}

// ChangeCIPAdj is ChangeCIP with the adjusted p the verdict was decided by
// (a run's many tests, a pair's looks) after the change's own:
// "+3.7% [+1.0%, +6.5%] (p=0.007, adj. p=0.105)"; a NaN adj adds nothing.
func ChangeCIPAdj(ratio, lo, hi, p, adj float64) string {
	s := ChangeCIP(ratio, lo, hi, p)
	if math.IsNaN(adj) {
		return s
	}
	return strings.TrimSuffix(s, ")") + ", adj. " + P(adj) + ")"
}

// Plural is one when n is 1, else many: "test", "tests".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n and its noun: "1 thread", "2 threads", "0 cells".
func Count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, Plural(n, one, many))
}

// Percent prints a fraction of a whole with one decimal: 0.1234 → "12.3%".
func Percent(fraction float64) string {
	if math.IsNaN(fraction) || math.IsInf(fraction, 0) {
		return Missing
	}
	return fmt.Sprintf("%.1f%%", 100*fraction)
}

// Share prints part of whole as Percent does; a part of nothing (whole 0) is "0.0%".
func Share(part, whole float64) string {
	if whole == 0 {
		return Percent(0)
	}
	return Percent(part / whole)
}

// Spread prints a median's 95% interval as a ± percentage of it, "± 3%"
// (benchmath, as benchstat); "± ∞" when there are too few values for one.
func Spread(center, lo, hi float64) string {
	if lo == 0 && hi == 0 {
		return "± ∞"
	}
	return "± " + benchmath.Summary{Center: center, Lo: lo, Hi: hi}.PctRangeString()
}

// PerEvent prints a time per event (a profiler's cost per call or per
// sample) with its 95% interval in one unit, the estimate's: "3.21 ns/call
// [3.05, 3.40]", "1.24 ms/sample [1.10, 1.41]"; signed (a change) with a
// sign on every number, "+0.52 ns/call [+0.40, +0.66]". Without an interval
// (lo and hi 0) only the estimate; Missing when x is NaN or infinite.
func PerEvent(x, lo, hi float64, event string, signed bool) string {
	return perEvent(x, lo, hi, event, signed, "ns", []prefix{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}})
}

// PerEventCount is PerEvent of a count per event (instructions per call):
// "38.2 instr/call [38.1, 38.3]", "+1.20k instr/call".
func PerEventCount(x, lo, hi float64, event string, signed bool) string {
	return perEvent(x, lo, hi, event, signed, "instr", []prefix{{1e9, "G instr"}, {1e6, "M instr"}, {1e3, "k instr"}})
}

type prefix struct {
	s    float64
	name string
}

func perEvent(x, lo, hi float64, event string, signed bool, base string, prefixes []prefix) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return Missing
	}
	scale, unit := 1.0, base
	for _, u := range prefixes {
		if math.Abs(x) >= u.s*0.9995 {
			scale, unit = u.s, u.name
			break
		}
	}
	num := func(v float64) string {
		s := sig3(v / scale)
		if signed && v >= 0 {
			s = "+" + s
		}
		return s
	}
	s := num(x) + " " + unit + "/" + event
	if lo != 0 || hi != 0 {
		s += " " + Range(num(lo), num(hi))
	}
	return s
}

// Quantity prints x in unit: "ns" a duration, "B" a size, "" a count
// (three significant digits: "1.23k" is not used, "1234" is).
func Quantity(x float64, unit string) string {
	switch unit {
	case "ns":
		return Duration(x)
	case "B":
		return Bytes(x)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return Missing
	}
	if x == math.Trunc(x) {
		return fmt.Sprintf("%.0f", x)
	}
	return sig3(x)
}

// Signed is Quantity with its sign always shown: "+34.00MiB", "-2.1ms", "+0".
func Signed(x float64, unit string) string {
	s := Quantity(math.Abs(x), unit)
	if x < 0 {
		return "-" + s
	}
	return "+" + s
}

// Diff is a signed difference in unit with its interval when there is one,
// the interval's ends in the difference's own scale so the unit is read
// once: "+34.0MiB [+30.1, +38.2]", "-2.10ms [-3.40, -0.80]".
func Diff(x, lo, hi float64, unit string) string {
	s := Signed(x, unit)
	if lo == 0 && hi == 0 {
		return s
	}
	m := math.Abs(x)
	if m == 0 {
		m = math.Max(math.Abs(lo), math.Abs(hi))
	}
	scale, ok := scaleOf(m, unit)
	if !ok {
		return s + " " + Range(Signed(lo, unit), Signed(hi, unit))
	}
	end := func(v float64) string {
		t := sig3(math.Abs(v) / scale)
		if v < 0 {
			return "-" + t
		}
		return "+" + t
	}
	return s + " " + Range(end(lo), end(hi))
}

// scaleOf is the divisor Quantity's prefix for a value of magnitude m in
// unit takes (1024^k for bytes, 1000^k of seconds for ns), so that an
// interval's ends can be printed in the prefix of its centre; false for a
// count or a magnitude too small to have a prefix.
func scaleOf(m float64, unit string) (float64, bool) {
	switch unit {
	case "B":
		scale := 1.0
		for m >= 1024*scale && scale < 1<<40 {
			scale *= 1024
		}
		return scale, true
	case "ns":
		for _, s := range []float64{1e9, 1e6, 1e3, 1} {
			if m >= s {
				return s, true
			}
		}
	}
	return 0, false
}

// SignedBy prints x with its sign ("+", "−") before format's text of |x|.
func SignedBy(x float64, format func(float64) string) string {
	if x < 0 {
		return "−" + format(math.Abs(x))
	}
	return "+" + format(x)
}

// Calls is a mean count of calls per run: whole when it is one.
func Calls(x float64) string {
	if x == math.Trunc(x) {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.1f", x)
}
