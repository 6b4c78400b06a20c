package doccheck

import (
	"os/exec"
	"strings"
	"testing"

	"vbench/internal/testbin"
)

// floors are the house's layers, lowest first: a package may import only
// packages on its own floor or below (README, "Architecture"). The
// profiler, the benchmarks and the study tools stand apart.
var floors = []string{"vbench/stats", "vbench/internal", "vbench/baseline", "vbench/runner", "vbench/reports", "vbench/cmd"}

func floorOf(pkg string) int {
	best := -1
	for i, f := range floors {
		if pkg == f || strings.HasPrefix(pkg, f+"/") {
			best = i
		}
	}
	return best
}

// No import runs back up a floor, and stats imports no package of the
// project at all: the layers a reader sees in the folders are the code's.
func TestNoImportRunsBackUp(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = testbin.RepoRoot()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, from := f[0], floorOf(f[0])
		if from < 0 {
			continue
		}
		checked++
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, "vbench/") {
				continue
			}
			if pkg == "vbench/stats" || strings.HasPrefix(pkg, "vbench/stats/") {
				t.Errorf("%s imports %s: stats imports no package of the project", pkg, imp)
			}
			if to := floorOf(imp); to > from {
				t.Errorf("%s imports %s: an arrow back up (floor %s over %s)", pkg, imp, floors[to], floors[from])
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d packages: go list printed %q", checked, out)
	}
}
