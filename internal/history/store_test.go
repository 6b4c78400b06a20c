package history

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vbench/internal/results"
)

// recorded/quiet/step-0.jsonl is a real history: 12 invocations of `vbench run` of a C#
// program that knows nothing of vbench (8 at one amount of work, 4 at 5%
// more), each appended by `vbench history append`.
func readStep(t *testing.T) []Entry {
	t.Helper()
	es, err := Read(filepath.Join("testdata", "recorded", "quiet", "step-0.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 12 {
		t.Fatalf("testdata/step.jsonl holds %d runs, want 12", len(es))
	}
	return es
}

// Appends from many writers at once all land, whole: the lock serialises
// them and each rewrite is atomic, so the history ends with every entry
// and every line parses.
func TestAppendConcurrent(t *testing.T) {
	base := readStep(t)
	path := filepath.Join(t.TempDir(), "h", "history.jsonl")
	const writers, each = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				e := base[(w*each+i)%len(base)]
				e.Commit = strings.Repeat(string(rune('a'+w)), 3) + string(rune('0'+i))
				e.Date = e.Date.Add(time.Duration(w*each + i)) // a run of its own (SameRun)
				if _, err := Append(path, &e, nil); err != nil {
					errs <- err
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != writers*each {
		t.Fatalf("%d entries after %d appends", len(got), writers*each)
	}
	seen := map[string]bool{}
	for _, e := range got {
		seen[e.Commit] = true
	}
	if len(seen) != writers*each {
		t.Errorf("%d distinct commits in the history, want %d", len(seen), writers*each)
	}
	// No temporary file is left beside it.
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("the history's directory holds %d files, want the history alone", len(ents))
	}
}

// A history that cannot be read is left as it was, and the error names
// the line and the field.
func TestAppendRefusesBrokenHistory(t *testing.T) {
	e := readStep(t)[0]
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if _, err := Append(path, &e, nil); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	for _, tc := range []struct{ line, want string }{
		{`{"schema": 2, "commit": "x", "suite": {"name": "histstep"}}`, "history.jsonl:2: schema: 2, this vbench reads history schema 1"},
		{`{"schema": 1, "suite": {"name": "histstep"}}`, "history.jsonl:2: commit: missing"},
		{`{"schema": 1, "commit": "x", "suite": {"name": "histstep"}, "cells": [{"workload": "w", "mode": "none", "metric": "speed"}]}`, `history.jsonl:2: cells[0].metric: unknown metric "speed"`},
		{`{"schema": 1, "commit": "x",`, "truncated JSON"},
		{`{"schema": 1, "commit": ["x"]}`, "history.jsonl:2:"},
	} {
		broken := append(append([]byte{}, good...), tc.line+"\n"...)
		if err := os.WriteFile(path, broken, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Append(path, &e, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was appended") {
			t.Errorf("appending to a history with line %s: %v, want %q and nothing appended", tc.line, err, tc.want)
		}
		if after, _ := os.ReadFile(path); string(after) != string(broken) {
			t.Errorf("the broken history was changed")
		}
	}
}

func TestFromResultsRefuses(t *testing.T) {
	f := &results.File{Suite: results.Suite{Name: "s"}, Results: []results.Cell{{Workload: "w", Mode: "none", Runs: 1, Samples: []results.Run{{WallNs: 1, ElapsedNs: 1}}}}}
	for _, tc := range []struct {
		edit func(f *results.File)
		want string
	}{
		{func(f *results.File) { f.Partial = true }, "partial"},
		{func(f *results.File) { f.Shard = &results.Shard{Index: 1, Count: 2} }, "merge the shards first"},
		{func(f *results.File) { f.Settings.Against = "old.so" }, "A/B run"},
		{func(f *results.File) { f.Results[0].Failure = "exit 1" }, "no cell with a measured run"},
	} {
		g := *f
		g.Results = append([]results.Cell(nil), f.Results...)
		tc.edit(&g)
		if _, err := FromResults(&g, "c"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FromResults: %v, want %q", err, tc.want)
		}
	}
	if _, err := FromResults(f, ""); err == nil {
		t.Error("an entry without a commit was made")
	}
	e, err := FromResults(f, "c")
	if err != nil || len(e.Cells) != 1 || e.Commit != "c" {
		t.Errorf("FromResults of a whole run: %+v, %v", e, err)
	}
}

// The same run appended twice (the same results file, under the same
// commit or another) is refused and the history left as it was: two copies would count one
// invocation as two independent runs in every series. The same commit
// measured again (another run, another start) is a run of its own.
func TestAppendRefusesTheSameRunTwice(t *testing.T) {
	es := readStep(t)
	path := filepath.Join(t.TempDir(), "history.jsonl")
	e := es[0]
	if _, err := Append(path, &e, nil); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if _, err := Append(path, &e, nil); err == nil || !strings.Contains(err.Error(), "already holds this run as run 0, appended as commit "+e.Commit) || !strings.Contains(err.Error(), "nothing was appended") {
		t.Errorf("appending the same run again: %v", err)
	}
	// Under another commit too (issue 39: appended as c8, it was c1's run,
	// counted twice under two commits).
	other := e
	other.Commit = "c8"
	if _, err := Append(path, &other, nil); err == nil || !strings.Contains(err.Error(), "appended as commit "+e.Commit+", not c8") {
		t.Errorf("appending the same run under another commit: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("the history was changed by a refused append")
	}
	again := es[1]
	again.Commit = e.Commit
	if n, err := Append(path, &again, nil); err != nil || n != 2 {
		t.Errorf("the same commit run again: run %d, %v; want run 2 appended", n, err)
	}
}
