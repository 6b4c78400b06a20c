package cli_test

// Hostile programs and inputs (issue 48): what a suite, a flag or a file in
// the way must not do to the machine or to the user's files.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vbench/internal/profile"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
)

// Every file vbench writes follows the umask: under umask 077 results,
// JUnit and baselines are 0600 (they were 0644 whatever the umask).
func TestOutputsFollowTheUmask(t *testing.T) {
	dir := t.TempDir()
	suite := fakeSuite(t, dir, "umask", "none")
	sh := "umask 077 && exec " + testbin.Vbench(t) + " \"$@\""
	for _, args := range [][]string{
		{"run", suite, "--quiet", "--json", "r.json", "--junit", "j.xml"},
		{"baseline", "update", suite, "--from", "r.json", "--baseline", "b.json"},
		{"report", "r.json", "-o", "r.html"},
	} {
		cmd := exec.Command("sh", append([]string{"-c", sh, "vbench"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	for _, f := range []string{"r.json", "j.xml", "b.json", "r.html"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v under umask 077, want -rw-------", f, fi.Mode().Perm())
		}
	}
}

// A relative --out holds the profiles of a program that changes directory
// before it starts .NET: vbench hands the profiler absolute paths. They went
// to the program's new directory (/tmp/relprof/<pid>), and vbench said the
// runtime had not loaded the profiler.
func TestProfileRelativeOutSurvivesCd(t *testing.T) {
	dll := testapp.DLL(t)
	dir, elsewhere := t.TempDir(), t.TempDir()
	_, stderr, code := vbRun(t, dir, nil, "profile", "--profiler", testbin.ProfilerLib(t), "--mode", "tracing", "--out", "relprof", "--",
		"sh", "-c", `cd "$1" && exec dotnet "$2" loop 10`, "sh", elsewhere, dll)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if _, err := profile.ReadTree(filepath.Join(dir, "relprof")); err != nil {
		t.Errorf("no profile in --out relprof: %v", err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "relprof")); err == nil {
		t.Errorf("the profile went to the program's directory, %s", filepath.Join(elsewhere, "relprof"))
	}
}

// Two `vbench profile --out SAME` at once: the second is refused, exit 2,
// while the first is running (both used to pass the "already holds
// profiles" check and read each other's processes); once the first has
// ended, the check on what it left applies as before.
func TestProfileOutTakenByAnotherProfile(t *testing.T) {
	dir := t.TempDir()
	lib := testbin.ProfilerLib(t)
	first := exec.Command(testbin.Vbench(t), "profile", "--profiler", lib, "--out", "prof", "--",
		"sh", "-c", "echo x > started; while [ ! -e done ]; do sleep 0.1; done")
	first.Dir = dir
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
			break
		}
		if i > 600 {
			t.Fatal("the first profile's program never started")
		}
		time.Sleep(100 * time.Millisecond)
	}
	_, stderr, code := vbRun(t, dir, nil, "profile", "--profiler", lib, "--out", "prof", "--", "touch", "second-ran")
	want := "--out prof: another vbench profile is writing its profiles there"
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("second profile: exit %d, want 2 and %q:\n%s", code, want, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "second-ran")); err == nil {
		t.Errorf("the second profile ran its program")
	}
	writeFile(t, filepath.Join(dir, "done"), "")
	first.Wait()
}
