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
	once     sync.Once
	dir      string
	vbench   string
	lib      string
	buildErr error
	buildOut []byte
)

// RepoRoot returns the directory holding go.mod.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

func build() {
	dir, buildErr = os.MkdirTemp("", "vbench-testbin-")
	if buildErr != nil {
		return
	}
	vbench = filepath.Join(dir, "vbench")
	lib = filepath.Join(dir, "libvbenchprof.so")
	root := RepoRoot()
	for _, args := range [][]string{
		{"build", "-o", vbench, "./cmd/vbench"},
		{"build", "-buildmode=c-shared", "-o", lib, "./profiler"},
	} {
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		buildOut, buildErr = cmd.CombinedOutput()
		if buildErr != nil {
			return
		}
	}
}

func get(t testing.TB) {
	t.Helper()
	once.Do(build)
	if buildErr != nil {
		t.Fatalf("building vbench: %v\n%s", buildErr, buildOut)
	}
}

// Vbench returns the path of a freshly built vbench binary. The profiler
// library sits next to it, where vbench looks for it by default.
func Vbench(t testing.TB) string { get(t); return vbench }

// ProfilerLib returns the path of a freshly built libvbenchprof.so.
func ProfilerLib(t testing.TB) string { get(t); return lib }

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
