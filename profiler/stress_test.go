package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"vbench/internal/attach"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
)

// TestStressShort is the short version of scripts/stress-profiler.sh: the
// GC/exception-heavy 8-thread program under every mode (and cpu-sampling
// with every thread directed, and both allocation engines), 3 times each
// (sampling at 1ms), with no crash and a profile every time.
func TestStressShort(t *testing.T) {
	l := lib(t)
	dll := testapp.DLL(t)
	cmd := exec.Command("bash", filepath.Join(testbin.RepoRoot(), "scripts", "stress-profiler.sh"), "3")
	cmd.Env = append(attach.ScrubEnv(os.Environ()), "VBENCH_LIB="+l, "VBENCH_APP="+dll)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("stress-profiler.sh 3: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "all 27 runs passed") {
		t.Fatalf("unexpected summary:\n%s", out)
	}
}
