package reports

import (
	"strings"
	"testing"
	"vbench/internal/summary"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/internal/verdict"
)

// abFile is an A/B run (vbench run --against) as the runner leaves it:
// fib under none, tracing (NEW, 20% slower) and tracing@old (OLD), judged.
func abFile() *results.File {
	old := modes.OldBuild(modes.Tracing)
	f := &results.File{
		Schema: results.SchemaVersion,
		Suite:  results.Suite{Name: "ab"},
		Settings: results.Settings{
			Runs: 8, Alpha: 0.01, Threshold: 0.05, Against: "/base/libvbenchprof.so",
			Modes: []modes.Mode{modes.None, modes.Tracing, old},
			ModeSpecs: []modes.Spec{
				modes.BuiltinSpec(modes.None),
				{Name: modes.Tracing, Engine: modes.EngineTracing, Against: old},
				{Name: old, Engine: modes.EngineTracing, Profiler: "/base/libvbenchprof.so"},
			},
		},
	}
	for _, c := range []struct {
		mode modes.Mode
		ns   int64
	}{{modes.None, 1_000_000}, {modes.Tracing, 3_600_000}, {old, 3_000_000}} {
		cell := results.Cell{Workload: "fib", Mode: c.mode, Metric: results.MetricKernelCPU}
		for k := 0; k < 8; k++ {
			ns := c.ns + int64(k)*1000
			cell.Samples = append(cell.Samples, results.Run{Seq: k, ElapsedNs: ns, CPUNs: ns})
		}
		f.Results = append(f.Results, cell)
	}
	summary.Fill(f)
	verdict.Apply(f, nil, verdict.OptionsOf(f))
	return f
}

// Every report of an A/B run says what each verdict was judged against (the
// OLD build's twin), with no baseline at all, and counts the regression.
func TestReportsOfAnABRun(t *testing.T) {
	f := abFile()
	if c := f.Find("fib", modes.Tracing); c.Verdict != results.VerdictRegressed || c.Compare.Against != modes.OldBuild(modes.Tracing) {
		t.Fatalf("the fixture's NEW cell: %s %+v", c.Verdict, c.Compare)
	}
	files := []*results.File{f}
	txt := renderString(t, func(b *strings.Builder) error { return Text(b, files, Options{}) })
	md := renderString(t, func(b *strings.Builder) error { return Markdown(b, files, Options{}) })
	html := renderString(t, func(b *strings.Builder) error { return HTML(b, files, Options{}) })
	junit := renderString(t, func(b *strings.Builder) error { return JUnit(b, f) })
	table := renderString(t, func(b *strings.Builder) error { return ResultsTable(b, f) })
	for _, c := range []struct{ name, out, want string }{
		{"text headline", txt, "1 regression"},
		{"text subtitle", txt, "A/B against /base/libvbenchprof.so"},
		{"text changes", txt, "Regressed:\n  fib/tracing  kernel-cpu: tracing@old 3.003ms → tracing 3.603ms (medians); change +20.0% [+20.0%, +20.0%] per round (p=0.008)"},
		{"markdown changes", md, "| `fib/tracing` | `tracing@old` |"},
		{"markdown header", md, "then (median)"},
		{"markdown change", md, "**+20.0%** [+20.0%, +20.0%] per round"},
		{"html cell", html, "+20.0% vs tracing@old</span>"},
		{"junit", junit, `message="fib/tracing regressed: kernel-cpu +20.0% (p=0.008) against tracing@old"`},
		// Paired by round: every one of the 8 rounds 20% slower, p = 2/2^8.
		{"table", table, "+20.0% [+20.0%, +20.0%] (p=0.008) vs tracing@old"},
	} {
		if !strings.Contains(strings.ReplaceAll(c.out, "&#43;", "+"), c.want) {
			t.Errorf("%s lacks %q:\n%s", c.name, c.want, c.out)
		}
	}
	if strings.Contains(txt, "no baseline") {
		t.Errorf("an A/B run's report says it has no baseline to judge against:\n%s", txt)
	}
}

// pairFile is a run of two builds of one program as a pair of workloads
// (app against app-base), under none and sampling: the NEW build 20% slower.
func pairFile() *results.File {
	f := &results.File{
		Schema: results.SchemaVersion,
		Suite:  results.Suite{Name: "pair"},
		Settings: results.Settings{
			Runs: 12, Alpha: 0.01, Threshold: 0.05, Modes: []modes.Mode{modes.None, modes.Sampling},
			WorkloadAgainst: map[string]string{"app": "app-base"},
		},
	}
	for _, w := range []struct {
		name string
		ns   int64
	}{{"app-base", 1_000_000}, {"app", 1_200_000}} {
		for _, m := range []modes.Mode{modes.None, modes.Sampling} {
			cell := results.Cell{Workload: w.name, Mode: m}
			for k := 0; k < 12; k++ {
				cell.Samples = append(cell.Samples, results.Run{Seq: k, Round: k + 1, ElapsedNs: w.ns + int64(k)*1000})
			}
			f.Results = append(f.Results, cell)
		}
	}
	summary.Fill(f)
	verdict.Apply(f, nil, verdict.OptionsOf(f))
	return f
}

// Every report of a run of two builds says which workload each verdict was
// judged against, with the medians the change is computed from.
func TestReportsOfAWorkloadPair(t *testing.T) {
	f := pairFile()
	files := []*results.File{f}
	txt := renderString(t, func(b *strings.Builder) error { return Text(b, files, Options{}) })
	md := renderString(t, func(b *strings.Builder) error { return Markdown(b, files, Options{}) })
	html := renderString(t, func(b *strings.Builder) error { return HTML(b, files, Options{}) })
	junit := renderString(t, func(b *strings.Builder) error { return JUnit(b, f) })
	table := renderString(t, func(b *strings.Builder) error { return ResultsTable(b, f) })
	csv := renderString(t, func(b *strings.Builder) error { return ResultsCSV(b, f) })
	for _, c := range []struct{ name, out, want string }{
		{"text headline", txt, "2 regressions"},
		{"text subtitle", txt, "A/B app-base → app"},
		{"text changes", txt, "  app/none  elapsed: app-base 1.006ms → app 1.206ms (medians); change +19.9% [+19.8%, +19.9%] per round (p<0.001)"},
		{"markdown changes", md, "| `app/sampling` | `app-base` |"},
		{"html cell", html, "+19.9% vs app-base</span>"},
		{"junit", junit, `message="app/none regressed: elapsed +19.9% (p&lt;0.001) against app-base"`},
		{"table", table, "(p<0.001, adj. p<0.001) vs app-base  regressed"},
		{"csv", csv, ",app-base,"}, // against_workload, then the measures' columns
	} {
		if !strings.Contains(strings.ReplaceAll(c.out, "&#43;", "+"), c.want) {
			t.Errorf("%s lacks %q:\n%s", c.name, c.want, c.out)
		}
	}
	if strings.Contains(txt, "no baseline") {
		t.Errorf("the report says it has no baseline to judge against:\n%s", txt)
	}
	// A pair of workloads has no baseline: no legend line explains one (it
	// did, taking the pair for a stored baseline's comparison).
	if strings.Contains(table, "baseline: the baseline's median") || strings.Contains(md, BaselineNote) {
		t.Errorf("a workload pair's table explains a baseline it does not have:\n%s", table)
	}
}
