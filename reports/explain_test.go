package reports

import (
	"strings"
	"testing"

	"vbench/internal/results"
)

// A why line names an entry on one call path by the path's shortest tail
// no other entry shares (caller → function at least), prints calls per run
// where counted, and leaves out an entry whose interval holds zero (issue
// 39: such entries were listed as if they explained the change).
func TestExplainTextNamesPathsAndLeavesOutTheUnshown(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	ch := &results.Change{ExplainUnit: "ns", Explain: []results.Contribution{
		{Function: "Pipeline.Mix", Path: []string{"Program.<Main>$", "Pipeline.Render", "Pipeline.Mix"}, Old: 200e6, New: 260e6, Change: 60e6, Lo: f(40e6), Hi: f(80e6), OldCalls: f(24000), NewCalls: f(31200)},
		{Function: "Program.<Main>$", Path: []string{"Program.<Main>$"}, Old: 10e6, New: 12e6, Change: 2e6, Lo: f(-1e6), Hi: f(5e6), NotShown: true},
		{Function: "Pipeline.Mix", Path: []string{"Program.<Main>$", "A.Outer", "Pipeline.Render", "Pipeline.Mix"}, Old: 1e6, New: 2e6, Change: 1e6},
	}}
	names := ExplainNames(ch.Explain)
	if names[0] != "Program.<Main>$ → Pipeline.Render → Pipeline.Mix" || names[1] != "Program.<Main>$" || names[2] != "… → A.Outer → Pipeline.Render → Pipeline.Mix" {
		t.Errorf("names %q", names)
	}
	line := ExplainText(ch, 3)
	if !strings.HasPrefix(line, names[0]+" +60") || !strings.Contains(line, "calls/run 24000 → 31200") {
		t.Errorf("why line %q: want the path first with its calls", line)
	}
	if strings.Contains(line, "Program.<Main>$ +2") {
		t.Errorf("why line %q lists an entry not shown to differ from zero", line)
	}
	if got := ContributionText("ns", ch.Explain[1]); !strings.HasSuffix(got, "not shown to differ from 0") {
		t.Errorf("unshown entry %q", got)
	}
	if got := ExplainText(&results.Change{Explain: ch.Explain[1:2]}, 3); got != "no function's change is shown to differ from zero" {
		t.Errorf("only unshown entries: %q", got)
	}
}

// A why in instructions says what its launches could not name (issue 51):
// how much of the launch and of the change, where it ran, and why there
// was no perf map when there was none.
func TestExplainTextSaysWhatItCouldNotName(t *testing.T) {
	ch := &results.Change{ExplainUnit: results.ExplainInstructions,
		Explain: []results.Contribution{{Function: "vb_enter_stub", Old: 2.9e6, New: 4.2e6, Change: 1.3e6}},
		ExplainUnnamed: &results.Unnamed{OldTotal: 30e6, NewTotal: 32e6, NoPerfMap: "its environment sets DOTNET_PerfMapEnabled=0",
			Places: []results.Contribution{{Function: "[jitted code]", Old: 10e6, New: 10.5e6}, {Function: "[libcoreclr.so]", Old: 2e6, New: 2e6}}}}
	want := "vb_enter_stub +1.300M instr (2.900M instr → 4.200M instr); 12.50M instr (39.1% of the launch; +500.0k instr, 25.0% of the change) in code no symbol or perf map named: [jitted code] 10.50M instr, [libcoreclr.so] 2.000M instr; no perf map: its environment sets DOTNET_PerfMapEnabled=0"
	if got := ExplainText(ch, 3); got != want {
		t.Errorf("why line\n%s\nwant\n%s", got, want)
	}
	// A method callgrind saw no call to (its one call went through a
	// precode's jump) is not said to be called 0 times.
	zero := 0.0
	stubbed := results.Contribution{Function: "Program.Score", Old: 10e6, New: 13e6, Change: 3e6, OldCalls: &zero, NewCalls: &zero}
	if got, want := ContributionText(results.ExplainInstructions, stubbed), "+3.000M instr (10.00M instr → 13.00M instr; entered by a jump, its calls counted to a stub's)"; got != want {
		t.Errorf("a method entered through a stub:\n%s\nwant\n%s", got, want)
	}
	// Beyond the first three, a place under 0.1% of both launches is
	// summed with the others as small; a why whose launches ran no
	// precompiled code says so.
	u := ch.ExplainUnnamed
	u.NoPerfMap = ""
	u.Places = append(u.Places, results.Contribution{Function: "[libgcc_s.so.1]", Old: 1e3, New: 1e3},
		results.Contribution{Function: "[libdl.so.2]", Old: 30, New: 30}, results.Contribution{Function: "[librt.so.1]", Old: 30, New: 30},
		results.Contribution{Function: "[libicuuc.so.72.1]", Old: 40e3, New: 20}) // 0.13% of the reference launch
	ch.ExplainLaunch = results.LaunchNoReadyToRun
	want = "[jitted code] 10.50M instr, [libcoreclr.so] 2.000M instr, [libgcc_s.so.1] 1.000k instr, [libicuuc.so.72.1] 20.00 instr, and 2 more places of 60.00 instr in all; " + NoReadyToRunText
	if got := ExplainText(ch, 3); !strings.HasSuffix(got, want) {
		t.Errorf("why line\n%s\nwant its end\n%s", got, want)
	}
	ch.ExplainUnnamed = nil
	if got := UnnamedText(ch); got != "" {
		t.Errorf("everything named: %q", got)
	}
}
