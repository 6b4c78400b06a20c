package numfmt

import "testing"

// A difference reads its unit once: the interval's ends in the centre's scale.
func TestDiff(t *testing.T) {
	for _, c := range []struct {
		x, lo, hi  float64
		unit, want string
	}{
		{3.447 * (1 << 20), 3.352 * (1 << 20), 3.617 * (1 << 20), "B", "+3.447MiB [+3.35, +3.62]"},
		{389.2e6, 288.3e6, 475.4e6, "ns", "+389.2ms [+288, +475]"},
		{-2.1e6, -3.4e6, -0.8e6, "ns", "-2.100ms [-3.40, -0.80]"},
		{3, 1, 5, "", "+3 [+1, +5]"},
		{6.133 * 1024, 88, 6.137 * 1024, "B", "+6.133KiB [+0.09, +6.14]"},
		{5e6, 0, 0, "ns", "+5.000ms"},
		{910.5e6, 607.7e6, 1.237e9, "ns", "+910.5ms [+608, +1237]"},
	} {
		if got := Diff(c.x, c.lo, c.hi, c.unit); got != c.want {
			t.Errorf("Diff(%v, %v, %v, %q) = %q, want %q", c.x, c.lo, c.hi, c.unit, got, c.want)
		}
	}
}
