// Package profdiff compares two sets of profiles of one program, function by
// function: where a change in time went. It is what `vbench diff` prints,
// what the differential flame graph colours, and what an A/B pair's explain
// lists.
//
// A Side is one build's profiles: one or more runs, each the merged profile
// of a run's processes. Functions are matched by name alone (namespace,
// type, method), not by module: two builds of a program may name their
// assemblies differently.
//
// The figures are a function's self (exclusive) and inclusive weight.
// Tracing and instrumentation weigh time: the mean per run, in ns, so sides
// with different numbers of runs compare; the interval of a change is
// Welch's, over the runs' per-run figures (needs two runs a side). Sampling
// weighs samples: a function's share of the side's samples (those with a
// managed frame), and the interval and p of a change are a test of two
// proportions over the pooled counts. Self figures add up to the side's
// total, so their changes are each function's contribution to the total
// change: rows are ordered by it, largest magnitude first. Shares always
// add up to one, so their changes cannot say where more work went (a
// function doing more work takes share from all the others); a sampled
// function's contribution is the change of its share times its side's CPU
// time per run (the threads' CPU time the profile records): an estimate of
// its self CPU time per run. The count of samples is no such estimate: on a
// busy machine a run doing more work was seen to take fewer samples. Where
// a profile records no CPU time (a pprof file) it is the change of its self
// samples per run.
package profdiff

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"vbench/internal/modes"
	"vbench/internal/profile"
)

// Unit is what a Diff's figures are.
type Unit string

const (
	// Nanoseconds: time per run (the mean over a side's runs).
	Nanoseconds Unit = "ns"
	// Share: a share (0 to 1) of the side's samples.
	Share Unit = "share"
	// Instructions: instructions per run (the mean over a side's runs),
	// counted under valgrind (internal/instrprof).
	Instructions Unit = "instructions"
)

// UnitOf is the unit profiles of engine e are compared in.
func UnitOf(e modes.Engine) Unit {
	if e.Samples() {
		return Share
	}
	return Nanoseconds
}

// Level is the confidence of every interval.
const Level = 0.95

// Weight is one function's figures in one run (ns or samples).
type Weight struct{ Self, Incl int64 }

// Side is one build's profiles, run by run. The zero value is empty; its
// unit is set by the first profile added.
type Side struct {
	Unit Unit
	runs []run
}

type run struct {
	total    int64 // the sum of every function's self weight
	cpu      int64 // the threads' CPU time, ns; 0 when unknown
	interval int64 // a sampled run's interval, ns (a sample's weight in time); 0 when unknown
	fns      map[string]Weight
	// calls are each function's calls in the run; nil when the engine
	// does not count them (a sampler, a pprof file).
	calls map[string]int64
	// paths are the run's call paths (PathKey: root to the function) with
	// their self weight, and their calls where counted: what ByPath
	// compares. nil when the run was added without its call trees.
	paths     map[string]Weight
	pathCalls map[string]int64
	kernel    bool // the run's kernel window alone (profile.Profile.KernelView)
}

// Add adds one run's profile (the merged profile of its processes). Only
// the function table is read: O(functions), cheap enough for every run of
// a benchmark. A profile of another unit than the side's is an error.
func (s *Side) Add(p *profile.Profile) error {
	kernel := false
	if k := p.KernelView(); k != nil {
		p, kernel = k, true
	}
	u := UnitOf(p.Mode)
	if p.Mode == modes.EngineNull {
		return fmt.Errorf("a %s profile has no times or samples to compare", p.Mode)
	}
	fns := make(map[string]Weight, len(p.Functions))
	var total int64
	for i := range p.Functions {
		f := &p.Functions[i]
		w := Weight{f.ExclusiveNs, f.InclusiveNs}
		if u == Share {
			w = Weight{f.ExclusiveSamples, f.InclusiveSamples}
		}
		if w == (Weight{}) {
			continue
		}
		old := fns[f.Name] // a name in two modules: one row
		fns[f.Name] = Weight{old.Self + w.Self, old.Incl + w.Incl}
		total += w.Self
	}
	if err := s.AddRun(u, total, fns); err != nil {
		return err
	}
	r := &s.runs[len(s.runs)-1]
	r.kernel = kernel
	for _, t := range p.Threads {
		r.cpu += t.CPUNs
	}
	if u == Share {
		r.interval = p.IntervalNs
	}
	counts := p.Mode.CountsCalls()
	if counts {
		r.calls = make(map[string]int64, len(fns))
		for i := range p.Functions {
			if f := &p.Functions[i]; f.Calls > 0 {
				r.calls[f.Name] += f.Calls
			}
		}
	}
	r.paths, r.pathCalls = pathWeights(p, counts)
	return nil
}

// PathSep joins a call path's names in a PathKey.
const PathSep = "\x00"

// PathKey is the key of a call path, root first.
func PathKey(names []string) string { return strings.Join(names, PathSep) }

// SplitPath is PathKey's inverse.
func SplitPath(key string) []string { return strings.Split(key, PathSep) }

// MaxPathDepth is how many names a path key keeps: a deeper path (deep
// recursion) is keyed by its last MaxPathDepth names after PathElided, so
// a run's keys cost O(nodes), not O(nodes × depth).
const MaxPathDepth = 32

// PathElided stands, first in a path, for the callers a deep path leaves
// out.
const PathElided = "…"

// pathKey is the key of the path names, root first, elided to its last
// MaxPathDepth names before joining: joining the whole path first made a
// 50,000-deep recursion's keys O(depth²) bytes (40 s for vbench diff).
func pathKey(names []string) string {
	if len(names) > MaxPathDepth {
		return PathElided + PathSep + PathKey(names[len(names)-MaxPathDepth:])
	}
	return PathKey(names)
}

// pathWeights are a profile's call paths, merged across its threads, with
// their self weight (ns, or samples) and, when counts, their calls.
func pathWeights(p *profile.Profile, counts bool) (map[string]Weight, map[string]int64) {
	sampled := p.Sampled()
	out := map[string]Weight{}
	var calls map[string]int64
	if counts {
		calls = map[string]int64{}
	}
	var names []string
	for ti := range p.Threads {
		profile.Walk(p.Threads[ti].Roots, func(n *profile.Node, d int) bool {
			names = append(names[:d], p.Functions[n.Fn].Name)
			w := Weight{n.ExclusiveNs, n.InclusiveNs}
			if sampled {
				w = Weight{n.ExclusiveSamples, n.InclusiveSamples}
			}
			k := pathKey(names)
			o := out[k]
			out[k] = Weight{o.Self + w.Self, o.Incl + w.Incl}
			if counts {
				calls[k] += n.Calls
			}
			return true
		}, nil)
	}
	return out, calls
}

// setPaths sets the last run's call paths (a pprof file's stacks).
func (s *Side) setPaths(paths map[string]Weight) {
	if len(s.runs) > 0 {
		s.runs[len(s.runs)-1].paths = paths
	}
}

// byPath is the side with its call paths in place of its functions (nil
// when some run has none): its rows are paths, keyed by PathKey.
func (s *Side) byPath() *Side {
	out := &Side{Unit: s.Unit}
	for _, r := range s.runs {
		if r.paths == nil {
			return nil
		}
		out.runs = append(out.runs, run{total: r.total, cpu: r.cpu, interval: r.interval, fns: r.paths, calls: r.pathCalls})
	}
	return out
}

// AddRun adds one run given as function weights (a pprof file's, which has
// no vbench function table) and their self total.
func (s *Side) AddRun(u Unit, total int64, fns map[string]Weight) error {
	if s.Unit == "" {
		s.Unit = u
	}
	if u != s.Unit {
		return fmt.Errorf("cannot add a profile in %s to profiles in %s (tracing and sampling do not compare)", u, s.Unit)
	}
	s.runs = append(s.runs, run{total: total, fns: fns})
	return nil
}

// AddCounted adds one run counted in instructions: each function's own
// and inclusive instructions, and its calls where they were counted (nil:
// not counted); paths (PathKey) and their calls, when known (nil: none).
func (s *Side) AddCounted(total int64, fns map[string]Weight, calls map[string]int64, paths map[string]Weight, pathCalls map[string]int64) error {
	if err := s.AddRun(Instructions, total, fns); err != nil {
		return err
	}
	r := &s.runs[len(s.runs)-1]
	r.calls, r.paths, r.pathCalls = calls, paths, pathCalls
	return nil
}

// PerRequest divides the last run added by its n requests (a service run:
// the load lasts a fixed time, so a slower build serves fewer requests in
// it and its time per run does not grow; per request, it does). A share of
// samples stays a share; only the CPU time that orders sampled functions is
// divided. n <= 0 leaves the run as it is.
func (s *Side) PerRequest(n int64) {
	if n <= 0 || len(s.runs) == 0 {
		return
	}
	r := &s.runs[len(s.runs)-1]
	r.cpu /= n
	if s.Unit == Share {
		return
	}
	for k, w := range r.fns {
		r.fns[k] = Weight{w.Self / n, w.Incl / n}
	}
	for k, w := range r.paths {
		r.paths[k] = Weight{w.Self / n, w.Incl / n}
	}
	r.total /= n
}

// Runs is the number of runs added.
func (s *Side) Runs() int { return len(s.runs) }

// Row is one function's change from OLD to NEW. Self and inclusive figures
// are in the Diff's unit (mean ns per run, or share of samples).
type Row struct {
	Function string
	Old, New float64 // self
	Change   float64 // New - Old
	// Contribution is the function's part in the change of the total: its
	// Change (time), or the change of its self samples per run (sampling).
	Contribution     float64
	OldIncl, NewIncl float64
	// Lo and Hi bound Change at Level, and P is the two-sided p-value of
	// no change; HasInterval is false when they cannot be computed (one run
	// a side when timing).
	Lo, Hi, P   float64
	HasInterval bool
	// OldCalls and NewCalls are the function's (or path's) calls per run,
	// the mean over each side's runs; HasCalls is false when some run's
	// engine did not count calls (a sampler's).
	OldCalls, NewCalls float64
	HasCalls           bool
	// Path is, in a diff by path (Diff.ByPath), the call path root to
	// Function.
	Path []string
}

// NotShown reports whether the row's change is not shown to differ from
// zero: its interval holds 0 (no interval: not known to differ either way,
// so false).
func (r Row) NotShown() bool { return r.HasInterval && r.Lo <= 0 && r.Hi >= 0 }

// InclChange is the change of the inclusive figure.
func (r Row) InclChange() float64 { return r.NewIncl - r.OldIncl }

// Diff is two sides compared.
type Diff struct {
	Unit             Unit
	OldRuns, NewRuns int
	// OldTotal and NewTotal are the sides' totals: ns per run, or samples
	// (all runs). In unit Share every row's figures are of these.
	OldTotal, NewTotal float64
	Rows               []Row // by |Change|, largest first; ties by name
	// sampled are unit Share's rows as sampled time per run (InTime), when
	// every run of both sides knows its interval.
	sampled map[string]Row
	// byPath is the same comparison by call path (ByPath); nil when a side
	// has runs without call trees, or in a diff that is itself by path.
	byPath *Diff
	// old and new are the sides compared (their call paths: Within).
	old, new *Side
}

// ByPath is the diff by call path: each row a path from a root to a
// function (Row.Path), its self figure the function's on that path alone.
// A helper whose time grew under one caller only is one row here, where
// by function its growth and its other callers' level time are one sum.
// nil when some run was read without its call trees.
func (d *Diff) ByPath() *Diff { return d.byPath }

// Compare compares old with new.
func Compare(old, new *Side) (*Diff, error) {
	d, err := compare(old, new)
	if err != nil {
		return nil, err
	}
	d.old, d.new = old, new
	if po, pn := old.byPath(), new.byPath(); po != nil && pn != nil {
		if d.byPath, err = compare(po, pn); err != nil {
			return nil, err
		}
		for i := range d.byPath.Rows {
			r := &d.byPath.Rows[i]
			r.Path = SplitPath(r.Function)
			r.Function = r.Path[len(r.Path)-1]
		}
		for k, t := range d.byPath.sampled {
			t.Path = SplitPath(k)
			t.Function = t.Path[len(t.Path)-1]
			d.byPath.sampled[k] = t
		}
	}
	return d, nil
}

func compare(old, new *Side) (*Diff, error) {
	if old.Runs() == 0 || new.Runs() == 0 {
		return nil, fmt.Errorf("nothing to compare: %d old and %d new profiles", old.Runs(), new.Runs())
	}
	if old.Unit != new.Unit {
		return nil, fmt.Errorf("OLD is in %s and NEW in %s: a tracing profile and a sampling one do not compare", old.Unit, new.Unit)
	}
	d := &Diff{Unit: old.Unit, OldRuns: old.Runs(), NewRuns: new.Runs()}
	osum, nsum := old.sums(), new.sums()
	d.OldTotal, d.NewTotal = float64(osum.total), float64(nsum.total)
	if d.Unit == Nanoseconds || d.Unit == Instructions {
		d.OldTotal /= float64(old.Runs())
		d.NewTotal /= float64(new.Runs())
	}
	// A sampled function's contribution where the runs' intervals are not
	// known: its share times the side's CPU time per run, if known.
	var oldCPU, newCPU float64
	if d.Unit == Share && osum.cpu > 0 && nsum.cpu > 0 && old.knowCPU() && new.knowCPU() {
		oldCPU, newCPU = float64(osum.cpu)/float64(old.Runs()), float64(nsum.cpu)/float64(new.Runs())
	}
	names := map[string]bool{}
	for n := range osum.fns {
		names[n] = true
	}
	for n := range nsum.fns {
		names[n] = true
	}
	var oldTime, newTime *Side // the sampled sides in ns (sampledTime), once
	if d.Unit == Share && old.knowInterval() && new.knowInterval() {
		d.sampled = map[string]Row{}
		oldTime, newTime = old.sampledTime(), new.sampledTime()
	}
	for name := range names {
		var r Row
		if d.Unit == Share {
			r = shareRow(name, osum, nsum)
			if d.sampled != nil {
				t := timeRow(name, oldTime, newTime)
				t.Contribution = t.Change
				d.sampled[name] = t
				r.Contribution = t.Change
			} else if oldCPU > 0 {
				r.Contribution = r.New*newCPU - r.Old*oldCPU
			} else {
				r.Contribution = float64(nsum.fns[name].Self)/float64(new.Runs()) - float64(osum.fns[name].Self)/float64(old.Runs())
			}
		} else {
			r = timeRow(name, old, new)
			r.Contribution = r.Change
		}
		if r.Old == 0 && r.New == 0 && r.OldIncl == 0 && r.NewIncl == 0 {
			continue
		}
		if oc, ok := old.callsPerRun(name); ok {
			if nc, ok := new.callsPerRun(name); ok {
				r.OldCalls, r.NewCalls, r.HasCalls = oc, nc, true
				if t, ok := d.sampled[name]; ok {
					t.OldCalls, t.NewCalls, t.HasCalls = oc, nc, true
					d.sampled[name] = t
				}
			}
		}
		d.Rows = append(d.Rows, r)
	}
	sort.Slice(d.Rows, func(i, j int) bool {
		a, b := math.Abs(d.Rows[i].Contribution), math.Abs(d.Rows[j].Contribution)
		if a != b {
			return a > b
		}
		if ai, bi := math.Abs(d.Rows[i].InclChange()), math.Abs(d.Rows[j].InclChange()); ai != bi {
			return ai > bi
		}
		return d.Rows[i].Function < d.Rows[j].Function
	})
	return d, nil
}

// Within compares how fn's self weight divides among its call paths: a row
// per path (Row.Path), its figures the path's fraction (0 to 1) of fn's
// self weight in each run, the mean over a side's runs whose fn has any,
// with Welch's interval over them. A machine that ran one side slower
// scales every path of fn alike and leaves these fractions as they were;
// a caller whose use of fn grew raises its path's. nil when a side's runs
// have no call paths or fn is absent from a side.
func (d *Diff) Within(fn string) []Row {
	return d.fractions(func(k string) bool { return k == fn || strings.HasSuffix(k, PathSep+fn) },
		func(r run) float64 { return float64(r.fns[fn].Self) })
}

// Moved compares every call path's fraction of its run's whole self
// weight, run by run, as Within does a function's: the paths whose part of
// the program moved, whatever the machine did to the runs' lengths. In
// Moved's and Within's rows, Contribution is the change of the median
// fraction over each side's runs: a run the machine disturbed (a thread
// descheduled for 50 ms in one stage lends it 50 ms of wall-clock samples)
// moves a mean, not a median.
func (d *Diff) Moved() []Row {
	return d.fractions(func(string) bool { return true }, func(r run) float64 { return float64(r.total) })
}

// fractions compares, for each call path keep accepts, its self weight's
// fraction of denom in each run (runs whose denom is 0 left out).
func (d *Diff) fractions(keep func(string) bool, denom func(run) float64) []Row {
	if d.old == nil || d.old.byPath() == nil || d.new.byPath() == nil {
		return nil
	}
	fractions := func(s *Side) (map[string][]float64, int) {
		out := map[string][]float64{}
		var runs int
		for _, r := range s.runs {
			total := denom(r)
			if total <= 0 {
				continue
			}
			for k, w := range r.paths {
				if w.Self > 0 && keep(k) {
					out[k] = append(out[k], make([]float64, runs-len(out[k]))...) // runs before that lacked it
					out[k] = append(out[k], float64(w.Self)/total)
				}
			}
			runs++
			for k := range out {
				out[k] = append(out[k], make([]float64, runs-len(out[k]))...)
			}
		}
		return out, runs
	}
	of, oruns := fractions(d.old)
	nf, nruns := fractions(d.new)
	if oruns == 0 || nruns == 0 {
		return nil
	}
	keys := map[string]bool{}
	for k := range of {
		keys[k] = true
	}
	for k := range nf {
		keys[k] = true
	}
	var out []Row
	for k := range keys {
		os, ns := of[k], nf[k]
		if os == nil {
			os = make([]float64, oruns)
		}
		if ns == nil {
			ns = make([]float64, nruns)
		}
		r := welch(os, ns)
		r.Contribution = median(ns) - median(os)
		r.Path = SplitPath(k)
		r.Function = r.Path[len(r.Path)-1]
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return PathKey(out[i].Path) < PathKey(out[j].Path) })
	return out
}

// median of xs (not modified).
func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// sums adds a side's runs up.
func (s *Side) sums() run {
	out := run{fns: map[string]Weight{}}
	for _, r := range s.runs {
		out.total += r.total
		out.cpu += r.cpu
		for n, w := range r.fns {
			o := out.fns[n]
			out.fns[n] = Weight{o.Self + w.Self, o.Incl + w.Incl}
		}
	}
	return out
}

// callsPerRun is name's mean calls per run; ok is false when some run did
// not count calls.
func (s *Side) callsPerRun(name string) (float64, bool) {
	var sum int64
	for _, r := range s.runs {
		if r.calls == nil {
			return 0, false
		}
		sum += r.calls[name]
	}
	return float64(sum) / float64(len(s.runs)), len(s.runs) > 0
}

// knowCPU reports whether every run recorded its CPU time.
func (s *Side) knowCPU() bool {
	for _, r := range s.runs {
		if r.cpu == 0 {
			return false
		}
	}
	return true
}

// shareRow compares a function's shares of samples by a test of two
// proportions: the pooled proportion's standard error for p (z test), the
// unpooled one for the interval (Wald).
func shareRow(name string, old, new run) Row {
	o, n := old.fns[name], new.fns[name]
	r := Row{Function: name}
	share := func(x, total int64) float64 {
		if total == 0 {
			return 0
		}
		return float64(x) / float64(total)
	}
	r.Old, r.New = share(o.Self, old.total), share(n.Self, new.total)
	r.OldIncl, r.NewIncl = share(o.Incl, old.total), share(n.Incl, new.total)
	r.Change = r.New - r.Old
	n1, n2 := float64(old.total), float64(new.total)
	if n1 == 0 || n2 == 0 {
		return r
	}
	pool := float64(o.Self+n.Self) / (n1 + n2)
	se0 := math.Sqrt(pool * (1 - pool) * (1/n1 + 1/n2))
	r.P = 1
	if se0 > 0 {
		r.P = 2 * distuv.UnitNormal.Survival(math.Abs(r.Change)/se0)
	}
	se := math.Sqrt(r.Old*(1-r.Old)/n1 + r.New*(1-r.New)/n2)
	z := distuv.UnitNormal.Quantile(1 - (1-Level)/2)
	r.Lo, r.Hi, r.HasInterval = r.Change-z*se, r.Change+z*se, true
	return r
}

// InTime is share row r as the function's sampled self time per run: each
// run's self samples (weights) times its interval — a thread's CPU time and
// its waits under sampling, every thread's wall time under suspend-sampling
// — the mean over a
// side's runs, with Welch's interval over them (as a traced time's). ok is
// false when some run does not know its interval.
func (d *Diff) InTime(r Row) (Row, bool) {
	k := r.Function
	if r.Path != nil {
		k = PathKey(r.Path)
	}
	t, ok := d.sampled[k]
	return t, ok
}

// Timed reports whether a sampled diff has every row in time (InTime):
// every run of both sides knew its interval.
func (d *Diff) Timed() bool { return d.sampled != nil }

// sampledTime is a sampled side with every run's weights in ns (self
// samples times the run's interval).
func (s *Side) sampledTime() *Side {
	out := &Side{Unit: Nanoseconds}
	for _, r := range s.runs {
		fns := make(map[string]Weight, len(r.fns))
		for k, w := range r.fns {
			fns[k] = Weight{w.Self * r.interval, w.Incl * r.interval}
		}
		out.runs = append(out.runs, run{total: r.total * r.interval, cpu: r.cpu, fns: fns, calls: r.calls})
	}
	return out
}

// knowInterval reports whether every run recorded its sampling interval.
func (s *Side) knowInterval() bool {
	for _, r := range s.runs {
		if r.interval <= 0 {
			return false
		}
	}
	return len(s.runs) > 0
}

// timeRow compares a function's mean self time per run, with Welch's
// interval and t test over the runs when both sides have two or more.
func timeRow(name string, old, new *Side) Row {
	os, oi := old.perRun(name)
	ns, ni := new.perRun(name)
	r := welch(os, ns)
	r.Function, r.OldIncl, r.NewIncl = name, stat.Mean(oi, nil), stat.Mean(ni, nil)
	return r
}

// welch compares the means of os and ns with Welch's interval and t test
// when both have two or more values.
func welch(os, ns []float64) Row {
	r := Row{Old: stat.Mean(os, nil), New: stat.Mean(ns, nil)}
	r.Change = r.New - r.Old
	if len(os) < 2 || len(ns) < 2 {
		return r
	}
	v1, v2 := stat.Variance(os, nil)/float64(len(os)), stat.Variance(ns, nil)/float64(len(ns))
	se := math.Sqrt(v1 + v2)
	if se == 0 {
		r.Lo, r.Hi, r.P, r.HasInterval = r.Change, r.Change, 1, true
		if r.Change != 0 {
			r.P = 0
		}
		return r
	}
	// Welch–Satterthwaite degrees of freedom.
	df := (v1 + v2) * (v1 + v2) / (v1*v1/float64(len(os)-1) + v2*v2/float64(len(ns)-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	q := t.Quantile(1 - (1-Level)/2)
	r.Lo, r.Hi = r.Change-q*se, r.Change+q*se
	r.P = 2 * t.Survival(math.Abs(r.Change)/se)
	r.HasInterval = true
	return r
}

// perRun is a function's self and inclusive weight in each run (0 where
// the run never saw it).
func (s *Side) perRun(name string) (self, incl []float64) {
	for _, r := range s.runs {
		w := r.fns[name]
		self = append(self, float64(w.Self))
		incl = append(incl, float64(w.Incl))
	}
	return self, incl
}

// Top returns the first n rows whose self figure changed (all when n <= 0).
func (d *Diff) Top(n int) []Row {
	var out []Row
	for _, r := range d.Rows {
		if r.Change == 0 && r.Contribution == 0 {
			continue
		}
		if n > 0 && len(out) == n {
			break
		}
		out = append(out, r)
	}
	return out
}

// Kernel reports whether every run of the side is its kernel window alone
// (the program marked its kernel, and a sampler counted it apart): else
// its runs are whole processes, start-up and all.
func (s *Side) Kernel() bool {
	for _, r := range s.runs {
		if !r.kernel {
			return false
		}
	}
	return len(s.runs) > 0
}
