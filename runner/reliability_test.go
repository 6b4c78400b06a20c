package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The profiler's reason for not profiling is kept even when the program
// prints more to stderr afterwards, so a run that wrote no profile is
// explained by the profiler's own words.
func TestProfilerLinesSurviveChattyStderr(t *testing.T) {
	out := Exec(context.Background(), Spec{Argv: []string{"/bin/sh", "-c",
		`echo "vbench-profiler: VBENCH_MODE=\"x\" is not tracing, sampling or null; running unprofiled" >&2
		 i=0; while [ $i -lt 200 ]; do echo "noise line $i" >&2; i=$((i+1)); done
		 printf 'vbench-profiler: without a newline' >&2`}})
	if strings.Contains(out.Stderr, "running unprofiled") {
		t.Fatalf("the test needs the profiler's first line out of the tail: %q", out.Stderr)
	}
	want := []string{`vbench-profiler: VBENCH_MODE="x" is not tracing, sampling or null; running unprofiled`, "vbench-profiler: without a newline"}
	if strings.Join(out.Profiler, "\n") != strings.Join(want, "\n") {
		t.Errorf("profiler lines %q, want %q", out.Profiler, want)
	}
	if got := noProfile(out.Profiler); !strings.HasPrefix(got, "profiler did not initialise, so the run was unprofiled: vbench-profiler: VBENCH_MODE") {
		t.Errorf("noProfile: %s", got)
	}
	if got := noProfile([]string{"vbench-profiler: VBENCH_PROFILE_DIR=/x is not writable; no profile will be written"}); got != "profiler wrote no profile: vbench-profiler: VBENCH_PROFILE_DIR=/x is not writable; no profile will be written" {
		t.Errorf("noProfile: %s", got)
	}
	if got := noProfile(nil); !strings.HasPrefix(got, "profiler did not load or wrote no profile") {
		t.Errorf("noProfile: %s", got)
	}
}

// The profile kept next to the results is replaced file by file, atomically:
// the new files in place, files the new profile lacks removed, nothing
// temporary left behind.
func TestKeepProfileReplacesAtomically(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "profiles", "w", "tracing")
	os.MkdirAll(dst, 0o755)
	os.WriteFile(filepath.Join(dst, "profile.json"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dst, "stale.txt"), []byte("stale"), 0o644)
	os.WriteFile(filepath.Join(src, "profile.json"), []byte("new"), 0o644)
	os.WriteFile(filepath.Join(src, "profile.pb.gz"), []byte("pb"), 0o644)
	if kept, err := keepProfile(src, dst); err != nil || !kept {
		t.Fatal(kept, err)
	}
	entries, _ := os.ReadDir(dst)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "profile.json profile.pb.gz" {
		t.Errorf("dst holds %v", names)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "profile.json")); string(b) != "new" {
		t.Errorf("profile.json = %q", b)
	}
	if _, err := keepProfile(filepath.Join(src, "missing"), dst); err == nil {
		t.Errorf("copying from a missing directory succeeded")
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "profile.json")); string(b) != "new" {
		t.Errorf("a failed copy damaged the kept profile: %q", b)
	}
}
