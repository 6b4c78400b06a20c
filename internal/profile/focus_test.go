package profile

import "testing"

// --focus patterns: globs over a function's name (no parameters), type and
// assembly; a pattern without '*' also matches the names under it and the
// names it ends on whole segments.
func TestFocusMatches(t *testing.T) {
	fn := &Function{Name: "Trial.Runner.Run(int)", Assembly: "TrialLib"}
	for pattern, want := range map[string]bool{
		"Trial.*":            true,
		"Trial":              true, // a namespace: the names under it
		"Trial.Runner":       true, // the type
		"Trial.Runner.Run":   true, // the method
		"*.Run":              true,
		"TrialLib":           true,  // the assembly
		"Trial.Runner.Run(*": false, // parameters are not part of the name matched
		"Tri":                false, // not a dotted prefix
		"Runner":             true,  // the type without its namespace
		"Run":                true,  // the method alone
		"Runner.Run":         true,
		"unner.Run":          false, // not whole segments
		"Lib":                false, // an assembly is matched whole
		"trial.*":            false, // case-sensitive, as the profiler's filter
		"Trial.R*r.Ru*":      true,
		"Trial.R*n.Ru*":      false,
		"Other.*":            false,
	} {
		f, err := NewFocus([]string{pattern})
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Matches(fn); got != want {
			t.Errorf("%q matches %s: %v, want %v", pattern, fn.Name, got, want)
		}
	}
	if _, err := NewFocus([]string{"a", " "}); err == nil {
		t.Error("an empty pattern was accepted")
	}
}

// Focused keeps each outermost call of a matching function with its whole
// subtree, drops threads without one, and leaves the profile untouched.
func TestFocusedReroots(t *testing.T) {
	p := &Profile{Functions: []Function{{Name: "App.Main"}, {Name: "Lib.Work"}, {Name: "App.Helper"}, {Name: "Lib.Inner"}},
		Threads: []Thread{
			{OSID: 1, Roots: []Node{{Fn: 0, Calls: 1, Children: []Node{
				{Fn: 1, Calls: 2, Children: []Node{{Fn: 2, Calls: 3, Children: []Node{{Fn: 1, Calls: 4}}}}},
				{Fn: 2, Calls: 5, Children: []Node{{Fn: 3, Calls: 6}}},
			}}}},
			{OSID: 2, Roots: []Node{{Fn: 2, Calls: 7}}},
		}}
	v := p.Focused(&Focus{Patterns: []string{"Lib.*"}})
	if len(v.Threads) != 1 || v.Threads[0].OSID != 1 {
		t.Fatalf("threads %+v, want thread 1 only", v.Threads)
	}
	roots := v.Threads[0].Roots
	if len(roots) != 2 || roots[0].Fn != 1 || roots[0].Calls != 2 || Count(roots[0].Children) != 2 || roots[1].Fn != 3 || roots[1].Calls != 6 {
		t.Errorf("roots %+v: want Lib.Work (2 calls, its 2 descendants) and Lib.Inner (6)", roots)
	}
	var names []string
	for _, f := range v.Top(0) {
		names = append(names, f.Name)
	}
	if len(names) != 2 || names[0] == "App.Main" || names[1] == "App.Main" {
		t.Errorf("Top of the view: %v, want the two Lib functions", names)
	}
	if len(p.Threads) != 2 || p.Focus != nil || len(p.Top(0)) != 4 {
		t.Error("Focused changed the profile it was cut from")
	}
}
