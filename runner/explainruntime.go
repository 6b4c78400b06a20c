package runner

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"vbench/internal/results"
	"vbench/stats"
)

// The runtime's own time in an A/B pair's why: GC pauses (with the
// collections' count) and JIT compilation, per run, from the startup hook's
// figures (runner/hook.go). A profile's functions never show them (a
// sampler's GC threads have no managed frame; a tracer times methods), so
// a head that allocates more read as a few functions a little slower, the
// 123 extra collections and their +169 ms of pauses nowhere.

// Names of the runtime's entries in a why.
const (
	ExplainGC  = "[runtime: GC pauses]"
	ExplainJIT = "[runtime: JIT compilation]"
)

// runtimeContributions are the runtime's entries for the pair (cell c
// against ref) that moved: each side's mean per run, the change between
// the medians. Moved: its 95% interval excludes zero where each side has
// the runs for one (stats.DiffCI), else every run of one side lies beyond
// every run of the other.
func runtimeContributions(c, ref *results.Cell) []results.Contribution {
	var out []results.Contribution
	add := func(name string, newV, oldV []float64, detail func() string) {
		if len(newV) == 0 || len(oldV) == 0 || !moved(newV, oldV) {
			return
		}
		d, lo, hi := stats.DiffCI(newV, oldV)
		con := results.Contribution{Function: name, Old: mean(oldV), New: mean(newV), Change: d}
		if lo != 0 || hi != 0 {
			con.Lo, con.Hi = &lo, &hi
		}
		if detail != nil {
			if t := detail(); t != "" {
				con.Function += " " + t
			}
		}
		out = append(out, con)
	}
	gcNew, gcOld := c.MeasureValues(results.MeasureGCCount), ref.MeasureValues(results.MeasureGCCount)
	add(ExplainGC, c.MeasureValues(results.MeasureGCPause), ref.MeasureValues(results.MeasureGCPause), func() string {
		if len(gcNew) == 0 || len(gcOld) == 0 {
			return ""
		}
		return fmt.Sprintf("(%.0f → %.0f collections a run)", mean(gcOld), mean(gcNew))
	})
	add(ExplainJIT, jitValues(c), jitValues(ref), nil)
	return out
}

// withRuntime merges the runtime's entries into a why of entries in ns per
// run, each before the first entry that changed less; at most n entries,
// the runtime's kept before the functions'.
func withRuntime(why, rt []results.Contribution, n int) []results.Contribution {
	if len(rt) == 0 {
		return why
	}
	out := slices.Clone(why)
	for _, r := range rt {
		at := len(out)
		for i, w := range out {
			if math.Abs(r.Change) > math.Abs(w.Change) {
				at = i
				break
			}
		}
		out = slices.Insert(out, at, r)
	}
	for len(out) > n {
		// Drop the last entry that is not the runtime's.
		i := len(out) - 1
		for i >= 0 && IsRuntime(out[i].Function) {
			i--
		}
		if i < 0 {
			break
		}
		out = slices.Delete(out, i, i+1)
	}
	return out
}

// IsRuntime reports whether a why's entry is the runtime's own (GC pauses,
// JIT compilation: from the startup hook's figures), not a profile's
// function.
func IsRuntime(fn string) bool {
	return strings.HasPrefix(fn, ExplainGC) || strings.HasPrefix(fn, ExplainJIT)
}

// jitValues are the cell's measured runs' JIT compilation times.
func jitValues(c *results.Cell) []float64 {
	var out []float64
	for _, r := range c.Measured() {
		if r.JITNs != nil {
			out = append(out, float64(*r.JITNs))
		}
	}
	return out
}

// moved says whether a and b differ: the 95% interval of their medians'
// difference excludes zero, or with too few runs for one, the two sides'
// runs do not overlap.
func moved(a, b []float64) bool {
	if _, lo, hi := stats.DiffCI(a, b); lo != 0 || hi != 0 {
		return lo > 0 || hi < 0
	}
	return slices.Min(a) > slices.Max(b) || slices.Max(a) < slices.Min(b)
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
