package suite

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"vbench/internal/results"
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

// ParseMeasureMinChange reads a measure's own minimum change
// (thresholds.metrics.<measure>): a relative part ("5%" or "0.05", as
// ParseMinChange), an absolute part in the measure's unit ("1MB",
// "512KiB" for bytes; "5ms" for times; a whole number for a count), or
// both separated by a space ("5% 1MB"): a change must pass both. A part
// left out is 0.
func ParseMeasureMinChange(m results.Measure, s string) (results.MinChange, error) {
	var mc results.MinChange
	parts := strings.Fields(s)
	if len(parts) == 0 || len(parts) > 2 {
		return mc, fmt.Errorf("want a relative change (5%%), an absolute one in %s, or both (\"5%% %s\"), got %q", unitWord(m), unitExample(m), s)
	}
	relSeen, absSeen := false, false
	for _, p := range parts {
		if strings.HasSuffix(p, "%") || isFraction(p) {
			if relSeen {
				return mc, fmt.Errorf("%q gives two relative changes", s)
			}
			v, err := ParseMinChange(p)
			if err != nil {
				return mc, err
			}
			mc.Rel, relSeen = v, true
			continue
		}
		if absSeen {
			return mc, fmt.Errorf("%q gives two absolute changes", s)
		}
		v, err := parseAbs(m, p)
		if err != nil {
			return mc, err
		}
		mc.Abs, absSeen = v, true
	}
	return mc, nil
}

// isFraction reports whether p is a plain number below 1 (0.05): a
// relative change without a %. A bare number of 1 or more is an absolute
// count (gc_count), or refused by parseAbs where the measure has a unit.
func isFraction(p string) bool {
	v, err := strconv.ParseFloat(p, 64)
	return err == nil && v < 1
}

func unitWord(m results.Measure) string {
	switch m.Unit() {
	case "B":
		return "bytes"
	case "ns":
		return "time"
	}
	return "a count"
}

func unitExample(m results.Measure) string {
	switch m.Unit() {
	case "B":
		return "1MB"
	case "ns":
		return "5ms"
	}
	return "2"
}

var byteUnits = []struct {
	suffix string
	scale  float64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}

// parseAbs reads an absolute minimum change in m's unit.
func parseAbs(m results.Measure, p string) (float64, error) {
	switch m.Unit() {
	case "B":
		for _, u := range byteUnits {
			if num, ok := strings.CutSuffix(p, u.suffix); ok {
				v, err := strconv.ParseFloat(num, 64)
				if err != nil || !(v >= 0) || math.IsInf(v, 0) {
					break
				}
				return v * u.scale, nil
			}
		}
		if _, err := time.ParseDuration(p); err == nil {
			return 0, fmt.Errorf("%s is a time; %s is in bytes (e.g. 1MB, 512KiB)", p, m)
		}
		return 0, fmt.Errorf("%q is not a size like 1MB or 512KiB (%s is in bytes)", p, m)
	case "ns":
		d, err := time.ParseDuration(p)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("%q is not a duration like 5ms (%s is a time)", p, m)
		}
		return float64(d), nil
	}
	v, err := strconv.ParseUint(p, 10, 63)
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number (%s is a count)", p, m)
	}
	return float64(v), nil
}
