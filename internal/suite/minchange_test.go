package suite

import (
	"strings"
	"testing"
	"vbench/internal/results"
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

// A measure's own minimum change: relative, absolute in its unit, or both;
// a malformed one names the suite file, its line and the field.
func TestMeasureThresholds(t *testing.T) {
	head := "name: s\nbaseline: b.json\nworkloads:\n  - name: w\n    command: [true]\nthresholds:\n  min_change: 3%\n  metrics:\n"
	s, err := Parse("s.yaml", []byte(head+"    rss: 10% 2MiB\n    startup: 20ms\n    gc_count: 0.1 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[results.Measure]results.MinChange{
		results.MeasureRSS:     {Rel: 0.1, Abs: 2 << 20},
		results.MeasureStartup: {Abs: 20e6},
		results.MeasureGCCount: {Rel: 0.1, Abs: 2},
	}
	for m, mc := range want {
		if s.MeasureMinChange[m] != mc {
			t.Errorf("%s: %+v, want %+v", m, s.MeasureMinChange[m], mc)
		}
	}
	for in, msg := range map[string]string{
		"    rss: 5ms\n":       "s.yaml:9: thresholds.metrics.rss: 5ms is a time; rss is in bytes (e.g. 1MB, 512KiB)",
		"    startup: 1MB\n":   `s.yaml:9: thresholds.metrics.startup: "1MB" is not a duration like 5ms (startup is a time)`,
		"    rss: 5% 6% \n":    `s.yaml:9: thresholds.metrics.rss: "5% 6%" gives two relative changes`,
		"    cpu: 5%\n":        "s.yaml:9: thresholds.metrics.cpu: unknown field (known: rss, startup, gc_count, gc_pause, alloc_bytes, profile_bytes, rps_before, rps_during, rps_after, p50_before, p50_during, p50_after, p99_before, p99_during, p99_after, attach_max)",
		"    gc_count: lots\n": `s.yaml:9: thresholds.metrics.gc_count: "lots" is not a whole number (gc_count is a count)`,
		"    gc_pause: [1]\n":  "s.yaml:9: thresholds.metrics.gc_pause: must be a minimum change like \"5% 1MB\", got a list",
		"    alloc_bytes: 5\n": `s.yaml:9: thresholds.metrics.alloc_bytes: "5" is not a size like 1MB or 512KiB (alloc_bytes is in bytes)`,
		"    rss: 150%\n":      "s.yaml:9: thresholds.metrics.rss: must be between 0% and 100%, got 150%",
	} {
		_, err := Parse("s.yaml", []byte(head+in))
		if err == nil || !strings.HasPrefix(err.Error(), msg) {
			t.Errorf("%q:\n got %v\nwant %s", in, err, msg)
		}
	}
}

// thresholds.min_change_instructions reads as min_change does, into its
// own field; a bad one names its line and field.
func TestMinChangeInstructions(t *testing.T) {
	head := "name: s\nworkloads:\n  - name: w\n    command: [true]\nthresholds:\n  min_change: 5%\n"
	s, err := Parse("s.yaml", []byte(head+"  min_change_instructions: 0.5%\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.MinChange != 0.05 || s.MinChangeInstructions != 0.005 {
		t.Errorf("min_change %g, min_change_instructions %g", s.MinChange, s.MinChangeInstructions)
	}
	// Unset, it is 1 %, or min_change where that is smaller: a suite that
	// holds time to 0.5 % is not held to less in counts.
	for in, want := range map[string]float64{"": 0.01, "thresholds:\n  min_change: 0.5%\n": 0.005, "thresholds:\n  min_change: 10%\n": 0.01} {
		s, err := Parse("s.yaml", []byte("name: s\nworkloads:\n  - name: w\n    command: [true]\n"+in))
		if err != nil || s.MinChangeInstructions != want {
			t.Errorf("%q: min_change_instructions %g, want %g (%v)", in, s.MinChangeInstructions, want, err)
		}
	}
	_, err = Parse("s.yaml", []byte(head+"  min_change_instructions: lots\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "s.yaml:7: thresholds.min_change_instructions: ") {
		t.Errorf("err %v", err)
	}
}
