package runner

import (
	"context"
	"io/fs"
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

// The profiles kept next to the results are replaced as a whole: the new
// run's files (process directories included) in place, the previous run's
// gone, nothing temporary left behind; a failed copy leaves the previous
// profiles whole.
func TestKeepProfileReplacesAtomically(t *testing.T) {
	src, parent := t.TempDir(), filepath.Join(t.TempDir(), "profiles", "w")
	dst := filepath.Join(parent, "tracing")
	os.MkdirAll(filepath.Join(dst, "111"), 0o755)
	os.WriteFile(filepath.Join(dst, "111", "profile.json"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dst, "stale.txt"), []byte("stale"), 0o644)
	os.MkdirAll(filepath.Join(src, "222"), 0o755)
	os.WriteFile(filepath.Join(src, "222", "profile.json"), []byte("new"), 0o644)
	os.WriteFile(filepath.Join(src, "222", "started.json"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(src, "profile.pb.gz"), []byte("pb"), 0o644)
	if err := keepProfile(src, dst, nil, ""); err != nil {
		t.Fatal(err)
	}
	var names []string
	filepath.WalkDir(dst, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dst, path)
		names = append(names, rel)
		return nil
	})
	if strings.Join(names, " ") != ". 222 222/profile.json 222/started.json profile.pb.gz" {
		t.Errorf("dst holds %v", names)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "222", "profile.json")); string(b) != "new" {
		t.Errorf("profile.json = %q", b)
	}
	if err := keepProfile(filepath.Join(src, "missing"), dst, nil, ""); err == nil {
		t.Errorf("copying from a missing directory succeeded")
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "222", "profile.json")); string(b) != "new" {
		t.Errorf("a failed copy damaged the kept profile: %q", b)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("left behind next to the kept profile: %v", entries)
	}
}
