package suite

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseMinChange reads a minimum change the one way both the suite's
// thresholds.min_change and `compare --min-change` take it: a percentage
// ("5%") or a fraction of 1 ("0.05"), the two meaning the same. A bare
// number of 1 or more is refused, not guessed at: "5" could mean 5% or
// 500%, and reading it either way would judge with a threshold 100 times
// off without a word.
func ParseMinChange(s string) (float64, error) {
	s = strings.TrimSpace(s)
	pct, isPct := strings.CutSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
	if err != nil {
		return 0, fmt.Errorf("must be a number like 0.05 or a percentage like 5%%, got %q", s)
	}
	if isPct {
		v /= 100
	} else if v >= 1 && !math.IsInf(v, 0) {
		return 0, fmt.Errorf("a bare number is a fraction of 1 (0.05 means 5%%), so %s would mean %g%%: write %s%% for %s percent", s, 100*v, s, s)
	}
	if !(v >= 0 && v < 1) { // NaN too
		return 0, fmt.Errorf("must be between 0%% and 100%%, got %s", s)
	}
	return v, nil
}
