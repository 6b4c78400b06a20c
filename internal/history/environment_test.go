package history

import (
	"slices"
	"testing"

	"vbench/internal/machine"
	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/stats"
)

// A change point where the machine or the counting changed says so: a
// counted history whose runtime and valgrind were upgraded at run 8, when
// app's count stepped 3 %, marks that step with both; lib's step at run 4,
// where nothing but the code changed, is marked with nothing. A time
// series stepping with it is marked by the runtime alone: how counts were
// taken does not move a time.
func TestChangePointSaysTheEnvironmentChanged(t *testing.T) {
	var es []Entry
	for i := 0; i < 14; i++ {
		m := machine.Fingerprint{CPUModel: "cpu", Cores: 2, OS: "linux", DotnetRuntime: "10.0.11"}
		set := results.Settings{CountingEnv: []string{results.TieringOff}, Valgrind: "valgrind-3.19.0"}
		app, lib := 1e8, 5e7
		if i >= 8 {
			m.DotnetRuntime, set.Valgrind, app = "10.0.12", "valgrind-3.22.0", app*1.03
		}
		if i >= 4 {
			lib *= 1.05
		}
		cell := func(name string, metric results.Metric, x float64) results.Cell {
			c := results.Cell{Workload: name, Mode: modes.None, Metric: metric}
			for r := 0; r < 3; r++ {
				v := int64(x * (1 + 1e-5*float64((i*3+r)%5)))
				c.Samples = append(c.Samples, results.Run{Seq: r, Round: r + 1, Instructions: v, WallNs: v})
			}
			c.Runs = len(c.Samples)
			return c
		}
		es = append(es, Entry{Schema: SchemaVersion, Commit: string(rune('a' + i)), Machine: m, Settings: set,
			Cells: []results.Cell{cell("app", results.MetricInstructions, app), cell("lib", results.MetricInstructions, lib), cell("timed", results.MetricWall, app)}})
	}
	a := Analyze(es, stats.ChangeOptions{})
	found := map[string]Change{}
	for _, c := range a.All() {
		if c.Series == KindTime {
			found[c.Workload] = c
		}
	}
	app, ok := found["app"]
	want := []string{"at run 8: .NET runtime: 10.0.11 vs 10.0.12", "at run 8: counted with DOTNET_TieredCompilation=0 under valgrind-3.19.0 vs DOTNET_TieredCompilation=0 under valgrind-3.22.0"}
	if !ok || app.Index != 8 || !slices.Equal(app.Environment, want) {
		t.Errorf("app's step: %+v, want at run 8 with environment %q", app, want)
	}
	if lib, ok := found["lib"]; !ok || lib.Index != 4 || len(lib.Environment) != 0 {
		t.Errorf("lib's step: %+v, want at run 4 with no environment", lib)
	}
	if timed, ok := found["timed"]; !ok || timed.Index != 8 || !slices.Equal(timed.Environment, want[:1]) {
		t.Errorf("a timed step: %+v, want at run 8 marked by the runtime alone, not by how counts were taken", timed)
	}
}
