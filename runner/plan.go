// Package runner measures a suite: it builds what the workloads need once,
// launches every (workload, mode) cell's warmup and measured runs in a
// randomized round-robin order, records each run (the workload's own elapsed
// time from its VBENCH line, wall time, rusage, exit status, checksum) and
// checks what a profiled run must produce.
package runner

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/internal/suite"
	"vbench/internal/verdict"
)

// Options are the command-line choices that override the suite.
type Options struct {
	Runs      int           // > 0 overrides the suite and every workload
	MaxRuns   int           // > 0 overrides the suite's max_runs
	Warmup    int           // >= 0 overrides; < 0 keeps the suite's
	Modes     []modes.Mode  // nil keeps the suite's (workload subsets still apply)
	Workloads []string      // nil: all
	Timeout   time.Duration // > 0 overrides the suite and every workload
	Shard     *results.Shard
	Seed      uint64
	// Against is the OLD build of the profiler (an absolute, checked path)
	// for an A/B run: every engine mode of the plan also runs with it, as
	// its modes.OldBuild twin in the same rounds, and is judged against
	// it. Empty: no A/B run.
	Against string
	// Schedule is how a round orders its launches: SchedulePairs (also
	// ""), or ScheduleShuffle (schedule.go).
	Schedule string
	// Budget bounds the run, its builds included: no batch of adaptive
	// rounds starts that the time left cannot pay for at the pace of its
	// launches so far (0: none). The planned runs always run.
	Budget time.Duration
	// Metric, when set, measures every batch workload by it instead of
	// its own; cells it cannot measure are left out (Plan.Left says why).
	Metric results.Metric
}

// Cell is one planned (workload, mode) pair.
type Cell struct {
	Workload *suite.Workload
	Mode     modes.Mode
	Spec     modes.Spec     // what the mode loads
	Metric   results.Metric // what its runs are measured by: the workload's
	Runs     int
	// MaxRuns caps its runs when it belongs to an A/B pair whose verdict
	// is still undecided after Runs (adaptive.go); >= Runs.
	MaxRuns int
	Warmup  int
	Timeout time.Duration
}

// Key is "workload/mode".
func (c *Cell) Key() string { return c.Workload.Name + "/" + string(c.Mode) }

// Plan is the cells a run will measure.
type Plan struct {
	Suite   *suite.Suite
	Options Options
	Cells   []Cell
	Modes   []modes.Mode // effective suite-level modes, in report order
	Specs   []modes.Spec // their definitions, in the same order
	Runs    int          // effective suite-level runs
	MaxRuns int          // effective suite-level cap of an undecided A/B pair's runs
	Warmup  int
	Timeout time.Duration
	// Profiled is set when some cell loads the run's profiler library (an
	// engine mode that names no library of its own): it must be checked.
	Profiled bool
	// Left says which cells Options.Metric left out, and why.
	Left []string
	// BaselineTests bounds the time tests a stored baseline adds to the
	// run's family (SetBaseline): the adaptive rounds' looks count them,
	// so that a pair they call decided is decided in the table too.
	BaselineTests int
}

// SetBaseline records what judging the run against base will add to its
// family of time tests, at most (verdict.Apply): each cell that is not
// the judged side of an A/B pair and that base holds by the same metric,
// its time and, under a mode other than none, its overhead. A look of the
// adaptive rounds bounds a pair's p by Bonferroni over the whole family,
// which Holm's adjustment in the verdict never exceeds: with the pairs
// alone, a pair stopped as "decided: regressed" could be inconclusive in
// the table once a baseline's tests joined (nil base: none).
func (p *Plan) SetBaseline(base *results.File) {
	p.BaselineTests = 0
	if base == nil {
		return
	}
	pairs := newPairing(p.Cells)
	for i := range p.Cells {
		c := &p.Cells[i]
		if _, ab := pairs.reference(c); ab {
			continue
		}
		if verdict.BaselineCell(base, c.Workload.Name, c.Mode, c.Metric) == nil {
			continue
		}
		p.BaselineTests++
		if c.Mode != modes.None {
			p.BaselineTests++
		}
	}
}

// Deterministic reports whether every cell's metric is deterministic: its
// launches may then run in parallel (Env.Jobs).
func (p *Plan) Deterministic() bool {
	return !slices.ContainsFunc(p.Cells, func(c Cell) bool { return !c.Metric.Deterministic() })
}

// Counts reports whether some cell counts instructions (and so needs
// valgrind).
func (p *Plan) Counts() bool {
	return slices.ContainsFunc(p.Cells, func(c Cell) bool { return c.Metric.Count() })
}

// valgrindSlowdown is how many times longer than its own timeout a run
// under valgrind may take: it ran 30-50x slower here (issue 46).
const valgrindSlowdown = 50

// uncountable says why a cell of mode spec cannot be measured in
// instructions, "" when it can. A count under valgrind is a cost only for
// work that does not run on a clock: a sampler's timer ticks by CPU time,
// which valgrind stretches ~30-50x, so it would take that many more samples
// per instruction than it does natively, and a service's load is paced by
// wall-clock seconds. A mode's wrapper (perf) would run inside valgrind.
func uncountable(w *suite.Workload, spec modes.Spec) string {
	switch {
	case w.Server != nil:
		return "a service's load is paced by the clock, so the instructions its server runs are not its cost per request (measure it by cpu-per-request)"
	case spec.Engine.Samples():
		return fmt.Sprintf("engine %s samples on a CPU-time timer, which valgrind stretches ~30-50x: it would take that many more samples per instruction than it does natively, and the count would not be its cost (measure it by kernel-cpu)", spec.Engine)
	case len(spec.Wrap) > 0:
		return "its wrapper (" + spec.Wrap[0] + ") would run under valgrind with the program"
	}
	return ""
}

// NewPlan applies the options to the suite. Its errors are usage errors.
func NewPlan(s *suite.Suite, o Options) (*Plan, error) {
	p := &Plan{Suite: s, Options: o, Modes: s.Modes, Runs: s.Runs, Warmup: s.Warmup, Timeout: s.Timeout}
	if o.Modes != nil {
		for _, m := range o.Modes {
			if _, ok := s.Spec(m); !ok {
				return nil, optionErr("Modes", func(name string) string {
					return fmt.Sprintf("%s: unknown mode %q (suite %s knows: %s)", name, m, s.Path, modes.List(s.KnownModes()))
				})
			}
		}
		p.Modes = o.Modes
	}
	p.Modes = modes.Order(p.Modes)
	specs := map[modes.Mode]modes.Spec{}
	for _, m := range p.Modes {
		specs[m], _ = s.Spec(m)
	}
	twinOf := map[modes.Mode]modes.Mode{} // OLD-build twin -> its mode
	for _, m := range p.Modes {
		if a := specs[m].Against; a != "" && !slices.Contains(p.Modes, a) {
			return nil, optionErr("Modes", func(name string) string {
				return fmt.Sprintf("%s: mode %s is judged against mode %s (its against: in %s), which %s leaves out: add %s, or leave %s out", name, m, a, s.Path, name, a, m)
			})
		}
	}
	if o.Against != "" {
		if i := slices.IndexFunc(s.Workloads, func(w suite.Workload) bool { return w.Against != "" }); i >= 0 {
			w := s.Workloads[i]
			return nil, optionErr("Against", func(name string) string {
				return fmt.Sprintf("%s: workload %s of %s is judged against workload %s (its against: at line %d): a run judges two builds of the profiler or two workloads, not both (run without %s, or with a suite whose workloads say no against:)", name, w.Name, s.Path, w.Against, w.Line, name)
			})
		}
		// Every mode that loads vbench's profiler also runs with the OLD
		// build, and is judged against that twin (over a suite's against:,
		// which the command line overrides).
		var twins []modes.Mode
		for _, m := range p.Modes {
			sp := specs[m]
			if sp.Engine == "" {
				continue
			}
			old := sp
			old.Name, old.Profiler, old.Against = modes.OldBuild(m), o.Against, ""
			sp.Against = old.Name
			specs[m], specs[old.Name] = sp, old
			twins = append(twins, old.Name)
			twinOf[old.Name] = m
		}
		if len(twins) == 0 {
			return nil, optionErr("Against", func(name string) string {
				return fmt.Sprintf("%s: no mode of this run loads vbench's profiler (modes: %s), so there is nothing to measure with %s", name, modes.List(p.Modes), o.Against)
			})
		}
		p.Modes = append(p.Modes, twins...)
	}
	for _, m := range p.Modes {
		p.Specs = append(p.Specs, specs[m])
	}
	if o.Runs > 0 {
		p.Runs = o.Runs
	}
	if o.Warmup >= 0 {
		p.Warmup = o.Warmup
	}
	p.MaxRuns = maxRuns(s, o, p.Runs)
	if o.Timeout > 0 {
		p.Timeout = o.Timeout
	}
	want := map[string]bool{}
	for _, name := range o.Workloads {
		if !slices.ContainsFunc(s.Workloads, func(w suite.Workload) bool { return w.Name == name || w.Scale != nil && w.Scale.Of == name }) {
			var names []string
			for _, w := range s.Workloads {
				names = append(names, w.Name)
			}
			return nil, optionErr("Workloads", func(opt string) string {
				return fmt.Sprintf("%s: suite %s has no workload %q (it has: %s)", opt, s.Path, name, strings.Join(names, ", "))
			})
		}
		want[name] = true
	}
	// A scaled workload's name selects every size of it.
	for _, w := range s.Workloads {
		if w.Scale != nil && want[w.Scale.Of] {
			want[w.Name] = true
		}
	}
	// A workload judged against another brings it along: its verdict needs
	// the other's cells, measured in the same rounds.
	for _, w := range s.Workloads {
		if want[w.Name] && w.Against != "" {
			want[w.Against] = true
		}
	}
	if o.Metric != "" && (!o.Metric.Valid() || o.Metric.Service()) {
		return nil, optionErr("Metric", func(name string) string {
			return fmt.Sprintf("%s: %q is not a metric of batch workloads (known: %s)", name, o.Metric, modes.List(batchMetrics()))
		})
	}
	var all []Cell
	for i := range s.Workloads {
		w := &s.Workloads[i]
		if len(want) > 0 && !want[w.Name] {
			continue
		}
		metric, overridden := w.Metric.OrDefault(), false
		if o.Metric != "" && (w.Server == nil || o.Metric.Count()) {
			metric, overridden = o.Metric, o.Metric != w.Metric.OrDefault()
		}
		if metric.Count() {
			w = w.AtInstructionSize()
		}
		for _, m := range p.Modes { // report order
			// A workload's own modes: subset limits every run's modes (a twin
			// runs wherever its mode does); without one, a workload runs
			// under all of them, --modes included: a mode --modes names is
			// run, even when the suite's modes: list leaves it out.
			if w.Modes != nil && !slices.Contains(w.Modes, m) && !slices.Contains(w.Modes, twinOf[m]) {
				continue
			}
			if metric.Count() {
				if why := uncountable(w, specs[m]); why != "" {
					if overridden {
						p.Left = append(p.Left, w.Name+"/"+string(m)+": "+why)
						continue
					}
					return nil, fmt.Errorf("%s:%d: workloads(%s): metric instructions cannot measure it under mode %s: %s; leave the mode out of the workload's modes", s.Path, w.Line, w.Name, m, why)
				}
			}
			c := Cell{Workload: w, Mode: m, Spec: specs[m], Metric: metric, Runs: p.Runs, Warmup: p.Warmup, Timeout: p.Timeout}
			if metric.Deterministic() {
				c.Warmup = 0 // a count has no cache or JIT state to warm across processes
			}
			if o.Runs <= 0 && w.Runs > 0 {
				c.Runs = w.Runs
			}
			c.MaxRuns = maxRuns(s, o, c.Runs)
			if o.Timeout <= 0 && w.Timeout > 0 {
				c.Timeout = w.Timeout
			}
			if metric.Count() && o.Timeout <= 0 {
				// A timeout bounds a run's wall time, which valgrind
				// stretches ~30-50x: the workload's, scaled (its
				// instructions: timeout when it gives one).
				c.Timeout *= valgrindSlowdown
				if w.Instructions != nil && w.Instructions.Timeout > 0 {
					c.Timeout = w.Instructions.Timeout
				}
			}
			all = append(all, c)
		}
	}
	if len(all) == 0 {
		if len(p.Left) > 0 {
			return nil, fmt.Errorf("nothing to run: metric %s can measure no cell of %s (%s)", o.Metric, s.Path, strings.Join(p.Left, "; "))
		}
		return nil, fmt.Errorf("nothing to run: no workload of %s runs under modes %v", s.Path, p.Modes)
	}
	// What the machine lacks is refused only for what the selection runs:
	// an unselected service's load generator is not needed.
	for _, c := range all {
		if c.Workload.Lacks != nil {
			return nil, c.Workload.Lacks
		}
		if e := s.ModeLacks[c.Mode]; e != nil {
			return nil, e
		}
	}
	// A mode asked for by name that no selected workload runs under would
	// be recorded as run and show nothing: refused, naming who limits it.
	for _, m := range o.Modes {
		if !slices.ContainsFunc(all, func(c Cell) bool { return c.Mode == m }) {
			return nil, optionErr("Modes", func(name string) string {
				return fmt.Sprintf("%s: no selected workload of %s runs under mode %q: each limits its modes (modes: in the workload)", name, s.Path, m)
			})
		}
	}
	evenPairs(all)
	p.Cells = all
	if o.Shard != nil {
		p.Cells = ShardCells(all, o.Shard.Index, o.Shard.Count)
	}
	for _, c := range p.Cells {
		p.Profiled = p.Profiled || (c.Spec.Engine != "" && c.Spec.Profiler == "")
	}
	if p.Deterministic() {
		p.Warmup = 0 // as each cell's: a count has nothing to warm
	}
	return p, nil
}

// evenPairs gives both cells of each A/B pair the larger of their runs and
// caps: the pair is judged round by round, so a round one side skips is
// lost to the verdict (workloads of a pair may give different runs:).
func evenPairs(cells []Cell) {
	pairs := newPairing(cells)
	at := map[string]int{}
	for i := range cells {
		at[cells[i].Key()] = i
	}
	for i := range cells {
		k, ok := pairs.reference(&cells[i])
		j, have := at[k]
		if !ok || !have {
			continue
		}
		a, b := &cells[i], &cells[j]
		a.Runs, a.MaxRuns = max(a.Runs, b.Runs), max(a.MaxRuns, b.MaxRuns)
		b.Runs, b.MaxRuns = a.Runs, a.MaxRuns
	}
}

// maxRuns is the cap on a cell's runs when its A/B verdict is undecided:
// --max-runs, else the suite's max_runs, else DefaultMaxRunsFactor times
// its runs; never below its runs.
func maxRuns(s *suite.Suite, o Options, runs int) int {
	m := suite.DefaultMaxRunsFactor * runs
	switch {
	case o.MaxRuns > 0:
		m = o.MaxRuns
	case s.MaxRuns > 0:
		m = s.MaxRuns
	}
	return max(m, runs)
}

// Metrics maps each planned workload to the metric its cells measure.
func (p *Plan) Metrics() map[string]results.Metric {
	m := map[string]results.Metric{}
	for _, c := range p.Cells {
		m[c.Workload.Name] = c.Metric
	}
	return m
}

// LibraryModes are the planned modes that load the run's profiler library.
func (p *Plan) LibraryModes() []modes.Mode {
	var out []modes.Mode
	for _, c := range p.Cells {
		if c.Spec.Engine != "" && c.Spec.Profiler == "" && !slices.Contains(out, c.Mode) {
			out = append(out, c.Mode)
		}
	}
	return modes.Order(out)
}

// ShardCells returns shard i (1-based) of n: the cells sorted by workload
// name and mode (built-in modes in their order, then the others by name),
// every n-th one starting at i-1 — where a cell judged against another
// (results.File.ReferenceKey: an A/B pair of modes or of workloads) travels
// with it as one, since an A/B
// comparison holds only within one run. The assignment depends only on the
// cell names, so each machine of a CI matrix computes the same split, and
// the shards are disjoint and together complete. A shard may be empty when
// there are fewer cells (or pairs) than shards.
func ShardCells(cells []Cell, i, n int) []Cell {
	sorted := append([]Cell(nil), cells...)
	sort.SliceStable(sorted, func(a, b int) bool {
		if sorted[a].Workload.Name != sorted[b].Workload.Name {
			return sorted[a].Workload.Name < sorted[b].Workload.Name
		}
		if ia, ib := modeIndex(sorted[a].Mode), modeIndex(sorted[b].Mode); ia != ib {
			return ia < ib
		}
		return sorted[a].Mode < sorted[b].Mode
	})
	// Groups: each cell with the cells it is judged against (union-find).
	parent := map[string]string{}
	var root func(k string) string
	root = func(k string) string {
		if p, ok := parent[k]; ok && p != k {
			r := root(p)
			parent[k] = r
			return r
		}
		return k
	}
	have := map[string]bool{}
	for _, c := range cells {
		have[c.Key()] = true
	}
	pairs := newPairing(cells)
	for i := range cells {
		if t, ok := pairs.reference(&cells[i]); ok && have[t] {
			parent[root(cells[i].Key())] = root(t)
		}
	}
	group := map[string]int{} // root -> its index in sorted order
	pick := map[string]bool{}
	for _, c := range sorted {
		r := root(c.Key())
		j, ok := group[r]
		if !ok {
			j = len(group)
			group[r] = j
		}
		if j%n == i-1 {
			pick[c.Key()] = true
		}
	}
	var out []Cell
	for _, c := range cells { // keep the suite's order
		if pick[c.Key()] {
			out = append(out, c)
		}
	}
	return out
}

// modeIndex is m's place among the built-in modes; the others sort after them.
func modeIndex(m modes.Mode) int {
	if i := slices.Index(modes.Builtins, m); i >= 0 {
		return i
	}
	return len(modes.Builtins)
}

// An OptionError is an option (a field of Options) the suite cannot
// satisfy: a usage error. Its message calls the option by its field
// ("Options.Modes"); a command line calls it by its flag (Explain).
type OptionError struct {
	Option  string // the field of Options: "Modes", "Workloads" or "Against"
	explain func(name string) string
}

func optionErr(option string, explain func(name string) string) *OptionError {
	return &OptionError{option, explain}
}

func (e *OptionError) Error() string { return e.explain("Options." + e.Option) }

// Explain is the message with the option called name ("--modes").
func (e *OptionError) Explain(name string) string { return e.explain(name) }

// batchMetrics are the metrics a batch workload can be measured by.
func batchMetrics() []results.Metric {
	var out []results.Metric
	for _, m := range results.Metrics {
		if !m.Service() {
			out = append(out, m)
		}
	}
	return out
}

// MarksKernel reports whether some cell counts its kernel's instructions
// (and so needs the kernel marks: Env.KernelMarks).
func (p *Plan) MarksKernel() bool {
	return slices.ContainsFunc(p.Cells, func(c Cell) bool { return c.Metric == results.MetricKernelInstructions })
}
