// Package testbin builds the real vbench binary and profiler library for
// tests, once per test process, so every test runs the actual artifacts and
// `go test ./...` works without a prior `make build`.
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	dirOnce sync.Once
	dir     string
	dirErr  error

	once     sync.Once
	vbench   string
	lib      string
	buildErr error
	buildOut []byte
	// The library is built alongside vbench but its failure only fails the
	// tests that need it: harness tests must run on a branch whose profiler
	// is missing or broken.
	libErr error
	libOut []byte
)

// RepoRoot returns the directory holding go.mod.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// tempDir is the one directory this test process builds into.
func tempDir() (string, error) {
	dirOnce.Do(func() { dir, dirErr = os.MkdirTemp("", "vbench-testbin-") })
	return dir, dirErr
}

func build() {
	d, err := tempDir()
	if err != nil {
		buildErr = err
		return
	}
	vbench = filepath.Join(d, "vbench")
	lib = filepath.Join(d, "libvbenchprof.so")
	if buildOut, buildErr = goBuild("-o", vbench, "./cmd/vbench"); buildErr != nil {
		return
	}
	libOut, libErr = goBuild("-buildmode=c-shared", "-o", lib, "./profiler")
}

// goBuild runs `go build args...` in the repository root.
func goBuild(args ...string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = RepoRoot()
	return cmd.CombinedOutput()
}

func get(t testing.TB) {
	t.Helper()
	once.Do(build)
	if buildErr != nil {
		t.Fatalf("building vbench: %v\n%s", buildErr, buildOut)
	}
}

// Vbench returns the path of a freshly built vbench binary. The profiler
// library sits next to it (when it builds), where vbench looks for it by default.
func Vbench(t testing.TB) string { get(t); return vbench }

// ProfilerLib returns the path of a freshly built libvbenchprof.so.
func ProfilerLib(t testing.TB) string {
	get(t)
	if libErr != nil {
		t.Fatalf("building the profiler library: %v\n%s", libErr, libOut)
	}
	return lib
}

// Dotnet returns the dotnet host, failing the test when it is missing: every
// machine this project supports has the .NET SDK.
func Dotnet(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("dotnet")
	if err != nil {
		t.Fatalf("dotnet not found on PATH: the .NET SDK is required")
	}
	return p
}
