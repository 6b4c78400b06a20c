package verdict

import (
	"math"
	"strings"
	"testing"
	"vbench/internal/summary"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// Reference pairs a cell with its mode's twin (same workload) or its
// workload's twin (same mode); the mode's wins; cells of neither have none.
func TestReference(t *testing.T) {
	f := &results.File{Settings: results.Settings{
		ModeSpecs:       []modes.Spec{{Name: "tracing", Engine: modes.EngineTracing, Against: "tracing@old"}, {Name: "tracing@old", Engine: modes.EngineTracing}, {Name: "none"}},
		WorkloadAgainst: map[string]string{"app": "app-base"},
	}}
	for _, w := range []string{"app", "app-base"} {
		for _, m := range []modes.Mode{"none", "tracing", "tracing@old"} {
			f.Results = append(f.Results, results.Cell{Workload: w, Mode: m})
		}
	}
	for _, c := range []struct {
		w    string
		m    modes.Mode
		want string // the reference's key, "" for none
	}{
		{"app", "none", "app-base/none"},
		{"app", "tracing", "app/tracing@old"}, // the mode's against wins
		{"app", "tracing@old", "app-base/tracing@old"},
		{"app-base", "none", ""},
		{"app-base", "tracing", "app-base/tracing@old"},
	} {
		got := ""
		if r := f.Reference(f.Find(c.w, c.m)); r != nil {
			got = r.Key()
		}
		if got != c.want {
			t.Errorf("Reference(%s/%s) = %q, want %q", c.w, c.m, got, c.want)
		}
	}
	// A filtered run without the other workload: A/B, but nothing to judge against.
	g := &results.File{Settings: f.Settings, Results: []results.Cell{{Workload: "app", Mode: "none"}}}
	if !g.IsAB("app", "none") || g.Reference(&g.Results[0]) != nil {
		t.Errorf("app/none without app-base: IsAB %v, Reference %v", g.IsAB("app", "none"), g.Reference(&g.Results[0]))
	}
}

// Two workloads as an A/B pair: each mode's cell of the NEW workload is
// judged against the OLD workload's cell of that mode, paired by round,
// and the change names the workload it was judged against.
func TestApplyWorkloadPair(t *testing.T) {
	f := &results.File{Settings: results.Settings{Alpha: 0.01, Threshold: 0.05, WorkloadAgainst: map[string]string{"app": "app-base"}}}
	for _, m := range []modes.Mode{"none", "sampling"} {
		old, new := results.Cell{Workload: "app-base", Mode: m}, results.Cell{Workload: "app", Mode: m}
		for i := 1; i <= 15; i++ {
			x := 1e8 * (1 + 0.05*float64(i%4))
			old.Samples = append(old.Samples, results.Run{Round: i, ElapsedNs: int64(x)})
			new.Samples = append(new.Samples, results.Run{Round: i, ElapsedNs: int64(x * (1.2 + 0.001*float64(i%3)))})
		}
		f.Results = append(f.Results, old, new)
	}
	summary.Fill(f)
	Apply(f, nil, OptionsOf(f))
	for _, m := range []modes.Mode{"none", "sampling"} {
		c := f.Find("app", m)
		if c.Verdict != results.VerdictRegressed || c.Compare.AgainstWorkload != "app-base" || c.Compare.Against != "" || !c.Compare.Paired ||
			math.Abs(c.Compare.Ratio-1.2) > 0.01 || c.Compare.Family != 2 || !strings.Contains(c.Compare.Reason, "vs app-base") {
			t.Errorf("app/%s: %s %+v", m, c.Verdict, c.Compare)
		}
		if old, new := c.Sides(); old != "app-base" || new != "app" || c.AgainstKey() != "app-base/"+string(m) {
			t.Errorf("app/%s sides %q → %q, against %q", m, old, new, c.AgainstKey())
		}
		if v := f.Find("app-base", m).Verdict; v != results.VerdictReference {
			t.Errorf("app-base/%s: %s, want reference (the pair's other side)", m, v)
		}
	}
}
