package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"vbench/internal/foreignprof"
	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/internal/testbin"
)

// EventPipe's trace, read back, has the span its sampler ticked through
// (its first thread sample to its last): more than nothing, no more than
// the process lived. So a kernel metric counts its share of the trace's
// samples, as for perf's and vbench's own samplers, not every sample of
// the process's start-up and shutdown too.
func TestNettraceSpan(t *testing.T) {
	dll := testbin.Workload(t, allocProject())
	trace := filepath.Join(t.TempDir(), "trace.nettrace")
	cmd := exec.Command("dotnet", dll, "alloc", "5000000", "64", "0")
	cmd.Env = append(os.Environ(), "DOTNET_EnableEventPipe=1", "DOTNET_EventPipeOutputPath="+trace,
		"DOTNET_EventPipeConfig=Microsoft-DotNETCore-SampleProfiler:0:5")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wall := time.Since(start)
	p, err := foreignprof.Read(modes.FormatNettrace, []string{trace}, readNettrace)
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples <= 0 || p.DurationNs <= 0 || p.DurationNs > int64(wall) {
		t.Fatalf("samples %d, span %d ns; want some samples over a span within the process's %d ns", p.Samples, p.DurationNs, wall)
	}
	// A kernel of half the span counts about half the samples.
	_, half := events(modes.EngineSampling, results.MetricElapsed, 1, p, p.DurationNs/2)
	if want := float64(p.Samples) / 2; float64(half) < want-1 || float64(half) > want+1 {
		t.Errorf("a kernel of half the span counts %d of %d samples, want %.1f", half, p.Samples, want)
	}
	t.Logf("%d managed samples over %.1f ms of a %.1f ms process", p.Samples, float64(p.DurationNs)/1e6, float64(wall)/1e6)
}
