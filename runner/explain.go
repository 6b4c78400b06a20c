package runner

import (
	"sort"

	"vbench/internal/profdiff"
	"vbench/internal/results"
	"vbench/internal/verdict"
)

// ExplainTop is how many functions an A/B pair's explain lists.
const ExplainTop = 5

// explainPairs gives every A/B pair whose two sides both have profiles
// (an engine mode's measured runs) its explain: the functions that
// contributed most to the change between them (profdiff over every
// measured run of each side, from the function totals useProfile kept, so
// nothing is read again). It is set on the cell's Compare, which
// verdict.Apply keeps when it judges the pair.
func explainPairs(f *results.File, cells []*cellState) {
	sides := map[*results.Cell]*profdiff.Side{}
	for _, c := range cells {
		if c.side.Runs() > 0 {
			if rc := f.Find(c.Workload.Name, c.Mode); rc != nil {
				sides[rc] = &c.side
			}
		}
	}
	for i := range f.Results {
		c := &f.Results[i]
		ref := verdict.Reference(f, c)
		if ref == nil || sides[ref] == nil || sides[c] == nil {
			continue
		}
		d, err := profdiff.Compare(sides[ref], sides[c])
		if err != nil {
			continue
		}
		unit := string(d.Unit)
		if c.Metric.Service() && d.Unit != profdiff.Share {
			unit = results.ExplainPerRequest // useProfile divided each run by its requests
		}
		// Shares as sampled time per run: a function whose work did not
		// change stays level when another grows.
		timed := d.Timed() && !c.Metric.Service() // a service's runs are per request only in ns
		if timed {
			unit = results.ExplainSampledPerRun
		}
		c.Compare = &results.Change{Explain: Contributions(d, ExplainTop, timed), ExplainUnit: unit}
	}
}

// Contributions are a diff's first n changed functions as explain lists
// them, with the change's interval where the diff has one; timed: a
// sampled diff's shares as sampled time per run (profdiff.Diff.InTime).
// A function whose change concentrates on a few of its call paths is
// listed by those paths (Contribution.Path), the one whose path grew
// first: a helper three stages share, dearer under one of them, is that
// stage's path to it, not the helper alone.
func Contributions(d *profdiff.Diff, n int, timed bool) []results.Contribution {
	inTime := func(d *profdiff.Diff, r profdiff.Row) profdiff.Row {
		if t, ok := d.InTime(r); timed && ok {
			return t
		}
		return r
	}
	paths := map[string][]profdiff.Row{} // a function's path rows, by name
	if pd := d.ByPath(); pd != nil {
		for _, r := range pd.Rows {
			paths[r.Function] = append(paths[r.Function], inTime(pd, r))
		}
	}
	var out []results.Contribution
	for _, r := range d.Top(0) {
		if len(out) >= n {
			break
		}
		r = inTime(d, r)
		on := Concentrated(r, paths[r.Function])
		if len(on) == 0 {
			out = append(out, contribution(r))
			continue
		}
		for _, p := range on {
			out = append(out, contribution(p))
		}
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// Concentrated are the paths of fn's path rows its change concentrates
// on, largest first, or none when it is spread wider (then no one path
// explains it). A path's part is how far it outgrew fn's other paths: its
// new figure less its old one scaled as fn's whole (n_p − o_p·n_fn/o_fn).
// These parts add up to zero, and a machine that ran one side slower
// scales every path alike and adds none, where it can swamp the paths'
// own changes (on a busy machine a sampled pair's new side once read
// faster than its old though it did 10% more work). The paths that grew
// beyond the others are listed when fn grew or is not shown to have
// changed, those that shrank when fn shrank: at most 3, each at least a
// fifth of the parts of that sign, together at least half. A function on
// one path only is that path.
func Concentrated(fn profdiff.Row, paths []profdiff.Row) []profdiff.Row {
	if len(paths) == 1 {
		return paths
	}
	if fn.Old <= 0 || len(paths) == 0 {
		return nil
	}
	sign := 1.0
	if fn.Change < 0 && !fn.NotShown() {
		sign = -1
	}
	part := func(p profdiff.Row) float64 { return sign * (p.New - p.Old*fn.New/fn.Old) }
	total := 0.0
	var on []profdiff.Row
	for _, p := range paths {
		if x := part(p); x > 0 {
			total += x
			on = append(on, p)
		}
	}
	if total == 0 {
		return nil
	}
	sort.SliceStable(on, func(i, j int) bool { return part(on[i]) > part(on[j]) })
	kept, sum := on[:0], 0.0
	for _, p := range on {
		if len(kept) == 3 || part(p) < total/5 {
			break
		}
		kept, sum = append(kept, p), sum+part(p)
	}
	if sum < total/2 {
		return nil
	}
	return kept
}

// contribution is row r as an explain entry.
func contribution(r profdiff.Row) results.Contribution {
	c := results.Contribution{Function: r.Function, Old: r.Old, New: r.New, Change: r.Change, Path: r.Path, NotShown: r.NotShown()}
	if r.HasInterval {
		lo, hi := r.Lo, r.Hi
		c.Lo, c.Hi = &lo, &hi
	}
	if r.HasCalls {
		o, nw := r.OldCalls, r.NewCalls
		c.OldCalls, c.NewCalls = &o, &nw
	}
	return c
}
