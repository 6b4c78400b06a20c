package reports

import (
	"path/filepath"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/internal/verdict"
)

// The fixtures are hand-made inputs (see testdata/genfixtures): tests read
// them and compare what the renderers print with what the fixtures imply.

func fixture(name string) string { return filepath.Join("testdata", name) }

func readResults(t *testing.T, name string) *results.File {
	t.Helper()
	f, err := results.ReadFile(fixture(name))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// history returns the three results files of the history, oldest first; the
// last is the current run.
func history(t *testing.T) []*results.File {
	t.Helper()
	return []*results.File{readResults(t, "history-1.json"), readResults(t, "history-2.json"), readResults(t, "results.json")}
}

func historyNames() []string {
	return []string{fixture("history-1.json"), fixture("history-2.json"), fixture("results.json")}
}

// baselineOpts judges the newest of files against the baseline fixture, in
// place, as `vbench report --baseline` does before it renders.
func baselineOpts(t *testing.T, files []*results.File) Options {
	t.Helper()
	files[len(files)-1] = verdict.Judged(readResults(t, "baseline.json"), files[len(files)-1], fixture("baseline.json"))
	return Options{Names: historyNames()}
}

// cellOf finds a cell in a results file.
func cellOf(t *testing.T, f *results.File, workload string, mode modes.Mode) *results.Cell {
	t.Helper()
	for i := range f.Results {
		if c := &f.Results[i]; c.Workload == workload && c.Mode == mode {
			return c
		}
	}
	t.Fatalf("no cell %s/%s in the fixture", workload, mode)
	return nil
}
