package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/testbin"
)

// The procedure runs end to end on a workload whose 20% slowdown no noise
// can hide; the figures themselves are measurements, not assertions, except
// that a 20% change must be found and identical builds must not differ by it.
func TestProcedure(t *testing.T) {
	vb, fw := testbin.Vbench(t), testbin.Fakework(t)
	dir := t.TempDir()
	suite := filepath.Join(dir, "s.yaml")
	os.WriteFile(suite, []byte(`name: sq
runs: 6
warmup: 0
modes: [none]
baseline: none.json
workloads:
  - name: fw
    command: [`+fw+`, -elapsed, "1000000"]
`), 0o644)
	var out strings.Builder
	if err := run(&out, suite, "fw", "none", 2, 0, "-scale", 1.2, vb, "", "", []float64{0.025}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	// Table rows compared by their cells, whatever the Markdown padding.
	var rows []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "| A/") {
			var cells []string
			for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			rows = append(rows, strings.Join(cells, " | "))
		}
	}
	table := strings.Join(rows, "\n")
	for _, want := range []string{
		"A/A, separate runs | 5% | 0/2 (0.0%) | 0 | 2 | +0.0% [+0.0%, +0.0%]",
		"A/B (-scale 1.2), separate runs | 5% | 2/2 (100.0%) | 0 | 0 | +20.0% [+20.0%, +20.0%]",
		"A/B (-scale 1.2), interleaved in one run | 2.5% | 2/2 (100.0%) | 0 | 0 | +20.0% [+20.0%, +20.0%]",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, s)
		}
	}
	if !strings.Contains(s, "Harness bookkeeping per run beyond the child process: median ") {
		t.Errorf("no bookkeeping line:\n%s", s)
	}
}
