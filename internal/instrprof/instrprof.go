// Package instrprof reads where a process spent its instructions from the
// files valgrind writes (callgrind's and cachegrind's output format): each
// function's own instructions and, under callgrind, its calls. JIT-compiled
// .NET methods have no symbols: valgrind names them by an address, which
// the runtime's perf map (DOTNET_PerfMapEnabled) turns back into a method.
// What no symbol and no perf map names is kept, summed by the file it ran
// from ("[libcoreclr.so]", "[jitted code]"), and said: a profile never
// drops instructions, and never names code it could not name.
package instrprof

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Func is one function's instructions in a profile.
type Func struct {
	Name   string // a symbol, a .NET method (Namespace.Type.Method), or "[object]" for unnamed code
	Object string // the file its code ran from; "" for JIT-compiled code
	Self   int64  // instructions executed in the function itself
	Calls  int64  // calls to it (callgrind); 0 when the file counts none (cachegrind)
	// Unnamed is set when Name is not the function's own name but the
	// place its unnamed code ran from.
	Unnamed bool
}

// Profile is the instructions of one run: every process of it summed.
type Profile struct {
	Total int64 // every function's Self summed: the run's count
	Funcs []Func
	// CountsCalls is set when the files counted calls (callgrind).
	CountsCalls bool
	// Processes is how many files (processes) were read.
	Processes int
	// PerfMaps is how many of them had a perf map to name JIT-compiled
	// code by (ReadDir).
	PerfMaps int
	// Edges are the calls from one function to another (callgrind), by
	// caller and callee name: how many, and what they executed in all.
	Edges []Edge
}

// Edge is one caller's calls to one callee.
type Edge struct {
	Caller, Callee string
	Calls          int64
	Inclusive      int64 // instructions executed in those calls, the callee's callees included
}

// Unnamed is the instructions of code no symbol or perf map named.
func (p *Profile) Unnamed() int64 {
	var n int64
	for _, f := range p.Funcs {
		if f.Unnamed {
			n += f.Self
		}
	}
	return n
}

// UnnamedFuncs are p's functions no symbol or perf map named, the most
// instructions first: where their code ran from.
func (p *Profile) UnnamedFuncs() []Func {
	var out []Func
	for _, f := range p.Top() {
		if f.Unnamed {
			out = append(out, f)
		}
	}
	return out
}

// Top is p's functions by their own instructions, the most first; ties
// by name.
func (p *Profile) Top() []Func {
	out := append([]Func(nil), p.Funcs...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Self != out[j].Self {
			return out[i].Self > out[j].Self
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// ReadDir reads every count file in dir whose name starts with prefix (one
// a process, "<prefix><pid>"), naming JIT-compiled code by the perf maps
// (perf-<pid>.map) in mapDir, when there are any.
func ReadDir(dir, prefix, mapDir string) (*Profile, error) {
	files, err := filepath.Glob(filepath.Join(dir, prefix+"*"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no %s* file", dir, prefix)
	}
	sort.Strings(files)
	acc := newAccumulator()
	for _, name := range files {
		var pm *PerfMap
		if pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(name), prefix)); err == nil && mapDir != "" {
			if pm, err = ReadPerfMap(filepath.Join(mapDir, fmt.Sprintf("perf-%d.map", pid))); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
			if pm != nil {
				acc.perfMaps++
			}
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		err = acc.read(f, pm)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Base(name), err)
		}
	}
	return acc.profile(), nil
}

// Read reads one count file (a process), naming JIT-compiled code by pm
// (nil: no perf map).
func Read(r io.Reader, pm *PerfMap) (*Profile, error) {
	acc := newAccumulator()
	if err := acc.read(r, pm); err != nil {
		return nil, err
	}
	return acc.profile(), nil
}

// JittedCode names the code that ran from no file and that no perf map
// named: JIT-compiled methods without a map, and the runtime's stubs.
const JittedCode = "[jitted code]"

type key struct{ name, object string }

type edgeKey struct{ caller, callee string }

type accumulator struct {
	funcs       map[key]*Func
	edges       map[edgeKey]*Edge
	countsCalls bool
	processes   int
	perfMaps    int
}

func newAccumulator() *accumulator {
	return &accumulator{funcs: map[key]*Func{}, edges: map[edgeKey]*Edge{}}
}

func (a *accumulator) profile() *Profile {
	p := &Profile{CountsCalls: a.countsCalls, Processes: a.processes, PerfMaps: a.perfMaps}
	for _, f := range a.funcs {
		p.Total += f.Self
		p.Funcs = append(p.Funcs, *f)
	}
	sort.Slice(p.Funcs, func(i, j int) bool { return p.Funcs[i].Name < p.Funcs[j].Name })
	for _, e := range a.edges {
		p.Edges = append(p.Edges, *e)
	}
	sort.Slice(p.Edges, func(i, j int) bool {
		if p.Edges[i].Caller != p.Edges[j].Caller {
			return p.Edges[i].Caller < p.Edges[j].Caller
		}
		return p.Edges[i].Callee < p.Edges[j].Callee
	})
	return p
}

func (a *accumulator) fn(name, object string, pm *PerfMap) *Func {
	n, unnamed := resolve(name, object, pm)
	if unnamed {
		object = "" // one row per place, whatever its addresses
	}
	k := key{n, object}
	f := a.funcs[k]
	if f == nil {
		f = &Func{Name: n, Object: object, Unnamed: unnamed}
		a.funcs[k] = f
	}
	return f
}

// read adds one file in valgrind's output format (callgrind's, or
// cachegrind's, which is its subset): "events:" names the columns, "fn="
// opens a function whose cost lines follow ("<position>... <Ir> ..."),
// "calls=<n> ..." says the next cost line is a call's inclusive cost (not
// the caller's own) and counts n calls to the last "cfn=". Names may be
// compressed: "(id) name" defines id, "(id)" refers to it; ob/cob share one
// table, fn/cfn another.
//
// A "fn=" is where callgrind saw a call enter, not the code that ran: a
// call into a runtime stub that jumps on into a method (precode,
// call counting), or into the helper that moves a loop into its
// on-stack-replacement body, runs that method's code under the stub's or
// the helper's name. When the file gives each cost line its instruction's
// address (positions "instr", callgrind's --dump-instr=yes), an
// instruction the perf map puts in a method is that method's, and so is a
// call made from it: the caller of an edge is the code holding its call
// instruction.
func (a *accumulator) read(r io.Reader, pm *PerfMap) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 16<<20)
	obs, fns := map[string]string{}, map[string]string{}
	positions, irCol, instrCol := 1, -1, -1
	var ob, cob string
	var cur, callee *Func
	var calls int64 // the calls= line's count, whose cost line comes next
	var addr uint64 // the last cost line's instruction address
	inCall := false
	lineNo := 0
	for sc.Scan() {
		lineNo++
		t := sc.Text()
		if t == "" || t[0] == '#' {
			continue
		}
		c := t[0]
		if c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*' {
			fs := strings.Fields(t)
			owner := cur
			if instrCol >= 0 && instrCol < len(fs) {
				next, ok := subposition(fs[instrCol], addr)
				if !ok {
					return fmt.Errorf("line %d: %q is not an instruction address", lineNo, fs[instrCol])
				}
				addr = next
				if m, ok := pm.Lookup(addr); ok {
					owner = a.fn(m, "???", nil)
				}
			}
			if inCall { // a call's inclusive cost: the callee's, not the caller's
				inCall = false
				if owner == nil || callee == nil || owner.Name == callee.Name { // a recursion is no edge between two
					continue
				}
				k := edgeKey{owner.Name, callee.Name}
				edge := a.edges[k]
				if edge == nil {
					edge = &Edge{Caller: owner.Name, Callee: callee.Name}
					a.edges[k] = edge
				}
				edge.Calls += calls
				if irCol >= 0 && positions+irCol < len(fs) {
					if n, err := strconv.ParseInt(fs[positions+irCol], 10, 64); err == nil {
						edge.Inclusive += n
					}
				}
				continue
			}
			if owner == nil || irCol < 0 {
				continue
			}
			if i := positions + irCol; i < len(fs) {
				n, err := strconv.ParseInt(fs[i], 10, 64)
				if err != nil {
					return fmt.Errorf("line %d: %q is not a count", lineNo, fs[i])
				}
				owner.Self += n
			}
			continue
		}
		k, v, ok := strings.Cut(t, "=")
		if !ok {
			k, v, ok = strings.Cut(t, ":")
			if !ok {
				continue
			}
			v = strings.TrimSpace(v)
			switch k {
			case "positions":
				positions = len(strings.Fields(v))
				instrCol = slices.Index(strings.Fields(v), "instr")
			case "events":
				irCol = -1
				for i, e := range strings.Fields(v) {
					if e == "Ir" {
						irCol = i
					}
				}
				if irCol < 0 {
					return fmt.Errorf("line %d: events %q count no instructions (Ir)", lineNo, v)
				}
			}
			continue
		}
		switch k {
		case "ob":
			ob = compressed(obs, v)
			cob = ""
		case "cob":
			cob = compressed(obs, v)
		case "fn":
			cur = a.fn(compressed(fns, v), ob, pm)
			cob = ""
		case "cfn":
			o := cob
			if o == "" {
				o = ob
			}
			callee = a.fn(compressed(fns, v), o, pm)
		case "calls":
			a.countsCalls = true
			inCall = true
			calls = 0
			fs := strings.Fields(v)
			if len(fs) > 0 && callee != nil {
				n, err := strconv.ParseInt(fs[0], 10, 64)
				if err != nil {
					return fmt.Errorf("line %d: calls=%q is not a count", lineNo, v)
				}
				callee.Calls += n
				calls = n
			}
			cob = ""
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if irCol < 0 {
		return fmt.Errorf("no \"events:\" line: not a callgrind or cachegrind file")
	}
	a.processes++
	return nil
}

// subposition reads a cost line's instruction address: absolute ("0x…"
// or decimal), relative to the last cost line's ("+n", "-n"), or the same
// ("*").
func subposition(s string, last uint64) (uint64, bool) {
	switch {
	case s == "*":
		return last, true
	case s[0] == '+' || s[0] == '-':
		n, err := strconv.ParseUint(s[1:], 0, 64)
		if err != nil {
			return 0, false
		}
		if s[0] == '-' {
			return last - n, true
		}
		return last + n, true
	}
	n, err := strconv.ParseUint(s, 0, 64)
	return n, err == nil
}

// compressed resolves valgrind's name compression: "(id) name" defines
// id, "(id)" refers to a name defined before.
func compressed(table map[string]string, v string) string {
	if !strings.HasPrefix(v, "(") {
		return v
	}
	end := strings.IndexByte(v, ')')
	if end < 0 {
		return v
	}
	id, rest := v[:end+1], strings.TrimSpace(v[end+1:])
	if rest == "" {
		return table[id]
	}
	table[id] = rest
	return rest
}

// resolve names a function as valgrind printed it: a symbol stays itself
// (callgrind's "'2" recursion suffix dropped); an address (code without a
// symbol) is the .NET method the perf map puts it in, else the place it
// ran from, unnamed: "[libcoreclr.so]", or "[jitted code]" for code in no
// file.
func resolve(name, object string, pm *PerfMap) (string, bool) {
	if i := strings.LastIndexByte(name, '\''); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i]
		}
	}
	addr, isAddr := address(name)
	if !isAddr && name != "???" {
		return name, false
	}
	if isAddr && pm != nil && (object == "???" || object == "") {
		if m, ok := pm.Lookup(addr); ok {
			return m, false
		}
	}
	if object == "" || object == "???" {
		return JittedCode, true
	}
	return "[" + filepath.Base(object) + "]", true
}

// address parses callgrind's name for code without a symbol, "0x…".
func address(name string) (uint64, bool) {
	if !strings.HasPrefix(name, "0x") {
		return 0, false
	}
	a, err := strconv.ParseUint(name[2:], 16, 64)
	return a, err == nil
}
