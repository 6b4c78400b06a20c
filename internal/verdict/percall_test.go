package verdict

import (
	"math"
	"testing"
	"vbench/internal/summary"

	"vbench/internal/modes"
	"vbench/internal/results"
)

// An A/B pair's change per call is the Hodges–Lehmann estimate of its
// per-round differences over its calls per run, with the signed-rank
// interval; a pair whose sides count different calls (two programs) gets
// none, and a sampling pair divides by its sides' mean samples.
func TestPerEvent(t *testing.T) {
	old := modes.OldBuild(modes.Tracing)
	oldS := modes.OldBuild(modes.Sampling)
	file := func(newCalls, oldCalls int64) *results.File {
		f := &results.File{Settings: results.Settings{Alpha: 0.01, Threshold: 0.05, ModeSpecs: []modes.Spec{
			modes.BuiltinSpec(modes.None),
			{Name: modes.Tracing, Engine: modes.EngineTracing, Against: old},
			{Name: old, Engine: modes.EngineTracing},
			{Name: modes.Sampling, Engine: modes.EngineSampling, Against: oldS},
			{Name: oldS, Engine: modes.EngineSampling},
		}}}
		for _, c := range []struct {
			m              modes.Mode
			ns, d          int64
			calls, samples int64
		}{{modes.None, 1000, 0, 0, 0}, {modes.Tracing, 2000, 7, newCalls, 0}, {old, 1800, 3, oldCalls, 0}, {modes.Sampling, 1500, 5, 0, 30}, {oldS, 1200, 1, 0, 10}} {
			cell := results.Cell{Workload: "w", Mode: c.m}
			for k := int64(0); k < 10; k++ {
				cell.Samples = append(cell.Samples, results.Run{Seq: int(k), Round: int(k) + 1, ElapsedNs: c.ns + k*c.d, Calls: c.calls, SamplesTaken: c.samples})
			}
			f.Results = append(f.Results, cell)
		}
		summary.Fill(f)
		Apply(f, nil, OptionsOf(f))
		return f
	}
	f := file(10_000, 10_000)
	ch := f.Find("w", modes.Tracing).Compare
	// rounds differ by 200 + 4k, k = 0…9: Hodges–Lehmann 218, over 10,000 calls
	if ch == nil || math.Abs(ch.ChangePerCallNs-0.0218) > 1e-12 || !(ch.ChangePerCallLoNs < 0.0218 && 0.0218 < ch.ChangePerCallHiNs) || ch.ChangePerSampleNs != 0 {
		t.Errorf("change per call %+v", ch)
	}
	// rounds differ by 300 + 4k: 318 over (30 + 10) / 2 samples
	if s := f.Find("w", modes.Sampling).Compare; s == nil || s.ChangePerSampleNs != 318.0/20 || s.ChangePerCallNs != 0 {
		t.Errorf("change per sample %+v", s)
	}
	if ch := file(12_000, 10_000).Find("w", modes.Tracing).Compare; ch == nil || ch.ChangePerCallNs != 0 || ch.ChangePerCallLoNs != 0 {
		t.Errorf("two programs' calls differ, yet a change per call: %+v", ch)
	}
	if ch := file(9_999, 9_999).Find("w", modes.Tracing).Compare; ch == nil || ch.ChangePerCallNs != 0 {
		t.Errorf("too few calls for a change per call (summary.MinCallsForCost), yet one: %+v", ch)
	}
}
