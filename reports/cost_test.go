package reports

import (
	"strings"
	"testing"
	"vbench/internal/summary"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/internal/verdict"
)

// The A/B run of abFile with profiles that counted 1000 calls a run: every
// format shows the cost per call ((3.6035ms − 1.0035ms) / 1000 = 2.60 µs for
// NEW, 200 ns for OLD) and the pair's change per call (each round 0.6 ms
// apart: +60 ns a call), JUnit in each case's summary; a file without
// counts shows neither.
func TestCostPerCallInEveryFormat(t *testing.T) {
	f := abFile()
	for i := range f.Results {
		c := &f.Results[i]
		if c.Mode == modes.None {
			continue
		}
		for k := range c.Samples {
			c.Samples[k].Calls = 10_000
		}
	}
	summary.Fill(f)
	verdict.Apply(f, nil, verdict.OptionsOf(f))
	files := []*results.File{f}
	outs := map[string]string{
		"text":             renderString(t, func(b *strings.Builder) error { return Text(b, files, Options{}) }),
		"markdown":         renderString(t, func(b *strings.Builder) error { return Markdown(b, files, Options{}) }),
		"html":             renderString(t, func(b *strings.Builder) error { return HTML(b, files, Options{}) }),
		"table":            renderString(t, func(b *strings.Builder) error { return ResultsTable(b, f) }),
		"results markdown": renderString(t, func(b *strings.Builder) error { return ResultsMarkdown(b, f) }),
		"csv":              renderString(t, func(b *strings.Builder) error { return ResultsCSV(b, f) }),
		"json":             renderString(t, func(b *strings.Builder) error { return ResultsJSON(b, f) }),
		"junit":            renderString(t, func(b *strings.Builder) error { return JUnit(b, f) }),
	}
	want := map[string][]string{
		"text":             {"Cost per event", "260 ns/call [", "200 ns/call [", "]; +60.0 ns/call [+60.0, +60.0] vs tracing@old", "per round (p"},
		"markdown":         {"**Cost per event**", "260 ns/call [", "+60.0 ns/call [+60.0, +60.0] vs tracing@\u200dold"}, // no mention of a user "old"
		"html":             {`<table class="matrix" id="cost">`, `<span class="est">260 ns/call</span> <span class="ci">[`, `<span class="est">&#43;60.0 ns/call</span> <span class="ci">[&#43;60.0, &#43;60.0] vs tracing@old</span>`},
		"table":            {"cost/event [95% CI]", "A/B per event", "A/B per event: an A/B pair's change per call (or per sample taken)", "260 ns/call [", "+60.0 ns/call [+60.0, +60.0]"},
		"results markdown": {"cost/event [95% CI]", "+60.0 ns/call [+60.0, +60.0]"},
		"csv":              {",calls_per_run,cost_per_call_ns,", ",10000,260,"},
		"junit":            {"; cost 260 ns/call [", "+60.0 ns/call [+60.0, +60.0]"},
		"json":             {`"calls_per_run": 10000`, `"cost_per_call_ns": 260`, `"change_per_call_ns": 60`, `"calls": 10000`},
	}
	for name, subs := range want {
		for _, s := range subs {
			if !strings.Contains(outs[name], s) {
				t.Errorf("%s lacks %q:\n%s", name, s, outs[name])
			}
		}
	}
	if c := f.Find("fib", modes.Tracing); c.CostPerCallLoNs > c.CostPerCallNs || c.CostPerCallNs > c.CostPerCallHiNs {
		t.Errorf("cost per call %v outside [%v, %v]", c.CostPerCallNs, c.CostPerCallLoNs, c.CostPerCallHiNs)
	}

	plain := abFile()
	txt := renderString(t, func(b *strings.Builder) error { return Text(b, []*results.File{plain}, Options{}) })
	table := renderString(t, func(b *strings.Builder) error { return ResultsTable(b, plain) })
	for _, out := range []string{txt, table} {
		if strings.Contains(out, "/call") || strings.Contains(out, "Cost per event") || strings.Contains(out, "cost/event") {
			t.Errorf("a file without counts shows a cost:\n%s", out)
		}
	}
}
