package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/suite"
)

// What the machine lacks (a workload's command, a mode's wrapper) refuses
// only a plan that runs it: the suite still reads, other selections run.
func TestPlanRefusesOnlyWhatItRuns(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "suite.yaml")
	os.WriteFile(p, []byte("name: s\nbaseline: b.json\nmodes:\n  - none\n  - name: wrapped\n    wrap: [no-such-wrapper-xyz]\n"+
		"workloads:\n  - name: here\n    command: [true]\n  - name: gone\n    command: [no-such-tool-xyz]\n"), 0o644)
	s, err := suite.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewPlan(s, Options{Warmup: -1, Workloads: []string{"here"}, Modes: []modes.Mode{modes.None}}); err != nil {
		t.Errorf("a selection needing nothing missing: %v", err)
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Warmup: -1, Modes: []modes.Mode{modes.None}}, `suite.yaml:11: workloads[1](gone).command[0]: command "no-such-tool-xyz" not found in PATH`},
		{Options{Warmup: -1, Workloads: []string{"here"}}, `suite.yaml:6: modes[1](wrapped).wrap[0]: command "no-such-wrapper-xyz" not found in PATH`},
	} {
		_, err := NewPlan(s, c.o)
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("plan %+v: %v\nwant …%s", c.o, err, c.want)
		}
	}
}
