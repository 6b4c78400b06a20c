package numfmt

import "testing"

func TestDuration(t *testing.T) {
	for ns, want := range map[float64]string{
		0: "0s", 999: "999.0ns", 1000: "1.000µs", 12345: "12.35µs", 1.5e6: "1.500ms",
		123.4e6: "123.4ms", 2e9: "2.000s", 95e9: "95.00s", 999.9e9: "999.9s", 1234.5e9: "1234.5s", -2e6: "-2.000ms",
	} {
		if got := Duration(ns); got != want {
			t.Errorf("Duration(%v) = %q, want %q", ns, got, want)
		}
	}
}

func TestChange(t *testing.T) {
	for _, tc := range []struct {
		ratio, p float64
		want     string
	}{{1.2, 0.0001, "+20.0% (p=0.000)"}, {0.8333, 0.5, "-16.7% (p=0.500)"}, {1, 1, "+0.0% (p=1.000)"}} {
		if got := Change(tc.ratio, tc.p); got != tc.want {
			t.Errorf("Change(%v, %v) = %q, want %q", tc.ratio, tc.p, got, tc.want)
		}
	}
}
