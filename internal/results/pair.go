package results

import (
	"strings"

	"vbench/internal/modes"
)

// AB reports whether the change is an A/B pair's: the cell was judged
// against another cell of its own run (another mode of the same workload,
// or another workload in the same mode), not against a stored baseline.
func (ch *Change) AB() bool { return ch != nil && (ch.Against != "" || ch.AgainstWorkload != "") }

// Sides names the two cells of c's A/B pair the way a reader tells them
// apart: the modes for a pair of modes ("tracing@old", "tracing"), the
// workloads for a pair of workloads ("app-base", "app"). Empty when c was
// not judged against a cell of its own run.
func (c *Cell) Sides() (old, new string) {
	switch ch := c.Compare; {
	case ch == nil:
	case ch.Against != "":
		return string(ch.Against), string(c.Mode)
	case ch.AgainstWorkload != "":
		return ch.AgainstWorkload, c.Workload
	}
	return "", ""
}

// AgainstKey is the key ("workload/mode") of the cell c was judged against
// in its own run, "" when it was not judged against one.
func (c *Cell) AgainstKey() string {
	switch ch := c.Compare; {
	case ch == nil:
	case ch.Against != "":
		return c.Workload + "/" + string(ch.Against)
	case ch.AgainstWorkload != "":
		return ch.AgainstWorkload + "/" + string(c.Mode)
	}
	return ""
}

// ReferenceKey names the cell that the cell (workload, mode) of f is
// judged against in its own run — an A/B pair — and ok is false when there
// is none (it is judged against a stored baseline, or nothing). It is the
// one rule every caller pairs cells by (verdicts, adaptive rounds, shards,
// reports, explain):
//
//   - its mode's twin: the mode says against: (a suite's mode, or --against's
//     OLD build), and the cell is judged against the same workload's cell of
//     that mode ("tracing@old" → "tracing");
//   - else its workload's twin: the workload says against: (a suite's
//     workload, e.g. the base commit's build of the same program), and the
//     cell is judged against that workload's cell of the same mode
//     ("app-base" → "app").
//
// A suite cannot give both (internal/suite refuses it, and `run --against`
// refuses a suite whose workloads say against:); a file that somehow does
// is judged by the mode's.
func (f *File) ReferenceKey(workload string, mode modes.Mode) (refWorkload string, refMode modes.Mode, ok bool) {
	if a := f.ModeSpec(mode).Against; a != "" {
		return workload, a, true
	}
	if a := f.Settings.WorkloadAgainst[workload]; a != "" {
		return a, mode, true
	}
	return "", "", false
}

// IsAB reports whether the cell (workload, mode) is judged against another
// cell of its own run (ReferenceKey), whether or not that cell is in f.
func (f *File) IsAB(workload string, mode modes.Mode) bool {
	_, _, ok := f.ReferenceKey(workload, mode)
	return ok
}

// Reference is the cell of f that c is judged against in its own run
// (ReferenceKey), nil when c is not part of an A/B pair or f lacks the
// other cell (a shard of another split, a --workloads or --modes filter).
func (f *File) Reference(c *Cell) *Cell {
	w, m, ok := f.ReferenceKey(c.Workload, c.Mode)
	if !ok {
		return nil
	}
	return f.Find(w, m)
}

// TooFewRunsPrefix opens the part of a Change.Reason that says the runs
// could not reach significance whatever they measured (Comparable false).
const TooFewRunsPrefix = "too few runs"

// TooFewRuns is that part of a Change.Reason, "too few runs (3 vs 3) to
// reach p < 0.01 over 7 tests", or "" when the runs could have decided.
func TooFewRuns(reason string) string {
	for _, part := range strings.Split(reason, "; ") {
		if strings.HasPrefix(part, TooFewRunsPrefix+" (") {
			return part
		}
	}
	return ""
}
