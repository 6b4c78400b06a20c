package profile

import "sort"

// LineCount is what one source line of a method cost: sampled leaves
// (self samples) or, under instrumentation with lines, executions of the
// line's sequence point. The profiler records Token and IL (the method and
// the IL offset the runtime's IL-to-native map gave the sampled IP, or the
// sequence point's offset); internal/lines then fills in Line (and File
// when it is not the function's) from the program's PDB after the run. A
// count whose line is unknown (no PDB, prolog code) keeps Line 0.
type LineCount struct {
	Token      uint32 `json:"token,omitempty"` // the method's metadata token (overloads share a function row)
	IL         int32  `json:"il"`              // IL offset; -1 none, -2 prolog, -3 epilog, -4 code not found
	File       string `json:"file,omitempty"`  // when not the function's file
	Line       int    `json:"line,omitempty"`  // 0: not known
	Samples    int64  `json:"samples,omitempty"`
	Executions int64  `json:"executions,omitempty"`
}

// LineTotal is one line of a function's flat table: its counts summed over
// every node (Function.Lines).
type LineTotal struct {
	File       string `json:"file,omitempty"` // when not the function's file
	Line       int    `json:"line"`
	Samples    int64  `json:"samples,omitempty"`
	Executions int64  `json:"executions,omitempty"`
}

// BlockCount is one basic block of a method rewritten by the
// instrumentation engine with lines: the IL offset of its first
// instruction and how often it ran (every block of the method is listed,
// the ones that never ran with 0).
type BlockCount struct {
	Fn         int    `json:"fn"`
	Token      uint32 `json:"token"`
	IL         int32  `json:"il"`
	Executions int64  `json:"executions"`
}

// LineExec is how often one source line of a function ran: the most
// executed of its sequence points (a for loop's line holds several: its
// condition runs once more than its body).
type LineExec struct {
	Fn         int    `json:"fn"`
	File       string `json:"file,omitempty"` // when not the function's
	Line       int    `json:"line"`
	Executions int64  `json:"executions"`
}

// HasLines reports whether the profile carries line counts: nodes' line
// samples or instrumentation's block counts.
func (p *Profile) HasLines() bool {
	if len(p.Blocks) > 0 {
		return true
	}
	found := false
	for _, t := range p.Threads {
		// Walk's enter returning false skips a node's callees: only once a
		// line is found may it (a node without lines, such as Main above
		// the sampled leaves, must not hide them).
		Walk(t.Roots, func(n *Node, _ int) bool {
			found = found || len(n.Lines) > 0 || len(n.CallLines) > 0
			return !found
		}, nil)
		if found {
			return true
		}
	}
	return false
}

// deriveLines sums the nodes' known lines into each function's Lines,
// lines in order.
func (p *Profile) deriveLines() {
	type key struct {
		fn   int
		file string
		line int
	}
	sums := map[key]*LineTotal{}
	for i := range p.Functions {
		p.Functions[i].Lines = nil
	}
	for _, t := range p.Threads {
		Walk(t.Roots, func(n *Node, _ int) bool {
			for _, l := range n.Lines {
				if l.Line <= 0 {
					continue
				}
				k := key{n.Fn, l.File, l.Line}
				s := sums[k]
				if s == nil {
					s = &LineTotal{File: l.File, Line: l.Line}
					sums[k] = s
				}
				s.Samples += l.Samples
				s.Executions += l.Executions
			}
			return true
		}, nil)
	}
	for _, e := range p.Executions {
		k := key{e.Fn, e.File, e.Line}
		s := sums[k]
		if s == nil {
			s = &LineTotal{File: e.File, Line: e.Line}
			sums[k] = s
		}
		s.Executions += e.Executions
	}
	for k, s := range sums {
		p.Functions[k.fn].Lines = append(p.Functions[k.fn].Lines, *s)
	}
	for i := range p.Functions {
		ls := p.Functions[i].Lines
		sort.Slice(ls, func(a, b int) bool {
			if ls[a].File != ls[b].File {
				return ls[a].File < ls[b].File
			}
			return ls[a].Line < ls[b].Line
		})
	}
}
