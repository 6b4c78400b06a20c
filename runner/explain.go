package runner

import (
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
func Contributions(d *profdiff.Diff, n int, timed bool) []results.Contribution {
	var out []results.Contribution
	for _, r := range d.Top(n) {
		if t, ok := d.InTime(r); timed && ok {
			r = t
		}
		c := results.Contribution{Function: r.Function, Old: r.Old, New: r.New, Change: r.Change}
		if r.HasInterval {
			lo, hi := r.Lo, r.Hi
			c.Lo, c.Hi = &lo, &hi
		}
		out = append(out, c)
	}
	return out
}
