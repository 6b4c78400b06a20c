package profile

import (
	"errors"
	"fmt"
	"strings"
)

// Focus narrows what a profile's views show to the functions its patterns
// match (--focus of vbench profile and vbench report), without changing what was profiled:
// the top functions are only the matching ones, and each thread's call tree
// starts at the outermost calls of matching functions, with everything they
// called (their callers are left out, so the percentages are of the
// focused calls' time).
//
// A pattern is a glob ('*' matches any run of characters, case-sensitive)
// matched against a function's name without its parameters
// ("Trial.Program.Run"), its type ("Trial.Program") and its assembly
// ("Trial"): the names --include takes, plus methods. A pattern without '*'
// also matches every name under it ("Trial" matches "Trial.Program.Run"),
// and a name it ends on whole segments: a type or method named without
// its namespace ("Program", "Run", "Program.Run").
type Focus struct {
	Patterns []string
}

// NewFocus checks patterns; none is no focus (nil).
func NewFocus(patterns []string) (*Focus, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	for _, p := range patterns {
		if strings.TrimSpace(p) == "" {
			return nil, errors.New("an empty pattern matches nothing: give a namespace, type, method or assembly, e.g. 'MyApp.*'")
		}
	}
	return &Focus{Patterns: patterns}, nil
}

// String is the patterns as given: "Trial.*,Other".
func (f *Focus) String() string { return strings.Join(f.Patterns, ",") }

// Matches reports whether fn is one of the functions f keeps.
func (f *Focus) Matches(fn *Function) bool {
	name, _, _ := strings.Cut(fn.Name, "(")
	typ := name
	if i := strings.LastIndex(name, "."); i > 0 {
		typ = name[:i]
	}
	for _, p := range f.Patterns {
		for _, s := range []string{name, typ, fn.Assembly} {
			if s == "" {
				continue
			}
			if glob(p, s) || !strings.Contains(p, "*") && (strings.HasPrefix(s, p+".") || s != fn.Assembly && strings.HasSuffix(s, "."+p)) {
				return true
			}
		}
	}
	return false
}

// glob matches s against pattern, where '*' matches any run of characters.
func glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}

// Focused returns the view of p that f keeps (p itself when f is nil): the
// same functions, each thread's roots the outermost nodes of matching
// functions (shared with p, not copied), threads without one left out.
// Focus is set on the view; Top and the reports list only matching functions.
func (p *Profile) Focused(f *Focus) *Profile {
	if f == nil {
		return p
	}
	v := *p
	v.Focus, v.Whole = f, p
	keep := make([]bool, len(p.Functions))
	for i := range p.Functions {
		keep[i] = f.Matches(&p.Functions[i])
	}
	v.Threads = nil
	for _, t := range p.Threads {
		var roots []Node
		Walk(t.Roots, func(n *Node, _ int) bool {
			if keep[n.Fn] {
				roots = append(roots, *n)
				return false // its callees come with it
			}
			return true
		}, nil)
		if len(roots) > 0 {
			t.Roots = roots
			v.Threads = append(v.Threads, t)
		}
	}
	return &v
}

// Focused returns the view of t that f keeps: every process focused (see
// Profile.Focused), or an error naming the patterns when no function of any
// process matches them.
func (t *Tree) Focused(f *Focus) (*Tree, error) {
	if f == nil {
		return t, nil
	}
	v := *t
	v.Processes = make([]*Profile, len(t.Processes))
	matched, functions := false, 0
	for i, p := range t.Processes {
		v.Processes[i] = p.Focused(f)
		matched = matched || len(v.Processes[i].Threads) > 0
		functions += len(p.Functions)
	}
	if !matched {
		return nil, fmt.Errorf("--focus %s: no profiled function that ran matches (the profile has %d functions: see the top functions without --focus)", f, functions)
	}
	return &v, nil
}
