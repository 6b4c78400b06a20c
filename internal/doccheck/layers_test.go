package doccheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"vbench/internal/testbin"
)

// floors are the house's layers, lowest first: a package may import only
// packages on its own floor or below (DEVELOPERS.md, "Architecture"). The
// profiler, the benchmarks and the study tools stand apart.
var floors = []string{"vbench/stats", "vbench/internal", "vbench/baseline", "vbench/runner", "vbench/reports", "vbench/cmd"}

// goList runs go list in the repository with args and returns its lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = testbin.RepoRoot()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

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
	out := goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	checked := 0
	for _, line := range out {
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

// floorTable reads DEVELOPERS.md's "```floors" block: "cmd → reports,
// runner", one floor a line, "nothing" for none.
func floorTable(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testbin.RepoRoot(), "DEVELOPERS.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(data), "```floors\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok {
		t.Fatal("DEVELOPERS.md has no ```floors block")
	}
	table := map[string][]string{}
	for n, line := range strings.Split(strings.TrimSpace(block), "\n") {
		from, to, ok := strings.Cut(line, "→")
		if !ok {
			t.Fatalf("DEVELOPERS.md floors block, line %d: %q has no →", n+1, line)
		}
		from = strings.TrimSpace(from)
		table[from] = []string{}
		for _, f := range strings.Split(to, ",") {
			if f = strings.TrimSpace(f); f != "nothing" {
				table[from] = append(table[from], f)
			}
		}
		sort.Strings(table[from])
	}
	return table
}

// The floor table in DEVELOPERS.md is what go list shows: every floor
// named, each imports exactly the floors written beside it (non-test
// packages). The README once said "cmd → reports → runner → baseline →
// internal → stats", a chain the code never had.
func TestFloorTableIsGoList(t *testing.T) {
	out := goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	got := map[string]map[string]bool{}
	for _, f := range floors {
		got[strings.TrimPrefix(f, "vbench/")] = map[string]bool{}
	}
	for _, line := range out {
		f := strings.Fields(line)
		from := floorOf(f[0])
		if from < 0 {
			continue
		}
		for _, imp := range f[1:] {
			if to := floorOf(imp); to >= 0 && to != from {
				got[strings.TrimPrefix(floors[from], "vbench/")][strings.TrimPrefix(floors[to], "vbench/")] = true
			}
		}
	}
	want := floorTable(t)
	for floor, imps := range got {
		var list []string
		for i := range imps {
			list = append(list, i)
		}
		sort.Strings(list)
		w, ok := want[floor]
		if !ok {
			t.Errorf("DEVELOPERS.md's floor table has no line for %s (go list: %s → %s)", floor, floor, strings.Join(list, ", "))
			continue
		}
		if !slices.Equal(w, list) {
			t.Errorf("DEVELOPERS.md says %s → %s; go list shows %s → %s", floor, strings.Join(w, ", "), floor, strings.Join(list, ", "))
		}
	}
	for floor := range want {
		if _, ok := got[floor]; !ok {
			t.Errorf("DEVELOPERS.md's floor table names %s, which is no floor (%s)", floor, strings.Join(floors, ", "))
		}
	}
}

// studies is where the study tools live; they build only with -tags
// vbenchstudy, and nothing the product ships or tests may need them.
const studies = "vbench/scripts/studies"

// No package of the product, nor its tests, imports the studies: `make
// test` never builds them and a study can change without touching vbench.
func TestNoProductPackageImportsTheStudies(t *testing.T) {
	product := []string{"./cmd/vbench/...", "./runner/...", "./reports/...", "./internal/...", "./stats/...", "./baseline/...", "./profiler/..."}
	out := goList(t, append([]string{"-tags", "vbenchtest,vbenchstudy", "-test", "-f", `{{.ImportPath}} {{join .Deps " "}}`}, product...)...)
	checked := 0
	for _, line := range out {
		f := strings.Fields(line)
		if strings.HasPrefix(f[0], studies) {
			continue
		}
		checked++
		for _, dep := range f[1:] {
			if dep == studies || strings.HasPrefix(dep, studies+"/") {
				t.Errorf("%s imports %s: the product never builds the studies (scripts/studies/)", f[0], dep)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d packages: go list printed %q", checked, out)
	}
}

// The output layer has two rooms and judges nothing: reports (results) and
// reports/profileview (profiles) never depend on each other, even through
// another package, and no package under reports/ imports internal/verdict
// (a command judges, then hands the judged file to the renderer; the
// history page draws what internal/history found, which judges by
// verdict's rule). Run by hand:
//
//	go list -deps -f '{{.ImportPath}}: {{join .Imports " "}}' ./reports/...
func TestOutputsApartAndJudgeNothing(t *testing.T) {
	const results, profiles, verdict = "vbench/reports", "vbench/reports/profileview", "vbench/internal/verdict"
	imports := map[string][]string{}
	for _, line := range goList(t, "-deps", "-f", `{{.ImportPath}}: {{join .Imports " "}}`, "./reports/...") {
		pkg, is, _ := strings.Cut(line, ":")
		imports[pkg] = strings.Fields(is)
	}
	// deps is every package p depends on, through any path.
	deps := func(p string) map[string]bool {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(p string) {
			for _, i := range imports[p] {
				if !seen[i] {
					seen[i] = true
					walk(i)
				}
			}
		}
		walk(p)
		return seen
	}
	output := func(p string) bool { return p == results || strings.HasPrefix(p, results+"/") }
	profileRoom := func(p string) bool { return p == profiles || strings.HasPrefix(p, profiles+"/") }
	for _, p := range []string{results, profiles} {
		if _, ok := imports[p]; !ok {
			t.Errorf("no package %s: results and profiles are rendered in packages of their own", p)
		}
	}
	for pkg, is := range imports {
		if !output(pkg) {
			continue
		}
		for _, i := range is {
			if i == verdict {
				t.Errorf("%s imports %s: an output package renders judgements, it does not make them", pkg, verdict)
			}
		}
		for d := range deps(pkg) {
			if (pkg == results && profileRoom(d)) || (profileRoom(pkg) && d == results) {
				t.Errorf("%s depends on %s: results and profile views stand apart", pkg, d)
			}
		}
	}
}
