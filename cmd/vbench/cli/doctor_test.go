package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"vbench/internal/testbin"
)

// doctorChecks are the checks vbench doctor prints, in order.
var doctorChecks = []string{".NET runtime", "profiler library", "profiler loads", "CPUs", "frequency governor",
	"turbo boost", "load average", "CPU quota", "hypervisor", "time stamp counter", "memory available"}

// vbench doctor on this machine, which has what vbench needs: exit 0, one line
// per check, and a closing line that counts the warnings printed. Nothing here
// depends on what this machine's noise checks find.
func TestDoctor(t *testing.T) {
	testbin.ProfilerLib(t) // built next to vbench, where doctor looks by default
	stdout, stderr, code := vbenchIn(t, t.TempDir(), os.Environ(), "doctor")
	if code != 0 {
		t.Fatalf("vbench doctor: exit %d\n%s%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	checkRe := regexp.MustCompile(`^([✓·!✗]) +(\S.*?)  +(\S.*)$`)
	warns, i := 0, 0
	for _, l := range lines {
		if l == "" {
			break
		}
		if strings.HasPrefix(strings.TrimSpace(l), "→ ") {
			continue // advice under the check above
		}
		m := checkRe.FindStringSubmatch(l)
		if m == nil || i >= len(doctorChecks) || m[2] != doctorChecks[i] {
			t.Fatalf("line %q: want check %d of %q\n%s", l, i, doctorChecks, stdout)
		}
		if i < 3 && m[1] != "✓" { // what vbench needs is here
			t.Errorf("required check failed: %s", l)
		}
		if m[1] == "!" {
			warns++
		}
		i++
	}
	if i != len(doctorChecks) {
		t.Fatalf("%d checks printed, want %d\n%s", i, len(doctorChecks), stdout)
	}
	want := "Ready."
	if warns > 0 {
		want = fmt.Sprintf("Ready, with %d source(s) of timing noise (see ! above).", warns)
	}
	if last := lines[len(lines)-1]; last != want {
		t.Errorf("last line %q, want %q", last, want)
	}
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
}

// Without a profiler library doctor fails what vbench needs and exits 2, and
// still reports every check.
func TestDoctorMissingLibrary(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libvbenchprof.so")
	stdout, stderr, code := vbenchIn(t, t.TempDir(), os.Environ(), "doctor", "--profiler", missing)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		`(?m)^✗ +profiler library +.*` + regexp.QuoteMeta(missing) + ` does not exist`,
		`(?m)^✗ +profiler loads +skipped: needs the \.NET runtime and the library$`,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("stdout does not match %q:\n%s", want, stdout)
		}
	}
	for _, name := range doctorChecks {
		if !regexp.MustCompile(`(?m)^[✓·!✗] +` + regexp.QuoteMeta(name) + "  ").MatchString(stdout) {
			t.Errorf("no line for %q:\n%s", name, stdout)
		}
	}
	if !strings.Contains(stderr, "doctor: something vbench needs is missing") {
		t.Errorf("stderr: %s", stderr)
	}
}
