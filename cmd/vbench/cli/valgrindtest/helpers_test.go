package valgrindtest

import (
	"testing"

	"vbench/internal/testbin"
)

// The command tests' helpers, shared with cmd/vbench/cli (internal/testbin).

func vbRun(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	return testbin.Run(t, dir, env, args...)
}

func writeFile(t *testing.T, path, content string) { t.Helper(); testbin.WriteFile(t, path, content) }

func exitCode(t *testing.T, err error) int { t.Helper(); return testbin.ExitCode(t, err) }
