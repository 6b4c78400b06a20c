package runner

import (
	"path/filepath"
	"sort"
	"strconv"

	"vbench/internal/profile"
	"vbench/internal/results"
)

// lineSide is what an engine cell's measured profiles with lines say of
// each function's lines, summed over the runs: what nameLines needs to say
// on which line a function's change happened.
type lineSide struct {
	runs  int
	lines map[string]map[string]float64 // function name -> "Program.cs:88" -> weight summed over runs
}

// add adds one run's profile: each counted line's sampled time (samples ×
// interval) or, where nothing was sampled (instrumentation with lines),
// its executions; per request for a service's run (requests > 0), as the
// function explain is.
func (s *lineSide) add(p *profile.Profile, requests int64) {
	if !p.HasLines() {
		return
	}
	s.runs++
	if s.lines == nil {
		s.lines = map[string]map[string]float64{}
	}
	for _, f := range p.Functions {
		for _, l := range f.Lines {
			file := l.File
			if file == "" {
				file = f.File
			}
			if file == "" || l.Line <= 0 {
				continue
			}
			w := float64(l.Samples * p.IntervalNs)
			if l.Samples == 0 {
				w = float64(l.Executions)
			}
			if requests > 0 {
				w /= float64(requests)
			}
			m := s.lines[f.Name]
			if m == nil {
				m = map[string]float64{}
				s.lines[f.Name] = m
			}
			m[filepath.Base(file)+":"+strconv.Itoa(l.Line)] += w
		}
	}
}

// nameLines gives each explained function of an A/B pair whose two sides'
// profiles have lines the line where its change happened (Contribution.Line):
// of the function's lines, the one whose mean per run moved most in the
// direction of the function's change. It is kept apart from explainPairs,
// which orders the functions, and only adds to what that found.
func nameLines(f *results.File, cells []*cellState, whys results.Whys) {
	sides := map[*results.Cell]*lineSide{}
	for _, c := range cells {
		if c.lineSide.runs > 0 {
			if rc := f.Find(c.Workload.Name, c.Mode); rc != nil {
				sides[rc] = &c.lineSide
			}
		}
	}
	for i := range f.Results {
		c := &f.Results[i]
		ref := f.Reference(c)
		w, ok := whys[c.Key()]
		if !ok || ref == nil || sides[ref] == nil || sides[c] == nil {
			continue
		}
		for j := range w.Explain {
			e := &w.Explain[j]
			e.Line = grownLine(sides[ref], sides[c], e.Function, e.Change)
		}
	}
}

// grownLine is the line of function fn whose mean per run changed most
// from old to new in the direction of change (its sign), or "" when none
// moved that way.
func grownLine(old, new *lineSide, fn string, change float64) string {
	keys := map[string]bool{}
	for k := range old.lines[fn] {
		keys[k] = true
	}
	for k := range new.lines[fn] {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted) // ties go to the first by name: the same answer every time
	best, bestMove := "", 0.0
	for _, k := range sorted {
		move := new.lines[fn][k]/float64(new.runs) - old.lines[fn][k]/float64(old.runs)
		if change < 0 {
			move = -move
		}
		if move > bestMove {
			best, bestMove = k, move
		}
	}
	return best
}
