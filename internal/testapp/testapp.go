// Package testapp builds the C# test program in profiler/testdata/app (the
// profiler's scenarios: recursion, exceptions, generics, threads, a hot loop,
// exit paths, a GC stress run) and runs it with or without the profiler.
package testapp

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"

	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/testbin"
)

// Dir is the C# project's directory.
func Dir() string { return filepath.Join(testbin.RepoRoot(), "profiler", "testdata", "app") }

// DLL returns the path of the built test program: a workload as any other
// (testbin.Workload: once per `go test` command, or from the programs make
// test built first).
func DLL(t testing.TB) string {
	t.Helper()
	return testbin.Workload(t, filepath.Join(Dir(), "App.csproj"))
}

// Result is one run of the test program.
type Result struct {
	Stdout, Stderr string
	Code           int
	Dir            string // VBENCH_PROFILE_DIR
}

// Run runs `dotnet VbTestApp.dll args...` with env added to a scrubbed
// environment. It fails the test only if the process cannot be started.
func Run(t testing.TB, env []string, args ...string) Result {
	t.Helper()
	cmd := exec.Command("dotnet", append([]string{DLL(t)}, args...)...)
	cmd.Env = append(attach.ScrubEnv(os.Environ()), env...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := Result{Stdout: so.String(), Stderr: se.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
		if r.Code < 0 {
			r.Code = 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
		}
	default:
		t.Fatalf("running the test program: %v", err)
	}
	return r
}

// Profiled runs the program under the profiler library lib with engine, writing
// into a fresh directory; extra env (VBENCH_INCLUDE=...) is appended.
func Profiled(t testing.TB, lib string, engine modes.Engine, extra []string, args ...string) Result {
	t.Helper()
	dir := t.TempDir()
	env := attach.Env(lib, attach.Options{Engine: engine, ProfileDir: dir})
	r := Run(t, append(env, extra...), args...)
	r.Dir = dir
	return r
}

var expectRE = regexp.MustCompile(`(?m)^VBENCH expect (\S+)=(\d+)$`)

// Expectations parses the "VBENCH expect Name=calls" lines the program prints.
func Expectations(stdout string) map[string]int64 {
	m := map[string]int64{}
	for _, g := range expectRE.FindAllStringSubmatch(stdout, -1) {
		n, _ := strconv.ParseInt(g[2], 10, 64)
		m[g[1]] = n
	}
	return m
}

// ProcessDir returns the directory of the one process that wrote into the
// profile directory dir (dir/<pid>/, see profile.ReadTree), failing the test
// unless exactly one did.
func ProcessDir(t testing.TB, dir string) string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(dir, "*", profile.StartedFile))
	if len(found) != 1 {
		t.Fatalf("%s: want one process directory with %s, found %v", dir, profile.StartedFile, found)
	}
	return filepath.Dir(found[0])
}
