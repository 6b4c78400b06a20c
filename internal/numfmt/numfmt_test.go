package numfmt

import (
	"math"
	"testing"
)

// Every case is a fixed input and the literal text a user reads.

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		ns   float64
		want string
	}{
		{0, "0s"}, {1, "1.000ns"}, {999, "999.0ns"}, {1000, "1.000µs"}, {12345, "12.35µs"},
		{1.5e6, "1.500ms"}, {123.4e6, "123.4ms"}, {410.8e6, "410.8ms"}, {2e9, "2.000s"}, {49.65e9, "49.65s"},
		{95e9, "95.00s"}, {999.9e9, "999.9s"}, {1234.5e9, "1234.5s"}, {-2e6, "-2.000ms"},
		{math.NaN(), "—"}, {math.Inf(1), "—"},
	} {
		if got := Duration(tc.ns); got != tc.want {
			t.Errorf("Duration(%v) = %q, want %q", tc.ns, got, tc.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		b    float64
		want string
	}{{0, "0.000B"}, {512, "512.0B"}, {1024, "1.000KiB"}, {50323456, "47.99MiB"}, {3 << 30, "3.000GiB"}} {
		if got := Bytes(tc.b); got != tc.want {
			t.Errorf("Bytes(%v) = %q, want %q", tc.b, got, tc.want)
		}
	}
}

func TestMultipleAndInterval(t *testing.T) {
	for _, tc := range []struct {
		x, lo, hi        float64
		mult, iv, withCI string
	}{
		{5.3512, 5.0649, 5.9501, "×5.35", "[5.06, 5.95]", "×5.35 [5.06, 5.95]"},
		{1.13, 1.12, 1.15, "×1.13", "[1.12, 1.15]", "×1.13 [1.12, 1.15]"},
		{49.71, 48.02, 51.3, "×49.7", "[48.0, 51.3]", "×49.7 [48.0, 51.3]"},
		{121.4, 119.6, 122.5, "×121", "[120, 122]", "×121 [120, 122]"},
		// Rounding never gives a fourth digit: 99.97 is ×100, 9.996 is ×10.0.
		{99.97, 9.996, 100.2, "×100", "[10.0, 100]", "×100 [10.0, 100]"},
		{3, 0, 0, "×3.00", "", "×3.00"},                                   // too few runs for an interval
		{0, 1, 2, "—", "[1.00, 2.00]", "—"},                               // not measured
		{math.Inf(1), 0, 0, "—", "", "—"},                                 // never printed as +Inf
		{0.98, 0.85, 1.11, "×0.98", "[0.85, 1.11]", "×0.98 [0.85, 1.11]"}, // faster than none: noise
	} {
		if got := Multiple(tc.x); got != tc.mult {
			t.Errorf("Multiple(%v) = %q, want %q", tc.x, got, tc.mult)
		}
		if got := Interval(tc.lo, tc.hi); got != tc.iv {
			t.Errorf("Interval(%v, %v) = %q, want %q", tc.lo, tc.hi, got, tc.iv)
		}
		if got := MultipleCI(tc.x, tc.lo, tc.hi); got != tc.withCI {
			t.Errorf("MultipleCI(%v, %v, %v) = %q, want %q", tc.x, tc.lo, tc.hi, got, tc.withCI)
		}
	}
	for x, want := range map[float64]string{1: "×1", 1.5: "×1.5", 2.5: "×2.5", 100: "×100", 1.2345: "×1.23"} {
		if got := MultipleTick(x); got != want {
			t.Errorf("MultipleTick(%v) = %q, want %q", x, got, want)
		}
	}
	if got := Range("410.2ms", "412.0ms"); got != "[410.2ms, 412.0ms]" {
		t.Errorf("Range = %q", got)
	}
}

func TestChangeAndP(t *testing.T) {
	for _, tc := range []struct {
		ratio, p       float64
		change, pv, cp string
	}{
		{1.2, 0.0001, "+20.0%", "p<0.001", "+20.0% (p<0.001)"},
		{0.8333, 0.5, "-16.7%", "p=0.500", "-16.7% (p=0.500)"},
		{1.093, 0.012, "+9.3%", "p=0.012", "+9.3% (p=0.012)"},
		{1, 1, "+0.0%", "p=1.000", "+0.0% (p=1.000)"},
		{0.9996, 0.001, "+0.0%", "p=0.001", "+0.0% (p=0.001)"}, // never "-0.0%"
		{1.2, 0.000999, "+20.0%", "p<0.001", "+20.0% (p<0.001)"},
		{0, 0.002, "—", "p=0.002", "— (p=0.002)"}, // no ratio to a median of 0
	} {
		if got := Change(tc.ratio); got != tc.change {
			t.Errorf("Change(%v) = %q, want %q", tc.ratio, got, tc.change)
		}
		if got := P(tc.p); got != tc.pv {
			t.Errorf("P(%v) = %q, want %q", tc.p, got, tc.pv)
		}
		if got := ChangeP(tc.ratio, tc.p); got != tc.cp {
			t.Errorf("ChangeP(%v, %v) = %q, want %q", tc.ratio, tc.p, got, tc.cp)
		}
	}
}

func TestPercentAndShare(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{{0, "0.0%"}, {0.1234, "12.3%"}, {1, "100.0%"}, {0.00049, "0.0%"}, {0.25, "25.0%"}} {
		if got := Percent(tc.f); got != tc.want {
			t.Errorf("Percent(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
	if got := Share(1, 3); got != "33.3%" {
		t.Errorf("Share(1, 3) = %q", got)
	}
	if got := Share(5, 0); got != "0.0%" {
		t.Errorf("Share(5, 0) = %q", got)
	}
}

func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		c, lo, hi float64
		want      string
	}{{1e6, 1e6, 1e6, "± 0%"}, {100, 97, 104, "± 4%"}, {1e6, 0, 0, "± ∞"}} {
		if got := Spread(tc.c, tc.lo, tc.hi); got != tc.want {
			t.Errorf("Spread(%v, %v, %v) = %q, want %q", tc.c, tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestOrMissing(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{{0, "—"}, {math.NaN(), "—"}, {2e6, "2.000ms"}} {
		if got := OrMissing(tc.x, Duration); got != tc.want {
			t.Errorf("OrMissing(%v, Duration) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

func TestPerEvent(t *testing.T) {
	for _, c := range []struct {
		x, lo, hi float64
		event     string
		signed    bool
		want      string
	}{
		{3.214, 3.05, 3.4, "call", false, "3.21 ns/call [3.05, 3.40]"},
		{1240e3, 1100e3, 1410e3, "sample", false, "1.24 ms/sample [1.10, 1.41]"},
		{0.52, 0.4, 0.66, "call", true, "+0.52 ns/call [+0.40, +0.66]"},
		{-0.3, -0.9, 0.2, "call", true, "-0.30 ns/call [-0.90, +0.20]"},
		{12.5, 0, 0, "call", false, "12.5 ns/call"},
		{math.NaN(), 0, 0, "call", false, Missing},
	} {
		if got := PerEvent(c.x, c.lo, c.hi, c.event, c.signed); got != c.want {
			t.Errorf("PerEvent(%g, %g, %g, %q, %v) = %q, want %q", c.x, c.lo, c.hi, c.event, c.signed, got, c.want)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 tests", 1: "1 test", 7: "7 tests"} {
		if got := Count(n, "test", "tests"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
