package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vbench/cmd/vbench/cli"
	"vbench/internal/results"
	"vbench/internal/testbin"
)

// Issue 53's proof, on a program the project never saw (testdata's growth:
// head turns Work.Probe's calls from 2n into 2n²/250, the same at the
// smallest size, a few per cent of the work at the largest), scaled over
// three sizes (the fewest a scale takes: the class is read from exact
// counts, which more sizes or runs would only repeat). Timed under none
// and tracing, the complexity verdict names Probe and its change of class
// from the tracer's exact counts, in the table, the JSON and the JUnit
// file, and exits 1; the base build against itself keeps the class of
// every function. The same builds counted in instructions: valgrindtest's
// TestComplexityHiddenInInstructions.
// Skipped with -short: 36 CoreCLR launches.
func TestComplexityVerdictOfAProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a .NET program 36 times")
	}
	t.Parallel() // judged by class, from the tracer's exact counts
	base := testbin.Workload(t, "cmd/vbench/cli/testdata/csharp/growth/base/Growth.csproj")
	head := testbin.Workload(t, "cmd/vbench/cli/testdata/csharp/growth/head/Growth.csproj")
	testbin.ProfilerLib(t) // next to vbench, where run looks for it
	dir := t.TempDir()
	scale := `    scale: {arg: --n, sizes: [250, 1000, 2000]}
`
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: growth
runs: 2
warmup: 0
modes: [none, tracing]
thresholds: {min_change: 5%, min_change_instructions: 1%}
workloads:
  - name: app
    command: [dotnet, `+head+`, --n, "250"]
`+scale+`    against: app-base
  - name: app-again
    command: [dotnet, `+base+`, --n, "250"]
`+scale+`    against: app-base
  - name: app-base
    command: [dotnet, `+base+`, --n, "250"]
`+scale)
	stdout, stderr, code := vbRun(t, dir, nil, "run", "suite.yaml", "--quiet", "--no-baseline", "--json", "r.json", "--junit", "j.xml")
	if code != cli.ExitRegression {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, cli.ExitRegression, stdout, stderr)
	}
	f, err := results.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	var probe *results.Growth
	for i, g := range f.Complexity {
		if g.Workload == "app" && g.Mode == "tracing" && strings.HasSuffix(g.Function, "Probe") {
			probe = &f.Complexity[i]
		}
		if g.Workload == "app-again" && g.Function != "" && g.Verdict != results.VerdictSame {
			t.Errorf("the base build against itself: %s %q", g.Verdict, g.Sentence)
		}
	}
	if probe == nil || probe.Verdict != results.VerdictRegressed || probe.Model.Class != "n²" || probe.RefModel.Class != "n" {
		t.Fatalf("app's Probe: %+v\n%s", probe, stdout)
	}
	line := "complexity regressed: " + probe.Sentence
	if !strings.Contains(probe.Sentence, "Probe: n → n² (at size 2000: 4000 → 3.2e+04)") || !strings.Contains(stdout, line) {
		t.Errorf("the table lacks %q:\n%s", line, stdout)
	}
	if j, _ := os.ReadFile(filepath.Join(dir, "j.xml")); !strings.Contains(string(j), `type="complexity"`) {
		t.Errorf("the JUnit file has no complexity failure:\n%s", j)
	}
}

// Issue 53's models per line: the growth program's two builds under
// instrumentation with lines, each line's exact executions over three
// sizes. Head's line that calls Probe (Program.cs:40) turns from n into
// n², said with its place, and exits 1; the line that calls Step keeps
// its class n. 12 CoreCLR launches.
func TestComplexityOfLines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a .NET program 12 times")
	}
	t.Parallel() // judged by class, from exact line executions
	base := testbin.Workload(t, "cmd/vbench/cli/testdata/csharp/growth/base/Growth.csproj")
	head := testbin.Workload(t, "cmd/vbench/cli/testdata/csharp/growth/head/Growth.csproj")
	testbin.ProfilerLib(t)
	dir := t.TempDir()
	scale := `    scale: {arg: --n, sizes: [250, 500, 1000]}
`
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: growth-lines
runs: 2
warmup: 0
modes:
  - name: lines
    engine: instrumentation
    lines: true
workloads:
  - name: app
    command: [dotnet, `+head+`, --n, "250"]
`+scale+`    against: app-base
  - name: app-base
    command: [dotnet, `+base+`, --n, "250"]
`+scale)
	stdout, stderr, code := vbRun(t, dir, nil, "run", "suite.yaml", "--quiet", "--no-baseline", "--json", "r.json")
	if code != cli.ExitRegression {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, cli.ExitRegression, stdout, stderr)
	}
	f, err := results.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	var probe, step *results.Growth
	for i, g := range f.Complexity {
		if g.Workload == "app" && strings.HasSuffix(g.Function, "Work.Run") {
			switch g.Line {
			case "Program.cs:40":
				probe = &f.Complexity[i]
			case "Program.cs:31":
				step = &f.Complexity[i]
			}
		}
	}
	if probe == nil || probe.Verdict != results.VerdictRegressed || probe.Model.Class != "n²" || probe.RefModel.Class != "n" {
		t.Fatalf("app's Probe line: %+v\n%s", probe, stdout)
	}
	if want := "complexity regressed: app/lines Work.Run (Program.cs:40): n → n²"; !strings.Contains(stdout, want) {
		t.Errorf("the table lacks %q:\n%s", want, stdout)
	}
	if step == nil || step.Verdict != results.VerdictSame || step.Model.Class != "n" {
		t.Errorf("app's Step line: %+v", step)
	}
	c := f.Find("app@n=1000", "lines")
	if c == nil || len(c.LineExecutions) == 0 {
		t.Fatalf("app@n=1000/lines keeps no line executions: %+v", c)
	}
}

// A scale a workload cannot take is refused before anything is built:
// exit 2, naming file, line and field.
func TestComplexityBadScale(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ scale, want string }{
		{"{arg: --n, sizes: [10, 20]}", "s.yaml:6: workloads[0].scale.sizes: 2 sizes: a growth class needs at least 3"},
		{"{arg: --n, sizes: [10, ten, 40]}", `s.yaml:6: workloads[0].scale.sizes[1]: "ten" is not a number`},
		{"{arg: --size, sizes: [10, 20, 40]}", "s.yaml:6: workloads[0](a).scale.arg: the workload does not take --size"},
	} {
		writeFile(t, filepath.Join(dir, "s.yaml"), "name: s\nbaseline: b.json\nworkloads:\n  - name: a\n    command: [true, --n, \"5\"]\n    scale: "+c.scale+"\n")
		_, stderr, code := vbRun(t, dir, nil, "run", "s.yaml", "--quiet")
		if code != cli.ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("scale %s: exit %d, stderr %s", c.scale, code, stderr)
		}
	}
}
