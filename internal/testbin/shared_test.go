package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Under `go test` the shared directory names the go command that started
// this process; an artifact is built by the first caller only, and a later
// caller (another package's process) finds its stamp.
func TestOnceSharedBuildsOncePerGoTest(t *testing.T) {
	if sharedDir == "" {
		t.Skip("not started by go test")
	}
	if filepath.Base(mustReadlink(t, "/proc/"+strconv.Itoa(os.Getppid())+"/exe")) != "go" {
		t.Fatalf("shared directory %s without a go parent", sharedDir)
	}
	saved := sharedDir
	t.Cleanup(func() { sharedDir = saved })
	sharedDir = t.TempDir()
	builds := 0
	build := func() (string, error) {
		builds++
		p := filepath.Join(sharedDir, "artifact")
		return p, os.WriteFile(p, []byte("x"), 0o644)
	}
	for i := 0; i < 2; i++ {
		p, err := OnceShared("some/artifact", build)
		if err != nil || p != filepath.Join(sharedDir, "artifact") {
			t.Fatalf("call %d: %q, %v", i, p, err)
		}
	}
	if builds != 1 {
		t.Errorf("built %d times, want once", builds)
	}
	// A stamp whose artifact is gone is built again.
	os.Remove(filepath.Join(sharedDir, "artifact"))
	if _, err := OnceShared("some/artifact", build); err != nil || builds != 2 {
		t.Errorf("after the artifact went: %d builds, %v", builds, err)
	}
}

// A test binary run by hand (its parent no go command) shares nothing.
func TestTestBinaryRunByHandSharesNothing(t *testing.T) {
	if os.Getenv("VBENCH_TESTBIN_CHILD") == "1" {
		if sharedDir != "" {
			t.Fatalf("shared directory %s under a shell", sharedDir)
		}
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", `"$0" -test.run '^TestTestBinaryRunByHandSharesNothing$'; exit $?`, exe)
	cmd.Env = append(os.Environ(), "VBENCH_TESTBIN_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

func mustReadlink(t *testing.T, p string) string {
	s, err := os.Readlink(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The shared directory of a go command that has ended, made more than a
// day ago, is removed by the next command's first build; one whose command
// runs, or made within the day, is left alone.
func TestSharedDirectoriesOfEndedCommandsRemoved(t *testing.T) {
	// A pid no process can have: its command has ended.
	n := NoSuchPid(t)
	ended := filepath.Join(os.TempDir(), sharedPrefix+strconv.Itoa(n)+"-123")
	// This test process, with its start time: it runs.
	running := filepath.Join(os.TempDir(), sharedPrefix+strconv.Itoa(os.Getpid())+"-"+startTime(os.Getpid()))
	// This process's pid with another start time: an ended command whose pid
	// was given again.
	reused := filepath.Join(os.TempDir(), sharedPrefix+strconv.Itoa(os.Getpid())+"-1")
	// An ended command's directory made an hour ago: a command in another
	// pid namespace may still use it.
	recent := filepath.Join(os.TempDir(), sharedPrefix+strconv.Itoa(n)+"-456")
	twoDaysAgo := time.Now().Add(-48 * time.Hour)
	for _, d := range []string{ended, running, reused, recent} {
		if err := os.MkdirAll(filepath.Join(d, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		at := twoDaysAgo
		if d == recent {
			at = time.Now().Add(-time.Hour)
		}
		if err := os.Chtimes(d, at, at); err != nil {
			t.Fatal(err)
		}
	}
	sweepShared()
	for d, kept := range map[string]bool{ended: false, running: true, reused: false, recent: true} {
		if _, err := os.Stat(d); (err == nil) != kept {
			t.Errorf("%s: kept %v, want %v", d, err == nil, kept)
		}
	}
}
