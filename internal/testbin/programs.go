package testbin

import (
	"encoding/json"
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
		b, err := os.ReadFile(os.Getenv(ProgramsVar))
		if err != nil {
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
		if json.Unmarshal(b, &r) != nil {
			return
		}
		prebuilt = map[string]string{}
		for _, it := range r.TargetResults.Build.Items {
			prebuilt[filepath.Clean(it.MSBuildSourceProjectFile)] = it.Identity
		}
	})
	dll := prebuilt[filepath.Clean(project)]
	if dll == "" {
		return ""
	}
	if _, err := os.Stat(dll); err != nil {
		return ""
	}
	return dll
}
