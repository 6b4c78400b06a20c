package results

import (
	"errors"
	"fmt"
	"slices"

	"vbench/internal/machine"
	"vbench/internal/modes"
)

// Merge joins the results of shards of one suite. It refuses files from
// different suites (name or content), files with a cell in common, a
// workload measured by different metrics in two files (its overheads would
// divide one metric by another), and partial files unless allowPartial. Mode
// definitions are joined by name; a mode defined differently in two files
// (e.g. another --profiler on each shard) is a warning. Summaries are copied as they are: the
// caller recomputes what spans shards (overheads, verdicts) from the samples.
func Merge(names []string, files []*File, allowPartial bool) (*File, error) {
	if len(files) == 0 {
		return nil, errors.New("nothing to merge")
	}
	first := files[0]
	out := &File{
		Schema:   SchemaVersion,
		Suite:    first.Suite,
		Machine:  first.Machine,
		Started:  first.Started,
		Finished: first.Finished,
		Settings: first.Settings,
		Merged:   names,
	}
	out.Settings.ModeSpecs = append([]modes.Spec(nil), first.Settings.ModeSpecs...)
	// How counts were taken, from the first shard that counted: a first
	// shard of timed cells alone records none.
	for _, f := range files {
		if f.Counted() {
			out.Settings.CountingEnv, out.Settings.Valgrind = f.Settings.CountingEnv, f.Settings.Valgrind
			break
		}
	}
	out.Settings.WorkloadAgainst = nil
	owner := map[string]string{}
	metric := map[string]string{}    // workload -> the file that first measured it
	specs := map[modes.Mode]string{} // mode -> the file that first defined it
	var warnedMachine bool
	var bookkeeping, runs float64
	for i, f := range files {
		name := names[i]
		if f.Suite.Name != first.Suite.Name {
			return nil, fmt.Errorf("%s is from suite %q, %s from suite %q: refusing to merge different suites", name, f.Suite.Name, names[0], first.Suite.Name)
		}
		if f.Suite.SHA256 != first.Suite.SHA256 {
			return nil, fmt.Errorf("%s and %s were run from different versions of suite %q (sha256 %.12s vs %.12s): refusing to merge", name, names[0], f.Suite.Name, f.Suite.SHA256, first.Suite.SHA256)
		}
		if f.Partial && !allowPartial {
			return nil, fmt.Errorf("%s is partial (the run was interrupted); re-run that shard", name)
		}
		out.Partial = out.Partial || f.Partial
		if m := machine.Mismatch(first.Machine, f.Machine); len(m) > 0 && !warnedMachine {
			warnedMachine = true
			out.Warnings = append(out.Warnings, fmt.Sprintf("shards ran on different machines (%s vs %s): overheads across shards mix machines", names[0], name))
		}
		if f.Started.Before(out.Started) {
			out.Started = f.Started
		}
		if f.Finished.After(out.Finished) {
			out.Finished = f.Finished
		}
		for _, c := range f.Results {
			k := c.Key()
			if prev, dup := owner[k]; dup {
				return nil, fmt.Errorf("cell %s is in both %s and %s: shards overlap", k, prev, name)
			}
			owner[k] = name
			if prev, ok := metric[c.Workload]; ok {
				if pm, cm := out.Metric(c.Workload), c.Metric.OrDefault(); pm != cm {
					return nil, fmt.Errorf("workload %s is measured by %s in %s and by %s in %s: refusing to mix metrics", c.Workload, pm, prev, cm, name)
				}
			} else {
				metric[c.Workload] = name
			}
			c.Verdict, c.Compare = "", nil
			if c.Failed() {
				c.Verdict = VerdictFailed
			}
			out.Results = append(out.Results, c)
			runs += float64(len(c.Samples))
		}
		for _, sp := range f.Settings.ModeSpecs {
			prev, ok := specs[sp.Name]
			if !ok {
				specs[sp.Name] = name
				if i > 0 {
					out.Settings.ModeSpecs = append(out.Settings.ModeSpecs, sp)
				}
				continue
			}
			if first := out.ModeSpec(sp.Name); !first.Equal(&sp) {
				out.Warnings = append(out.Warnings, fmt.Sprintf("mode %s is defined differently in %s (%s) and %s (%s)", sp.Name, prev, first.Description(), name, sp.Description()))
			}
		}
		bookkeeping += f.BookkeepingNs * float64(countSamples(f))
		out.Settings.Modes = union(out.Settings.Modes, f.Settings.Modes)
		out.Settings.Workloads = union(out.Settings.Workloads, f.Settings.Workloads)
		for w, a := range f.Settings.WorkloadAgainst { // one suite: the shards agree
			if out.Settings.WorkloadAgainst == nil {
				out.Settings.WorkloadAgainst = map[string]string{}
			}
			out.Settings.WorkloadAgainst[w] = a
		}
		for _, w := range f.Warnings {
			// Shards that saw the same thing (a busy machine) say it once.
			if !slices.Contains(out.Warnings, w) {
				out.Warnings = append(out.Warnings, w)
			}
		}
	}
	if runs > 0 {
		out.BookkeepingNs = bookkeeping / runs
	}
	return out, nil
}

func countSamples(f *File) int {
	n := 0
	for _, c := range f.Results {
		n += len(c.Samples)
	}
	return n
}

func union[T comparable](a, b []T) []T {
	seen := map[T]bool{}
	var out []T
	for _, x := range append(append([]T(nil), a...), b...) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
