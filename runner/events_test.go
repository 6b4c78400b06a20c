package runner

import (
	"testing"

	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/results"
)

// A sampling run's samples are its samples of CPU time: a waiting thread's
// samples (wait_samples) are left out, so a cost per sample is per sample
// a CPU sampler would take; under a kernel metric, the kernel's share of
// the profile's life.
func TestEventsCountCPUSamples(t *testing.T) {
	p := &profile.Profile{Samples: 1300, WaitSamples: 600, DurationNs: 400e6}
	if _, n := events(modes.EngineSampling, results.MetricWall, 1, p, 0); n != 700 {
		t.Errorf("wall: %d samples, want 700 (1300 less 600 waiting)", n)
	}
	if _, n := events(modes.EngineSampling, results.MetricElapsed, 1, p, 300e6); n != 525 {
		t.Errorf("elapsed: %d samples, want 525 (700 × 300/400 ms of kernel)", n)
	}
	if _, n := events(modes.EngineSuspendSampling, results.MetricWall, 1, &profile.Profile{Samples: 900}, 0); n != 900 {
		t.Errorf("suspend-sampling: %d samples, want 900", n)
	}
}
