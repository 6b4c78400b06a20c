package testbin

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// ProgramsVar names a file of C# programs built before the tests ran:
// MSBuild's -getTargetResult:Build of programs.proj, which make test builds
// first, every project in one MSBuild (a `dotnet build` a project costs
// ~2.5 s of CPU of its own, SDK start-up and evaluation, before compiling;
// an up-to-date one still ~2 s). Workload takes a project's DLL from it
// instead of building; a project it lacks is built as before. Unset (a test
// run by hand, go test alone), every project is built where it is needed.
const ProgramsVar = "VBENCH_TEST_PROGRAMS"

var (
	prebuiltOnce sync.Once
	prebuilt     map[string]string // project file → its DLL
)

// prebuiltDLL is the DLL the ProgramsVar file lists for project (an
// absolute path), "" when there is none or it is not there.
func prebuiltDLL(project string) string {
	prebuiltOnce.Do(func() {
		name := os.Getenv(ProgramsVar)
		if name == "" {
			return
		}
		b, err := os.ReadFile(name)
		if err != nil {
			// make test removes it when the one MSBuild failed: each test
			// builds its own, and a failing project says why there.
			fmt.Fprintf(os.Stderr, "testbin: %s: %v: building each C# program where it is needed\n", ProgramsVar, err)
			return
		}
		var r struct {
			TargetResults struct {
				Build struct {
					Items []struct {
						Identity                 string
						MSBuildSourceProjectFile string
					}
				}
			}
		}
		if err := json.Unmarshal(b, &r); err != nil {
			fmt.Fprintf(os.Stderr, "testbin: %s: %v: building each C# program where it is needed\n", name, err)
			return
		}
		prebuilt = map[string]string{}
		for _, it := range r.TargetResults.Build.Items {
			prebuilt[realPath(it.MSBuildSourceProjectFile)] = it.Identity
		}
	})
	dll := prebuilt[realPath(project)]
	if dll == "" {
		return ""
	}
	if _, err := os.Stat(dll); err != nil {
		return ""
	}
	return dll
}

// realPath is path with its symlinks resolved: MSBuild names a project by
// its physical path, RepoRoot by the one the go command was started in.
func realPath(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return filepath.Clean(path)
}
