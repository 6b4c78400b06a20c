package runner

import (
	"fmt"
	"maps"
	"math"
	"sort"

	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/stats"
)

// AllocLevel is the probability with which a correct allocation sampler
// passes all of a cell's alloc checks together: each type's check is made
// at 1 − (1 − AllocLevel)/k for k declared types (Bonferroni), so a
// workload declaring more types does not fail a correct sampler more often.
const AllocLevel = 0.99

// AllocSamplingRate is the runtime's randomized allocation sampler's
// per-byte probability (RandomizedAllocationSampling.md: one sample per
// 100 KiB on average, each byte independently), which the profiler's
// upscaling uses too.
const AllocSamplingRate = 1.0 / 102400

// minObjectBytes is the smallest object on x64 (header, method table, one
// field's room): the size an unsampled type's check assumes, which makes
// its "no sample at all" as likely as any size can.
const minObjectBytes = 24

// allocTally is what an allocation cell keeps of its measured runs'
// profiles for the alloc checks.
type allocTally struct {
	started  bool
	expected map[string]int64 // the workload's declaration, from its first measured run
	runs     int
	counts   map[string]int64 // objects the profiles report, summed over runs (sampling: estimates)
	bytes    map[string]int64
	samples  map[string]int64 // allocation-sampling: the type's events, summed over runs
	wrong    map[string]int   // allocations: runs whose count was not the declared one
	first    map[string]int64 // allocations: the first wrong run's count
}

// add counts one measured run's profile against the declared allocations;
// it returns why the run cannot be counted ("" when it was): the workload
// declared other counts than in its first run, or the profile holds no
// allocations section.
func (s *allocTally) add(p *profile.Profile, declared map[string]int64) string {
	if !s.started {
		s.started, s.expected = true, declared
		s.counts, s.bytes, s.samples = map[string]int64{}, map[string]int64{}, map[string]int64{}
		s.wrong, s.first = map[string]int{}, map[string]int64{}
	} else if !maps.Equal(s.expected, declared) {
		return fmt.Sprintf("the VBENCH line's alloc.* counts changed between runs: %s, then %s", allocsList(s.expected), allocsList(declared))
	}
	if len(declared) == 0 {
		return ""
	}
	if p.Allocations == nil {
		return fmt.Sprintf("the workload declares alloc.* counts and its %s profile has no allocations section", p.Mode)
	}
	s.runs++
	for name, want := range declared {
		var got, bytes, samples int64
		if t := p.Allocations.Type(name); t != nil {
			got, bytes, samples = t.Count, t.Bytes, t.Samples
		}
		s.counts[name] += got
		s.bytes[name] += bytes
		s.samples[name] += samples
		if got != want {
			if s.wrong[name] == 0 {
				s.first[name] = got
			}
			s.wrong[name]++
		}
	}
	return ""
}

// allocsList is a declaration as the line gave it: "A=10 B=20", or "none".
func allocsList(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	names := sortedKeys(m)
	for i, n := range names {
		names[i] = fmt.Sprintf("%s=%d", n, m[n])
	}
	return fmt.Sprint(names)
}

func sortedKeys(m map[string]int64) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// checks are the cell's alloc checks, by type name, for engine e; nil when
// the workload declares none or no run was counted.
func (s *allocTally) checks(e modes.Engine) []results.AllocCheck {
	if len(s.expected) == 0 || s.runs == 0 {
		return nil
	}
	level := 1 - (1-AllocLevel)/float64(len(s.expected))
	var out []results.AllocCheck
	for _, n := range sortedKeys(s.expected) {
		c := results.AllocCheck{Type: n, Expected: s.expected[n], Runs: s.runs}
		if e == modes.EngineAllocationSampling {
			s.sampledCheck(&c, level)
		} else {
			c.Wrong = s.wrong[n]
			c.Measured = float64(c.Expected)
			if c.Wrong > 0 {
				c.Measured = float64(s.first[n])
			}
			c.Pass = c.Wrong == 0
		}
		out = append(out, c)
	}
	return out
}

// sampledCheck judges a type's events over the runs as a binomial draw of
// Expected × Runs objects, each sampled with the probability its size
// gives (the profile's bytes per object: the upscaled estimate keeps each
// object's size; minObjectBytes when no object was sampled).
func (s *allocTally) sampledCheck(c *results.AllocCheck, level float64) {
	c.Sampled = true
	c.Samples = s.samples[c.Type]
	c.Measured = float64(s.counts[c.Type]) / float64(c.Runs)
	size := float64(minObjectBytes)
	if s.counts[c.Type] > 0 {
		size = float64(s.bytes[c.Type]) / float64(s.counts[c.Type])
	}
	c.Prob = -math.Expm1(size * math.Log1p(-AllocSamplingRate)) // 1 − (1−rate)^size
	n := c.Expected * int64(c.Runs)
	if n == 0 {
		c.Pass = c.Samples == 0
		return
	}
	lo, hi := stats.BinomialRange(n, c.Prob, level)
	perRun := c.Prob * float64(c.Runs)
	c.Lo, c.Hi = float64(lo)/perRun, float64(hi)/perRun
	c.Pass = lo <= c.Samples && c.Samples <= hi
}

// allocsFailure is why a cell's alloc checks fail it ("" when they pass):
// the first failing check, in words, and how many failed.
func allocsFailure(workload string, checks []results.AllocCheck) string {
	first, failed := firstFailing(checks, func(c *results.AllocCheck) bool { return c.Pass })
	if first == nil {
		return ""
	}
	if !first.Sampled {
		return fmt.Sprintf("profiler allocation counts wrong in %d of %d checks: workload %s, type %s: expected %d objects a run, profile says %.0f (%d of %d runs wrong)",
			failed, len(checks), workload, first.Type, first.Expected, first.Measured, first.Wrong, first.Runs)
	}
	return fmt.Sprintf("sampled allocations wrong in %d of %d checks: workload %s, type %s: expected %d objects a run, estimated %.0f (%d samples in %d runs; a correct sampler estimates %.0f to %.0f %.3g%% of the time)",
		failed, len(checks), workload, first.Type, first.Expected, first.Measured, first.Samples, first.Runs, first.Lo, first.Hi, 100*(1-(1-AllocLevel)/float64(len(checks))))
}
