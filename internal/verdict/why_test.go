package verdict

import (
	"math/rand/v2"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/internal/summary"
)

// The runner hands an A/B pair's why over with the run (Options.Whys), not
// as a half-made judgement in the file: Apply puts it in the pair's
// judgement, leaves it off every other cell, and a file judged again
// (merge, report --baseline) keeps the why its judgement carries.
func TestApplyHandsTheWhyToItsPair(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	f := &results.File{Settings: results.Settings{Alpha: 0.01, Threshold: 0.05,
		ModeSpecs: []modes.Spec{{Name: "tracing", Engine: modes.EngineTracing, Against: "tracing@old"}, {Name: "tracing@old", Engine: modes.EngineTracing}}}}
	old, new := results.Cell{Workload: "w", Mode: "tracing@old", PlannedRuns: 20, MaxRuns: 20}, results.Cell{Workload: "w", Mode: "tracing", PlannedRuns: 20, MaxRuns: 20}
	for i := range 20 {
		round := 1e8 * (1 + 0.3*rng.Float64())
		old.Samples = append(old.Samples, results.Run{Seq: 2 * i, ElapsedNs: int64(round)})
		new.Samples = append(new.Samples, results.Run{Seq: 2*i + 1, ElapsedNs: int64(1.1 * round)})
	}
	f.Results = []results.Cell{new, old}
	summary.Fill(f)
	why := results.Why{Explain: []results.Contribution{{Function: "A.Step", Old: 1e6, New: 2e6, Change: 1e6}}, Unit: "ns", Scope: results.ExplainKernel}
	opts := OptionsOf(f)
	opts.Whys = results.Whys{"w/tracing": why}
	Apply(f, nil, opts)
	c := f.Find("w", "tracing")
	if c.Verdict != results.VerdictRegressed || len(c.Compare.Explain) != 1 || c.Compare.Explain[0].Function != "A.Step" ||
		c.Compare.ExplainUnit != "ns" || c.Compare.ExplainScope != results.ExplainKernel {
		t.Fatalf("the pair: %s %+v", c.Verdict, c.Compare)
	}
	if ref := f.Find("w", "tracing@old"); ref.Compare != nil {
		t.Errorf("the reference got a judgement: %+v", ref.Compare)
	}
	// Judged again without the run's whys (merge): the file's own stay.
	Apply(f, nil, OptionsOf(f))
	if c := f.Find("w", "tracing"); len(c.Compare.Explain) != 1 || c.Compare.ExplainScope != results.ExplainKernel {
		t.Errorf("judged again: the why is lost: %+v", c.Compare)
	}
}
