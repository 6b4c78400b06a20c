package testdatacheck

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/testbin"
)

// programs lists the Go main packages (their folders) and C# projects
// under every testdata folder of the repository, fuzz corpora aside.
func programs(t *testing.T) (goMains, csprojs []string) {
	root := testbin.RepoRoot()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin" || d.Name() == "obj" || d.Name() == "out" || d.Name() == "fuzz") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.Contains(filepath.ToSlash(rel), "testdata/") {
			return nil
		}
		switch {
		case strings.HasSuffix(path, ".csproj"):
			csprojs = append(csprojs, rel)
		case strings.HasSuffix(path, ".go") && !seen[filepath.Dir(rel)]:
			b, err := os.ReadFile(path)
			if err == nil && strings.Contains(string(b), "\npackage main\n") {
				seen[filepath.Dir(rel)] = true
				goMains = append(goMains, "./"+filepath.ToSlash(filepath.Dir(rel)))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return goMains, csprojs
}

// Every Go program under testdata compiles and passes vet.
func TestGoProgramsUnderTestdataBuild(t *testing.T) {
	goMains, _ := programs(t)
	if len(goMains) == 0 {
		t.Fatal("found no Go program under testdata: the walk is broken (reports/testdata/genfixtures is one)")
	}
	for _, p := range goMains {
		cmd := exec.Command("go", "vet", p)
		cmd.Dir = testbin.RepoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s does not build: %v\n%s", p, err, out)
		}
	}
}

// Every C# project under testdata builds (Release, as the harness builds
// workloads), whether or not a test of this run uses it.
func TestCSharpProjectsUnderTestdataBuild(t *testing.T) {
	_, csprojs := programs(t)
	if len(csprojs) == 0 {
		t.Fatal("found no C# project under testdata: the walk is broken")
	}
	for _, p := range csprojs {
		testbin.Workload(t, p)
	}
}
