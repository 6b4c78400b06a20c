package runner

import (
	"testing"

	"vbench/internal/modes"
	"vbench/internal/profile"
)

// alloc.<Type>=<count>: a type's name and a non-negative integer, or the
// line is refused naming the field.
func TestParseLineAllocs(t *testing.T) {
	r, err := ParseLine("VBENCH elapsed_ns=1 alloc.Vbench.Order=250000 alloc.System.Int32[]=0 alloc.List<T>=3")
	if err != nil || len(r.Allocs) != 3 || r.Allocs["Vbench.Order"] != 250000 || r.Allocs["System.Int32[]"] != 0 || r.Allocs["List<T>"] != 3 || len(r.Other) != 0 {
		t.Errorf("ParseLine = %+v, %v", r, err)
	}
	for line, msg := range map[string]string{
		"VBENCH elapsed_ns=1 alloc.Order=-1":   `VBENCH line: alloc.Order="-1" is not a type's name and a non-negative integer count of its objects`,
		"VBENCH elapsed_ns=1 alloc.Order=1.5":  `VBENCH line: alloc.Order="1.5" is not a type's name and a non-negative integer count of its objects`,
		"VBENCH elapsed_ns=1 alloc.Order=":     `VBENCH line: alloc.Order="" is not a type's name and a non-negative integer count of its objects`,
		"VBENCH elapsed_ns=1 alloc.=5":         `VBENCH line: alloc.="5" is not a type's name and a non-negative integer count of its objects`,
		"VBENCH elapsed_ns=1 alloc.Order=many": `VBENCH line: alloc.Order="many" is not a type's name and a non-negative integer count of its objects`,
	} {
		if _, err := ParseLine(line); err == nil || err.Error() != msg {
			t.Errorf("ParseLine(%q): %v, want %s", line, err, msg)
		}
	}
}

// allocProfile is a profile whose allocations section holds the given
// types: name, count, bytes, samples.
func allocProfile(sampled bool, types ...profile.AllocType) *profile.Profile {
	return &profile.Profile{Mode: modes.EngineAllocations, Allocations: &profile.Allocations{Sampled: sampled, Types: types}}
}

// The sampled check's range is the binomial's of Expected × Runs objects at
// the per-object probability the type's size gives: an unbiased count of
// samples passes, a third too many fails; a type never sampled is judged
// at the smallest object size, so 10 objects unsampled pass and 10 million
// do not; a declaration that changes between runs is refused.
func TestAllocTallySampled(t *testing.T) {
	const n, size = 1_000_000, 100
	p := 1 - pow(1-AllocSamplingRate, size)
	mean := int64(float64(n) * p) // ~976 samples a run
	for _, c := range []struct {
		samples int64
		pass    bool
	}{{mean, true}, {mean * 4 / 3, false}, {mean * 2 / 3, false}} {
		var s allocTally
		decl := map[string]int64{"T": n, "Rare": 10}
		for run := 0; run < 2; run++ {
			est := float64(c.samples) / p
			if msg := s.add(allocProfile(true, profile.AllocType{Name: "T", Count: int64(est), Bytes: int64(est * size), Samples: c.samples}), decl); msg != "" {
				t.Fatal(msg)
			}
		}
		checks := s.checks(modes.EngineAllocationSampling)
		if len(checks) != 2 || checks[0].Type != "Rare" || !checks[0].Pass || checks[1].Pass != c.pass || checks[1].Samples != 2*c.samples {
			t.Errorf("%d samples a run: %+v, want T passing %v", c.samples, checks, c.pass)
		}
	}
	var s allocTally
	s.add(allocProfile(true), map[string]int64{"T": 10_000_000})
	if c := s.checks(modes.EngineAllocationSampling); c[0].Pass {
		t.Errorf("10 million objects never sampled pass: %+v", c)
	}
	if msg := s.add(allocProfile(true), map[string]int64{"T": 5}); msg == "" {
		t.Error("a declaration changed between runs was counted")
	}
}

func pow(x float64, n int) float64 {
	r := 1.0
	for i := 0; i < n; i++ {
		r *= x
	}
	return r
}
