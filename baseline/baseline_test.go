package baseline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"vbench/internal/atomicfile"
	"vbench/internal/summary"

	"vbench/internal/machine"
	"vbench/internal/modes"
	"vbench/internal/results"
)

// cell makes a cell whose runs report base*(1+k/1000) for k=0..n-1: a little
// spread, so the test has something to shuffle.
func cell(w string, mode modes.Mode, base float64, n int) results.Cell {
	c := results.Cell{Workload: w, Mode: mode}
	for k := 0; k < n; k++ {
		c.Samples = append(c.Samples, results.Run{Seq: k, ElapsedNs: int64(base * (1 + float64(k)/1000))})
	}
	return c
}

func file(cells ...results.Cell) *results.File {
	f := &results.File{Schema: results.SchemaVersion, Suite: results.Suite{Name: "s"}, Results: cells,
		Machine: machine.Fingerprint{CPUModel: "cpu", Cores: 2, OS: "linux", DotnetRuntime: "10"}}
	summary.Fill(f)
	return f
}

func TestWriteRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b", "s.json")
	f := file(cell("w", "none", 1e6, 10))
	unlock, err := atomicfile.LockDir(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	p := *f
	p.Partial = true
	if err := Write(path, &p); err == nil || !strings.Contains(err.Error(), "partial") {
		t.Errorf("partial: %v", err)
	}
	p = *f
	p.Settings.Against = "/old/libvbenchprof.so"
	if err := Write(path, &p); err == nil || !strings.Contains(err.Error(), "A/B run (--against /old/libvbenchprof.so)") {
		t.Errorf("A/B results: %v", err)
	}
	p = *f
	p.Results = []results.Cell{cell("w", "none", 1e6, 3)}
	p.Results[0].Failure = "crashed"
	if err := Write(path, &p); err == nil || !strings.Contains(err.Error(), "w/none failed (crashed)") {
		t.Errorf("failed cell: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a refused baseline was written")
	}
	f.Results[0].Verdict = results.VerdictNew
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path, "s")
	if err != nil || got.Results[0].Verdict != "" || len(got.Results[0].Samples) != 10 {
		t.Errorf("written baseline: %+v, %v", got, err)
	}
	if _, err := Load(path, "other"); err == nil || !strings.Contains(err.Error(), `baseline of suite "s", not "other"`) {
		t.Errorf("suite mismatch: %v", err)
	}
}
