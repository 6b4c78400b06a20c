package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vbench scores nettrace and perf script profiles, so report and diff read
// them too, converted to its own profile model: `vbench report
// trace.nettrace` answered "malformed JSON: invalid character 'N'". A file
// of no format vbench reads is refused naming the formats it reads. The
// nettrace is one a real CoreCLR process wrote (EventPipe's sampler).
func TestReportAndDiffReadForeignProfiles(t *testing.T) {
	t.Parallel() // asserts files, no time
	dir := t.TempDir()
	trace := threeOneTrace(t, dir, "trace.nettrace")
	perf, _ := filepath.Abs(filepath.Join("..", "..", "..", "internal", "foreignprof", "testdata", "fib.perf.txt"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", trace}, "Heavy.Mix"},
		{[]string{"report", perf}, "Fibonacci.Program.Fib"},
		{[]string{"diff", trace, trace}, "NEW: " + trace + " (nettrace)\nsamples: "},
		{[]string{"diff", perf, perf}, "NEW: " + perf + " (perf-script)\nsamples: 5 in 1 run"},
	} {
		stdout, stderr, code := vbenchIn(t, "", os.Environ(), c.args...)
		if code != 0 || !strings.Contains(stdout, c.want) {
			t.Errorf("vbench %s: exit %d, stdout lacks %q:\n%s\n%s", strings.Join(c.args, " "), code, c.want, stdout, stderr)
		}
	}
	notes := filepath.Join(dir, "notes.txt")
	writeFile(t, notes, "hello\n")
	_, stderr, code := vbenchIn(t, "", os.Environ(), "report", notes)
	if want := notes + ": not a file vbench reads: a results file (vbench run --json), a profile.json or profile directory, or another tool's profile (nettrace (EventPipe), pprof (.pb.gz), speedscope JSON, perf script text)"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("report of a text file: exit %d, stderr %q\nwant %q", code, stderr, want)
	}
}
