package baseline

import (
	"errors"
	"fmt"
	"path/filepath"

	"vbench/internal/results"
)

// Load reads a baseline file and checks that it belongs to suite.
func Load(path, suite string) (*results.File, error) {
	f, err := results.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if f.Suite.Name != suite {
		return nil, fmt.Errorf("%s: baseline of suite %q, not %q", path, f.Suite.Name, suite)
	}
	if err := f.CheckMeasured(path, results.AnyCell); err != nil {
		return nil, err
	}
	return f, nil
}

// Check refuses results that must not become a baseline: interrupted runs,
// shards, A/B runs (two builds' cells) and runs with failed cells (there
// would be nothing to compare against).
func Check(f *results.File) error {
	if f.Partial {
		return errors.New("the results are partial (the run was interrupted); a baseline needs a complete run")
	}
	if f.Shard != nil {
		return fmt.Errorf("the results are shard %d/%d only; merge the shards first (vbench merge)", f.Shard.Index, f.Shard.Count)
	}
	if f.AgainstBuild() {
		return fmt.Errorf("the results are an A/B run (--against %s): half of their cells measured another build of the profiler, and a baseline holds one build's times; record it from a run without --against", f.Settings.Against)
	}
	for _, c := range f.Results {
		if c.Failed() {
			return fmt.Errorf("cell %s failed (%s); fix it before recording a baseline", c.Key(), c.Failure)
		}
	}
	// A cell without a measured value would be refused when read back
	// (Load): every later run would stop on it.
	if err := f.CheckMeasured("the results", results.AnyCell); err != nil {
		return err
	}
	if len(f.Results) == 0 {
		return errors.New("the results hold no cells")
	}
	return nil
}

// Write stores f as the baseline at path, atomically. Call it under atomicfile.LockDir.
func Write(path string, f *results.File) error {
	if err := Check(f); err != nil {
		return err
	}
	// Verdicts belong to the run that made them, not to the baseline.
	b := *f
	b.Results = append([]results.Cell(nil), f.Results...)
	for i := range b.Results {
		b.Results[i].Verdict, b.Results[i].Compare = "", nil
	}
	b.Baseline = ""
	if err := results.CheckWritable(path); err != nil {
		return err
	}
	return results.WriteFile(path, &b)
}

// Guard refuses path as the output (named by flag) of any command but
// `vbench baseline update`, when path is a baseline: one of the suite
// baselines given, or an existing file in the baseline layout (a results
// file whose cells carry no verdicts: only Write stores those, every run and
// merge gives each cell one). A baseline is only ever changed by an update.
func Guard(flag, path string, suiteBaselines ...string) error {
	if path == "" {
		return nil
	}
	for _, b := range suiteBaselines {
		if b != "" && SamePath(path, b) {
			return fmt.Errorf("%s %s is the baseline file; only 'vbench baseline update' writes baselines", flag, path)
		}
	}
	if f, err := results.ReadFile(path); err == nil && isBaseline(f) {
		return fmt.Errorf("%s %s is a baseline file; only 'vbench baseline update' writes baselines", flag, path)
	}
	return nil
}

func isBaseline(f *results.File) bool {
	for _, c := range f.Results {
		if c.Verdict != "" {
			return false
		}
	}
	return len(f.Results) > 0 && f.Baseline == ""
}

// SamePath reports whether a and b name the same file (after making both
// absolute): the check every output makes before it could overwrite an
// input or a baseline.
func SamePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}
