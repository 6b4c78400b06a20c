package profile

import "testing"

// Folding a runner frame: its callees take its place (merged with a sibling
// of the same function), its exclusive time goes to the nearest kept
// ancestor, and runner frames above the first kept one drop with their time.
func TestFoldedProjectsRunnerFrames(t *testing.T) {
	p := &Profile{Command: []string{"dotnet", "exec", "/x/testhost.dll"},
		Functions: []Function{{Name: "Xunit.Run"}, {Name: "App.Test"}, {Name: "Xunit.Assert.Equal"}, {Name: "App.Step"}},
		Threads: []Thread{
			{OSID: 1, Roots: []Node{{Fn: 0, Calls: 1, InclusiveNs: 100, ExclusiveNs: 40, Children: []Node{
				{Fn: 1, Calls: 1, InclusiveNs: 60, ExclusiveNs: 10, Children: []Node{
					{Fn: 3, Calls: 5, InclusiveNs: 20, ExclusiveNs: 20},
					{Fn: 2, Calls: 2, InclusiveNs: 30, ExclusiveNs: 25, Children: []Node{{Fn: 3, Calls: 1, InclusiveNs: 5, ExclusiveNs: 5}}},
				}},
			}}}},
			{OSID: 2, Roots: []Node{{Fn: 0, Calls: 1, InclusiveNs: 9, ExclusiveNs: 9}}},
		}}
	if !p.IsTestHost() {
		t.Fatal("testhost.dll's process is not a test host")
	}
	v := p.Folded(&Focus{Patterns: TestRunnerFrames})
	if len(v.Threads) != 1 {
		t.Fatalf("%d threads, want 1 (thread 2 ran runner code only)", len(v.Threads))
	}
	r := v.Threads[0].Roots
	if len(r) != 1 || r[0].Fn != 1 || r[0].InclusiveNs != 60 || r[0].ExclusiveNs != 35 || len(r[0].Children) != 1 {
		t.Fatalf("roots %+v: want App.Test, incl 60, excl 10+25 (Assert folded in), one child", r)
	}
	if c := r[0].Children[0]; c.Fn != 3 || c.Calls != 6 || c.InclusiveNs != 25 {
		t.Errorf("child %+v: want App.Step with 5+1 calls, 20+5 ns", c)
	}
	if f := v.Function("App.Step"); f.Calls != 6 || len(f.Callers) != 1 || f.Callers[0].Name != "App.Test" {
		t.Errorf("App.Step %+v: want 6 calls, all from App.Test", f)
	}
	if f := p.Function("App.Step"); len(p.Threads) != 2 || f.Calls != 0 {
		t.Error("Folded changed the profile it was cut from")
	}
	if (&Profile{Command: []string{"dotnet", "app.dll"}}).IsTestHost() {
		t.Error("an application is a test host")
	}
}
