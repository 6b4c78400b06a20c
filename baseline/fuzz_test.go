package baseline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"vbench/internal/verdict"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"vbench/internal/corpus"
	"vbench/internal/results"
)

// The suite every seed baseline belongs to (scripts/fuzz-seeds.sh), and a
// real run of it to judge against each fuzzed baseline.
const (
	fuzzSuite   = "clean"
	currentSeed = "seed-verdicts.json"
)

// FuzzLoad feeds the baseline reader arbitrary files, starting from the
// committed corpus in testdata/fuzz/FuzzLoad: a baseline `vbench baseline
// update` wrote, a run with verdicts, a partial run, a run with failed
// cells. A baseline is read and then judged against at the start of every
// `vbench run`, so properties hold for both steps:
//   - Load never panics; an error names the file;
//   - an accepted baseline belongs to the suite asked for and passes Validate;
//   - comparing a real run with any accepted baseline never panics, gives
//     every cell a known verdict, and leaves results that can still be saved
//     (a run must never become unsaveable because of its baseline).
func FuzzLoad(f *testing.F) {
	curData, err := corpus.ReadFile(filepath.Join("testdata", "fuzz", "FuzzLoad", currentSeed))
	if err != nil {
		f.Fatal(err)
	}
	if _, err := results.Decode(currentSeed, curData); err != nil {
		f.Fatalf("%s: %v", currentSeed, err)
	}
	path := filepath.Join(f.TempDir(), "baseline.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		base, err := Load(path, fuzzSuite)
		if err != nil {
			if !strings.HasPrefix(err.Error(), path+":") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if base.Suite.Name != fuzzSuite {
			t.Fatalf("Load accepted a baseline of suite %q for suite %q", base.Suite.Name, fuzzSuite)
		}
		if err := base.Validate(); err != nil {
			t.Fatalf("Load accepted a baseline Validate rejects: %v", err)
		}
		cur, _ := results.Decode(currentSeed, curData)
		verdict.Apply(cur, base, verdict.OptionsOf(cur))
		for _, c := range cur.Results {
			if !slices.Contains(results.Verdicts, c.Verdict) {
				t.Fatalf("cell %s: verdict %q", c.Key(), c.Verdict)
			}
		}
		b, err := results.Marshal(cur)
		if err != nil {
			t.Fatalf("after comparing with this baseline the results cannot be saved: %v", err)
		}
		if _, err := results.Decode("saved.json", b); err != nil {
			t.Fatalf("after comparing with this baseline the saved results cannot be read: %v", err)
		}
	})
}

// Every corpus baseline that Check accepts survives the real write path:
// Write (atomic, verdicts dropped) then Load gives the same file.
func TestCorpusBaselinesSurviveWrite(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzLoad")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	written := 0
	for _, e := range entries {
		data, err := corpus.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		in := filepath.Join(t.TempDir(), "in.json")
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Load(in, fuzzSuite)
		if err != nil || Check(f) != nil {
			continue
		}
		out := filepath.Join(t.TempDir(), "baselines", "clean.json")
		os.MkdirAll(filepath.Dir(out), 0o755)
		if err := Write(out, f); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		written++
		again, err := Load(out, fuzzSuite)
		if err != nil {
			t.Fatalf("%s: reading the baseline back: %v", e.Name(), err)
		}
		for i := range f.Results {
			f.Results[i].Verdict, f.Results[i].Compare = "", nil
		}
		f.Baseline = ""
		if d := cmp.Diff(f, again, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("%s: written and read back, the baseline changed (-want +got):\n%s", e.Name(), d)
		}
	}
	if written < 2 {
		t.Fatalf("only %d corpus baselines could be written; the seeds from real runs should", written)
	}
}
