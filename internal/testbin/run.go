package testbin

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Run runs the real vbench in dir with env (nil: the test's own
// environment) and returns stdout, stderr and the exit code: the command
// tests of every package that drives vbench share it.
func Run(t testing.TB, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(Vbench(t), args...)
	cmd.Dir = dir
	cmd.Env = env
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	code := ExitCode(t, cmd.Run())
	return so.String(), se.String(), code
}

// ExitCode is a finished command's exit code; an error that is not an
// exit (the binary could not start) fails the test.
func ExitCode(t testing.TB, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("running vbench: %v", err)
	return -1
}

// WriteFile writes content to path, making its folders.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
