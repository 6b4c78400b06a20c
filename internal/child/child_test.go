package child

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// A real shell: its exit code comes back, a signal that ends it is 128+n,
// its stdout and stderr reach the writers given.
func TestRunExitCodes(t *testing.T) {
	for _, c := range []struct {
		script string
		code   int
	}{{"echo out; echo err >&2; exit 7", 7}, {"kill -TERM $$", 128 + 15}, {"true", 0}} {
		var out, errOut bytes.Buffer
		code, err := Run([]string{"sh", "-c", c.script}, os.Environ(), nil, &out, &errOut)
		if err != nil || code != c.code {
			t.Errorf("%q: code %d, err %v; want %d", c.script, code, err, c.code)
		}
		if c.code == 7 && (out.String() != "out\n" || errOut.String() != "err\n") {
			t.Errorf("%q: stdout %q, stderr %q", c.script, out.String(), errOut.String())
		}
	}
	if _, err := Run([]string{"/nonexistent/program"}, nil, nil, nil, &bytes.Buffer{}); err == nil || !strings.HasPrefix(err.Error(), "cannot run /nonexistent/program: ") {
		t.Errorf("a program that cannot start: %v", err)
	}
}

// Running knows this process by its pid and command line, and not by a
// different command line on the same pid (a reused pid).
func TestRunning(t *testing.T) {
	b, err := os.ReadFile("/proc/self/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	argv := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	if !Running(os.Getpid(), argv) {
		t.Errorf("Running(self, %q) = false", argv)
	}
	if Running(os.Getpid(), append(argv, "other")) {
		t.Error("a different command line on the same pid counts as running")
	}
}
