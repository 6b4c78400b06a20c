package reports

import (
	"bytes"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// A cost per sample from a handful of samples and start-up noise means
// nothing, and no headline table prints it: one whose 95% interval is
// wider than itself ("1.36 ms/sample [-0.74, 2.83]"), a negative one
// ("-3.06 ms/sample [-5.00, -1.00]"), an A/B change per sample wider than
// itself ("-116 µs/sample [-2359, 3323]") read "within noise", with a note
// saying why; a cost whose interval is narrow is printed as before. The
// JSON keeps every figure.
func TestCostPerSampleWithinNoiseLeavesHeadlines(t *testing.T) {
	f := readResults(t, "results.json")
	set := func(wl string, mode modes.Mode, x, lo, hi float64) {
		c := cellOf(t, f, wl, mode)
		c.CostPerSampleNs, c.CostPerSampleLoNs, c.CostPerSampleHiNs = x, lo, hi
	}
	set("fibonacci", "sampling", 1.36e6, -0.74e6, 2.83e6)
	set("mandelbrot", "sampling", -3.06e6, -5e6, -1e6)
	set("fibonacci", "tracing", 24.1e3, 13.0e3, 33.2e3)
	ab := cellOf(t, f, "fibonacci", "tracing")
	ab.Compare = &results.Change{Against: "sampling@old", ChangePerSampleNs: -116e3, ChangePerSampleLoNs: -2359e3, ChangePerSampleHiNs: 3323e3}
	outs := map[string]func(*bytes.Buffer) error{
		"results table":    func(b *bytes.Buffer) error { return ResultsTable(b, f) },
		"results markdown": func(b *bytes.Buffer) error { return ResultsMarkdown(b, f) },
		"report text":      func(b *bytes.Buffer) error { return Text(b, []*results.File{f}, Options{}) },
		"report markdown":  func(b *bytes.Buffer) error { return Markdown(b, []*results.File{f}, Options{}) },
		"report html":      func(b *bytes.Buffer) error { return HTML(b, []*results.File{f}, Options{}) },
	}
	for name, write := range outs {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := b.String()
		for _, bad := range []string{"1.36 ms/sample", "-3.06 ms/sample", "-116 µs/sample"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s prints %q", name, bad)
			}
		}
		for _, want := range []string{"24.1 µs/sample", WithinNoise, "whose 95% interval is wider than itself"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	var js bytes.Buffer
	if err := ResultsJSON(&js, f); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"cost_per_sample_ns": 1360000`) {
		t.Errorf("the JSON lost the figure:\n%.2000s", js.String())
	}
}
