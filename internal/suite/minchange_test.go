package suite

import (
	"strings"
	"testing"
)

// The suite's min_change and compare's --min-change read one way: "5%" and
// "0.05" mean the same; a bare number of 1 or more is refused as ambiguous
// (it used to be a percent on the command line and a fraction in the suite).
func TestParseMinChange(t *testing.T) {
	for in, want := range map[string]float64{"5%": 0.05, "0.05": 0.05, " 2.5 % ": 0.025, "0": 0, "0%": 0, "50%": 0.5} {
		got, err := ParseMinChange(in)
		if err != nil || got != want {
			t.Errorf("ParseMinChange(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"5":    "a bare number is a fraction of 1 (0.05 means 5%), so 5 would mean 500%: write 5% for 5 percent",
		"1":    "so 1 would mean 100%",
		"100%": "must be between 0% and 100%, got 100%",
		"-1%":  "must be between 0% and 100%",
		"NaN":  "must be between 0% and 100%, got NaN",
		"lots": `must be a number like 0.05 or a percentage like 5%, got "lots"`,
	} {
		if _, err := ParseMinChange(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMinChange(%q) = %v; want an error containing %q", in, err, want)
		}
	}
}
