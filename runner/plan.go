// Package runner measures a suite: it builds what the workloads need once,
// launches every (workload, mode) cell's warmup and measured runs in a
// randomized round-robin order, records each run (the workload's own elapsed
// time from its VBENCH line, wall time, rusage, exit status, checksum) and
// checks what a profiled run must produce.
package runner

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"vbench/internal/results"
	"vbench/internal/suite"
)

// Options are the command-line choices that override the suite.
type Options struct {
	Runs      int            // > 0 overrides the suite and every workload
	Warmup    int            // >= 0 overrides; < 0 keeps the suite's
	Modes     []results.Mode // nil keeps the suite's (workload subsets still apply)
	Workloads []string       // nil: all
	Timeout   time.Duration  // > 0 overrides the suite and every workload
	Shard     *results.Shard
	Seed      uint64
}

// Cell is one planned (workload, mode) pair.
type Cell struct {
	Workload *suite.Workload
	Mode     results.Mode
	Runs     int
	Warmup   int
	Timeout  time.Duration
}

// Key is "workload/mode".
func (c *Cell) Key() string { return c.Workload.Name + "/" + string(c.Mode) }

// Plan is the cells a run will measure.
type Plan struct {
	Suite    *suite.Suite
	Options  Options
	Cells    []Cell
	Modes    []results.Mode // effective suite-level modes
	Runs     int            // effective suite-level runs
	Warmup   int
	Timeout  time.Duration
	Profiled bool // some cell loads the profiler
}

// NewPlan applies the options to the suite. Its errors are usage errors.
func NewPlan(s *suite.Suite, o Options) (*Plan, error) {
	p := &Plan{Suite: s, Options: o, Modes: s.Modes, Runs: s.Runs, Warmup: s.Warmup, Timeout: s.Timeout}
	if o.Modes != nil {
		for _, m := range o.Modes {
			if !m.Builtin() {
				return nil, fmt.Errorf("--modes: unknown mode %q (known: %s)", m, results.List(results.BuiltinModes))
			}
		}
		p.Modes = o.Modes
	}
	if o.Runs > 0 {
		p.Runs = o.Runs
	}
	if o.Warmup >= 0 {
		p.Warmup = o.Warmup
	}
	if o.Timeout > 0 {
		p.Timeout = o.Timeout
	}
	want := map[string]bool{}
	for _, name := range o.Workloads {
		found := false
		for _, w := range s.Workloads {
			found = found || w.Name == name
		}
		if !found {
			var names []string
			for _, w := range s.Workloads {
				names = append(names, w.Name)
			}
			return nil, fmt.Errorf("--workloads: suite %s has no workload %q (it has: %s)", s.Path, name, strings.Join(names, ", "))
		}
		want[name] = true
	}
	var all []Cell
	for i := range s.Workloads {
		w := &s.Workloads[i]
		if len(want) > 0 && !want[w.Name] {
			continue
		}
		for _, m := range results.BuiltinModes { // report order
			if !contains(p.Modes, m) || !contains(w.EffectiveModes(s), m) {
				continue
			}
			c := Cell{Workload: w, Mode: m, Runs: p.Runs, Warmup: p.Warmup, Timeout: p.Timeout}
			if o.Runs <= 0 && w.Runs > 0 {
				c.Runs = w.Runs
			}
			if o.Timeout <= 0 && w.Timeout > 0 {
				c.Timeout = w.Timeout
			}
			all = append(all, c)
		}
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("nothing to run: no workload of %s runs under modes %v", s.Path, p.Modes)
	}
	p.Cells = all
	if o.Shard != nil {
		p.Cells = ShardCells(all, o.Shard.Index, o.Shard.Count)
	}
	for _, c := range p.Cells {
		p.Profiled = p.Profiled || c.Mode != results.ModeNone
	}
	return p, nil
}

// ShardCells returns shard i (1-based) of n: the cells sorted by workload
// name and mode, every n-th one starting at i-1. The assignment depends only
// on the cell names, so each machine of a CI matrix computes the same split,
// and the shards are disjoint and together complete. A shard may be empty
// when there are fewer cells than shards.
func ShardCells(cells []Cell, i, n int) []Cell {
	sorted := append([]Cell(nil), cells...)
	sort.SliceStable(sorted, func(a, b int) bool {
		if sorted[a].Workload.Name != sorted[b].Workload.Name {
			return sorted[a].Workload.Name < sorted[b].Workload.Name
		}
		return modeIndex(sorted[a].Mode) < modeIndex(sorted[b].Mode)
	})
	pick := map[string]bool{}
	for j, c := range sorted {
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

// ParseShard reads "i/n".
func ParseShard(s string) (*results.Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return nil, fmt.Errorf("--shard %q: want i/n, e.g. 2/4", s)
	}
	if n < 1 || i < 1 || i > n {
		return nil, fmt.Errorf("--shard %q: need 1 <= i <= n", s)
	}
	return &results.Shard{Index: i, Count: n}, nil
}

func modeIndex(m results.Mode) int {
	for i, x := range results.BuiltinModes {
		if x == m {
			return i
		}
	}
	return len(results.BuiltinModes)
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
