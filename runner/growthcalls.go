package runner

import (
	"path/filepath"
	"strconv"
	"strings"

	"vbench/internal/profile"
)

// growthCalls are a scaled cell's exact counts, one entry per measured run
// (0 where a run had none): each function's calls and, with exact line
// counts (instrumentation with lines), each line's executions — the points
// of their growth (internal/verdict's complexity).
type growthCalls struct {
	runs  int
	calls map[string][]int64
	lines map[string][]int64 // lineKey(function, "File.cs:N")
}

// lineSep joins a line's function and place in growthCalls.lines: no
// method name or file name holds it.
const lineSep = "\x00"

// add records one run's profile: every row of a function's name summed.
func (g *growthCalls) add(p *profile.Profile) {
	calls, lines := map[string]int64{}, map[string]int64{}
	for _, fn := range p.Functions {
		calls[fn.Name] += fn.Calls
		for _, l := range fn.Lines {
			if l.Executions == 0 || l.Line <= 0 {
				continue
			}
			file := l.File
			if file == "" {
				file = fn.File
			}
			lines[fn.Name+lineSep+filepath.Base(file)+":"+strconv.Itoa(l.Line)] += l.Executions
		}
	}
	g.calls = appendRun(g.calls, g.runs, calls)
	if len(lines) > 0 || g.lines != nil {
		g.lines = appendRun(g.lines, g.runs, lines)
	}
	g.runs++
}

// appendRun adds one run's counts to m, which holds runs earlier ones: a
// key new in this run gets zeros before, a key this run lacks a zero.
func appendRun(m map[string][]int64, runs int, run map[string]int64) map[string][]int64 {
	if m == nil {
		m = map[string][]int64{}
	}
	for k, n := range run {
		if _, ok := m[k]; !ok {
			m[k] = make([]int64, runs)
		}
		m[k] = append(m[k], n)
	}
	for k, v := range m {
		if len(v) < runs+1 {
			m[k] = append(v, 0)
		}
	}
	return m
}

// lineExecutions are g's lines by function, then by "File.cs:N" (the
// results file's form), nil without any.
func (g *growthCalls) lineExecutions() map[string]map[string][]int64 {
	if len(g.lines) == 0 {
		return nil
	}
	out := map[string]map[string][]int64{}
	for k, runs := range g.lines {
		fn, at, _ := strings.Cut(k, lineSep)
		if out[fn] == nil {
			out[fn] = map[string][]int64{}
		}
		out[fn][at] = runs
	}
	return out
}
