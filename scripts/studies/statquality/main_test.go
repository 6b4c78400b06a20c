//go:build vbenchstudy

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/testbin"
)

// The procedure runs end to end on a workload whose 20% slowdown no noise
// can hide; the figures themselves are measurements, not assertions, except
// that a 20% change must be found and identical builds must not differ.
func TestProcedure(t *testing.T) {
	vb, fw, fp := testbin.Vbench(t), testbin.Fakework(t), testbin.FakeProfiler(t)
	dir := t.TempDir()
	// The slow build: the fake profiler under slow/, which fakework's
	// -lib-factor makes 20% slower.
	slow := filepath.Join(dir, "slow", "libfakeprof.so")
	os.MkdirAll(filepath.Dir(slow), 0o755)
	if b, err := os.ReadFile(fp); err != nil || os.WriteFile(slow, b, 0o755) != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(dir, "s.yaml")
	os.WriteFile(suite, []byte(`name: sq
metric: kernel-cpu
runs: 6
warmup: 0
modes: [none]
baseline: none.json
workloads:
  - name: fw
    command: [`+fw+`, -elapsed, "1000000", -cpu-ns, "900000", -lib-factor, "slow/=1.2"]
`), 0o644)
	var out strings.Builder
	c := config{suitePath: suite, workload: "fw", mode: modes.None, reps: 2, scaleFlag: "-scale", scale: 1.2, vbench: vb,
		profiler: fp, slow: slow, abMode: modes.Tracing}
	if err := run(&out, c); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"within one run, -scale 1.2 interleaved (kernel-cpu): A/A false alarms 0/2; A/B detected 2/2\n",
		"across invocations, -scale 1.2 against a stored baseline (kernel-cpu): A/A false alarms 0/2; A/B detected 2/2\n",
		"within one run, --against under tracing, B = libfakeprof.so (kernel-cpu): A/A false alarms 0/2; A/B detected 2/2\n",
		"Harness bookkeeping per run beyond the child process: median ",
		"Load: `uptime` before: ",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	// The table's rows, compared by their cells whatever the padding.
	var rows []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "| A/") {
			var cells []string
			for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			rows = append(rows, strings.Join(cells[:5], " | "))
		}
	}
	table := strings.Join(rows, "\n")
	for _, want := range []string{
		"A/A, within one run, -scale 1.2 interleaved | 0/2 | 0 | 0 | +0.0% [+0.0%, +0.0%]",
		"A/B, across invocations, -scale 1.2 against a stored baseline | 2/2 | 2 | 0 | +20.0% [+20.0%, +20.0%]",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, s)
		}
	}
}
