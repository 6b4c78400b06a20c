package runner

import (
	"math"
	"slices"
	"sort"
	"strings"

	"vbench/internal/profdiff"
	"vbench/internal/results"
)

// ExplainTop is how many functions an A/B pair's explain lists.
const ExplainTop = 5

// explainPairs finds the why of every A/B pair whose two sides both have
// profiles (an engine mode's measured runs): the functions that
// contributed most to the change between them (profdiff over every
// measured run of each side, from the function totals useProfile kept, so
// nothing is read again). Run hands them over; verdict.Apply puts each in
// its pair's judgement.
func explainPairs(f *results.File, cells []*cellState) results.Whys {
	sides := map[*results.Cell]*profdiff.Side{}
	states := map[*results.Cell]*cellState{}
	for _, c := range cells {
		rc := f.Find(c.Workload.Name, c.Mode)
		if rc == nil {
			continue
		}
		states[rc] = c
		if c.side.Runs() > 0 {
			sides[rc] = &c.side
		}
	}
	whys := explainAllocs(f, cells)
	for i := range f.Results {
		c := &f.Results[i]
		ref := f.Reference(c)
		if _, done := whys[c.Key()]; ref == nil || done {
			continue
		}
		if c.Metric.Count() {
			// Not from the engine's profiles: they timed the program
			// under valgrind, whose own work (callgrind's start of
			// counting flushes every translation) dwarfs the program's (a
			// why from them named Clock.Start −140 ms on a +10 % per-call
			// change). From the why launches' instructions (why.go).
			if s, r := states[c], states[ref]; s != nil && r != nil {
				if w, ok := explainCounted(s, r, direction(c.Values(), ref.Values())); ok {
					whys[c.Key()] = w
				}
			}
			continue
		}
		if sides[ref] == nil || sides[c] == nil {
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
		// A slower pair's why leads with what grew, a faster one's with
		// what shrank.
		dir := direction(c.Values(), ref.Values())
		why := contributions(d, ExplainTop, timed, dir)
		if unit == string(profdiff.Nanoseconds) || unit == results.ExplainSampledPerRun {
			why = withRuntime(why, runtimeContributions(c, ref), ExplainTop)
		}
		scope := results.ExplainWholeProcess
		if sides[ref].Kernel() && sides[c].Kernel() {
			scope = results.ExplainKernel
		}
		whys[c.Key()] = results.Why{Explain: why, Unit: unit, Scope: scope}
	}
	return whys
}

// Contributions are a diff's first n changed functions as explain lists
// them, with the change's interval where the diff has one; timed: a
// sampled diff's shares as sampled time per run (profdiff.Diff.InTime).
// A function whose change concentrates on a few of its call paths is
// listed by those paths (Contribution.Path), the one whose path grew
// first: a helper three stages share, dearer under one of them, is that
// stage's path to it, not the helper alone.
func Contributions(d *profdiff.Diff, n int, timed bool) []results.Contribution {
	return contributions(d, n, timed, 1)
}

// contributions is Contributions leading with the path that moved most in
// direction dir (1 grew, -1 shrank).
func contributions(d *profdiff.Diff, n int, timed bool, dir int) []results.Contribution {
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
	fnRows := map[string]profdiff.Row{}
	for _, r := range d.Rows {
		fnRows[r.Function] = inTime(d, r)
	}
	var out []results.Contribution
	listed := map[string]bool{}
	// The path whose part of the program moved most leads, its function's
	// concentrated paths with it.
	if lead, ok := Lead(d, dir); ok && d.ByPath() != nil {
		fn := fnRows[lead.Function]
		on := Concentrated(d, fn, paths[lead.Function])
		key := profdiff.PathKey(lead.Path)
		at := -1
		for i, p := range on {
			if profdiff.PathKey(p.Path) == key {
				at = i
			}
		}
		if at < 0 {
			on = nil
			for _, p := range paths[lead.Function] {
				if profdiff.PathKey(p.Path) == key {
					on = []profdiff.Row{p}
				}
			}
		} else {
			on[0], on[at] = on[at], on[0]
		}
		// A lead whose change is not shown to differ from zero explains
		// nothing: its share moved most where one function is nearly the
		// whole profile (a kernel that did twice the work keeps its share,
		// and the rest's shares move by noise: Program.<Main>$ +0.7 ms led
		// Kernel.Run +343 ms under load). It then goes where its size puts it.
		if len(on) > 0 && on[0].NotShown() {
			on = nil
		}
		for _, p := range on {
			out = append(out, contribution(p))
		}
		listed[lead.Function] = len(on) > 0
	}
	// The program's functions first; the frames that stand for what no
	// method took ("[unselected code]", "[runtime]", "[libcoreclr.so]")
	// after them, where room is left: a why that led with one named nothing
	// a user could change (TestExplainNamesThePathThatGrew). A change not
	// shown to differ from zero explains nothing: it goes after every one
	// that is, though the JSON keeps it (a why's first entry, read by
	// scripts and tests as its lead, was once one under load).
	top := d.Top(0)
	for i := range top {
		top[i] = inTime(d, top[i])
	}
	rank := func(r profdiff.Row) int {
		k := 0
		if r.NotShown() {
			k += 2
		}
		if synthetic(r.Function) {
			k++
		}
		return k
	}
	sort.SliceStable(top, func(i, j int) bool { return rank(top[i]) < rank(top[j]) })
	for _, r := range top {
		if len(out) >= n {
			break
		}
		if listed[r.Function] {
			continue
		}
		on := Concentrated(d, r, paths[r.Function])
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

// Lead is the call path whose part of the program (its fraction of each
// run's self weight, profdiff.Diff.Moved) moved most in direction dir (1:
// grew, the why of a slower pair; -1: shrank, a faster one's), by the
// change of its median over the runs; ok is false when none moved that
// way. Fractions of a run are what a busy machine leaves alone: it
// lengthens every path of a run, where a sampled pair's times per run can
// read smaller on the side that did more work; a median leaves out the
// run the machine disturbed most. A helper three stages share, dearer
// under one, dominates by function, and its growth is a small change of
// its share; by path, that stage's path gains what the other two lose.
// Measured on a program of that shape, 10 runs of the pair at load 8-12 on
// 2 cores: the mean's largest growth was that stage's in 12 of 14 pairs,
// the median's in 14 of 14.
//
// The path leads only where its function's move concentrates on it: it
// moved at least half as much as the function's paths together (their
// mean moves add up), or the function as a whole did not move that way (a
// dominant helper: its share hardly moves, its callers' parts of it do). A
// recursive function that grew at every depth moved a little on each of
// its many paths, and is explained by function.
func Lead(d *profdiff.Diff, dir int) (profdiff.Row, bool) {
	moved := d.Moved()
	var best profdiff.Row
	ok := false
	for _, m := range moved {
		if synthetic(m.Function) {
			continue // not a path of the program's to name first
		}
		if x := float64(dir) * m.Contribution; x > 0 && (!ok || x > float64(dir)*best.Contribution) {
			best, ok = m, true
		}
	}
	if !ok {
		return best, false
	}
	whole := 0.0 // the function's move: its paths' mean moves
	for _, m := range moved {
		if m.Function == best.Function {
			whole += m.Change
		}
	}
	if w := float64(dir) * whole; w > 0 && float64(dir)*best.Change < w/2 {
		return best, false
	}
	return best, true
}

// direction is the way an A/B pair's why looks: -1 (what shrank) when its
// new side's runs were faster than its reference's in at least 4 of 5
// pairings of one run of each, else 1 (what grew). A pair whose runs
// cannot tell the sides apart is explained as a regression is.
func direction(newValues, refValues []float64) int {
	faster, all := 0, 0
	for _, n := range newValues {
		for _, r := range refValues {
			all++
			if n < r {
				faster++
			}
		}
	}
	if all > 0 && 5*faster >= 4*all {
		return -1
	}
	return 1
}

// Concentrated are the rows of fn's paths its change concentrates on,
// largest first, or none when it is spread wider (then no one path
// explains it). A path's part is the change of its fraction of fn's self
// weight, run by run (profdiff.Diff.Within): a machine that ran one side
// slower scales every path alike and moves no fraction, where it can swamp
// the paths' own changes (on a busy machine a sampled pair's new side
// once read faster than its old though it did 10% more work). The path
// whose fraction moved most, shown to have moved, gives the direction;
// the paths that moved that way are listed: at most 3, each shown to have
// moved and by at least a fifth of all that way's moves, together at least
// half of them. A function on one path only is that path.
func Concentrated(d *profdiff.Diff, fn profdiff.Row, paths []profdiff.Row) []profdiff.Row {
	if len(paths) == 1 {
		return paths
	}
	byKey := map[string]profdiff.Row{}
	for _, p := range paths {
		byKey[profdiff.PathKey(p.Path)] = p
	}
	within := d.Within(fn.Function)
	top := -1
	for i, w := range within {
		if w.HasInterval && !w.NotShown() && (top < 0 || math.Abs(w.Change) > math.Abs(within[top].Change)) {
			top = i
		}
	}
	if top < 0 {
		return nil
	}
	sign := math.Copysign(1, within[top].Change)
	total := 0.0
	var moved []profdiff.Row
	for _, w := range within {
		if x := sign * w.Change; x > 0 {
			total += x
			if !w.NotShown() {
				moved = append(moved, w)
			}
		}
	}
	sort.SliceStable(moved, func(i, j int) bool { return sign*moved[i].Change > sign*moved[j].Change })
	var on []profdiff.Row
	sum := 0.0
	for _, w := range moved {
		p, ok := byKey[profdiff.PathKey(w.Path)]
		if len(on) == 3 || sign*w.Change < total/5 || !ok {
			break
		}
		on, sum = append(on, p), sum+sign*w.Change
	}
	if sum < total/2 {
		return nil
	}
	return on
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

// explainAllocs gives every A/B pair under an allocation engine its
// explain: the types whose bytes allocated per run changed most, each on
// the path (root to the allocating frame) that allocated most of its
// change, so that a regressed alloc_bytes says what it allocates more of
// and where ("Vbench.Allocs.Order +781KiB … — … → Orders.Place").
func explainAllocs(f *results.File, cells []*cellState) results.Whys {
	whys := results.Whys{}
	sides := map[*results.Cell]*profdiff.Allocs{}
	for _, c := range cells {
		if c.allocSide.Runs > 0 {
			if rc := f.Find(c.Workload.Name, c.Mode); rc != nil {
				sides[rc] = &c.allocSide
			}
		}
	}
	for i := range f.Results {
		c := &f.Results[i]
		ref := f.Reference(c)
		if ref == nil || sides[ref] == nil || sides[c] == nil {
			continue
		}
		d, err := profdiff.CompareAllocs(sides[ref], sides[c])
		if err != nil {
			continue
		}
		dir := direction(c.MeasureValues(results.MeasureAllocBytes), ref.MeasureValues(results.MeasureAllocBytes))
		var out []results.Contribution
		for _, t := range d.Types {
			if len(out) == ExplainTop {
				break
			}
			if t.Change() == 0 || (t.Change() > 0) != (dir > 0) {
				continue
			}
			con := results.Contribution{Function: t.Type, Old: t.OldBytes, New: t.NewBytes, Change: t.Change()}
			if ps := d.Paths(t.Type); len(ps) > 0 && ps[0].Change()*t.Change() > 0 {
				con.Path = append(slices.Clone(ps[0].Path), t.Type)
				slices.Reverse(con.Path[:len(con.Path)-1]) // root first, the allocating frame last, then the type
			}
			out = append(out, con)
		}
		if len(out) > 0 {
			whys[c.Key()] = results.Why{Explain: out, Unit: results.ExplainAllocatedPerRun}
		}
	}
	return whys
}

// synthetic reports whether a profile's frame stands for code no method
// took ("[native]", "[runtime]", "[unselected code]"; in instructions,
// "[libcoreclr.so]"), not a function of the program.
func synthetic(name string) bool {
	return strings.HasPrefix(name, "[") && strings.HasSuffix(name, "]")
}
