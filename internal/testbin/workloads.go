package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

var (
	workloadsMu sync.Mutex
	workloads   = map[string]*workloadBuild{}
)

type workloadBuild struct {
	once sync.Once
	dll  string
	err  error
	out  []byte
}

// Workload builds a workload project (a .csproj under benchmarks/, absolute
// or relative to the repository root) in Release, as the harness does, once
// per test process (once per `go test` command: OnceShared), or takes it
// from the programs make test built first (ProgramsVar), and returns the DLL
// to run as `dotnet <dll> args...`.
// Builds of one project by concurrent test processes (go test ./... runs
// packages in parallel) are serialised with a lock file in its obj/.
func Workload(t testing.TB, project string) string {
	t.Helper()
	if !filepath.IsAbs(project) {
		project = filepath.Join(RepoRoot(), project)
	}
	if dll := prebuiltDLL(project); dll != "" {
		return dll
	}
	dotnet := Dotnet(t)
	workloadsMu.Lock()
	b := workloads[project]
	if b == nil {
		b = &workloadBuild{}
		workloads[project] = b
	}
	workloadsMu.Unlock()
	b.once.Do(func() {
		b.dll, b.err = OnceShared("dotnet-"+project, func() (string, error) {
			var dll string
			var err error
			dll, b.out, err = buildWorkload(dotnet, project)
			return dll, err
		})
	})
	if b.err != nil {
		t.Fatalf("building %s: %v\n%s", project, b.err, b.out)
	}
	return b.dll
}

func buildWorkload(dotnet, project string) (string, []byte, error) {
	obj := filepath.Join(filepath.Dir(project), "obj")
	if err := os.MkdirAll(obj, 0o755); err != nil {
		return "", nil, err
	}
	lock, err := os.OpenFile(filepath.Join(obj, ".vbench-build.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", nil, err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", nil, err
	}
	// -getProperty with -t:Build builds, then prints only the DLL's path.
	cmd := exec.Command(dotnet, "build", project, "-c", "Release", "-nologo", "-t:Build", "-getProperty:TargetPath")
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1", "DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1")
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			out = append(out, ee.Stderr...)
		}
		return "", out, err
	}
	dll := strings.TrimSpace(string(out))
	if _, err := os.Stat(dll); err != nil {
		return "", out, err
	}
	return dll, nil, nil
}

// WebApp builds internal/testbin/webapp, a small ASP.NET Core app the
// service tests drive (its Program.cs says what it serves and how it fails
// on request), and returns the DLL to run as `dotnet <dll> --urls URL`.
func WebApp(t testing.TB) string {
	t.Helper()
	return Workload(t, filepath.Join(RepoRoot(), "internal", "testbin", "webapp", "TestWeb.csproj"))
}
