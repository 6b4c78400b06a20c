package stats

import "math"

// Finite maps ±Inf and NaN (which JSON cannot carry) to 0, meaning "none".
func Finite(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0
	}
	return x
}
