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

// TestStartupStressShort is the short version of scripts/startup-stress.sh:
// the web service (benchmarks/web) started, asked for /health and stopped
// under each signal-driven engine (sampling at 1 ms and 10 ms,
// suspend-sampling), twice each, with no crash, exit 0 and a profile every
// time. A SIGSEGV during such a start-up once failed
// TestServiceUnderEachMode (issue 48); make stress runs 20 rounds beside a
// busy loop.
func TestStartupStressShort(t *testing.T) {
	l := lib(t)
	web := testbin.Workload(t, filepath.Join("benchmarks", "web", "Web.csproj"))
	cmd := exec.Command("bash", filepath.Join(testbin.RepoRoot(), "scripts", "startup-stress.sh"), "2")
	cmd.Env = append(attach.ScrubEnv(os.Environ()), "VBENCH_LIB="+l, "VBENCH_WEB="+web, "STARTUP_BUSY=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("startup-stress.sh 2: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "all 6 start-ups passed") {
		t.Fatalf("unexpected summary:\n%s", out)
	}
}
