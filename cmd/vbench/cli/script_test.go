package cli_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"vbench/internal/testbin"
)

// TestScripts runs the CLI scenarios in testdata/script against the real
// vbench binary. Profiled modes run the real profiler ($PROFILER) on real
// .NET workloads: benchmarks/split and benchmarks/mandelbrot, built once for
// every script and run through the wrappers `split` and `mandelbrot` on PATH
// (`exec dotnet <dll> "$@"`). internal/fakework (a real process, with exact
// times) is the workload where a script needs times it can assert, and with
// the stand-in library ($FAKEPROF: it never loads; fakework writes the
// profile) where it needs a profile the real profiler cannot write.
func TestScripts(t *testing.T) {
	vb := testbin.Vbench(t)
	fw := testbin.Fakework(t)
	fp := testbin.FakeProfiler(t)
	lib := testbin.ProfilerLib(t)
	wrappers := t.TempDir()
	for name, project := range map[string]string{"split": "benchmarks/split/Split.csproj", "mandelbrot": "benchmarks/mandelbrot/Mandelbrot.csproj"} {
		script := "#!/bin/sh\nexec " + testbin.Dotnet(t) + " " + testbin.Workload(t, project) + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(wrappers, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("PATH", strings.Join([]string{filepath.Dir(vb), filepath.Dir(fw), wrappers, os.Getenv("PATH")}, string(os.PathListSeparator)))
			e.Setenv("FAKEPROF", fp)
			e.Setenv("FAKEWORK", fw)
			e.Setenv("PROFILER", lib)
			// The CPUs vbench may use, as this test process sees them (pinned
			// with taskset, on a 4-CPU CI runner): scripts assert no core count.
			e.Setenv("NUMCPU", strconv.Itoa(runtime.NumCPU()))
			home := filepath.Join(e.WorkDir, ".home")
			e.Setenv("HOME", home)
			e.Setenv("DOTNET_CLI_HOME", home)
			for _, k := range []string{"DOTNET_CLI_TELEMETRY_OPTOUT", "DOTNET_NOLOGO", "NUGET_PACKAGES", "TMPDIR"} {
				if v, ok := os.LookupEnv(k); ok {
					e.Setenv(k, v)
				}
			}
			if _, ok := os.LookupEnv("NUGET_PACKAGES"); !ok {
				// Share the machine's package cache instead of restoring into the test's HOME.
				if h, err := os.UserHomeDir(); err == nil {
					e.Setenv("NUGET_PACKAGES", filepath.Join(h, ".nuget", "packages"))
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"vb":       cmdVb,
			"waitfile": cmdWaitfile,
			"pidsgone": cmdPidsgone,
			"json":     cmdJSON,
		},
	})
}

// vb CODE args...: run vbench and require exit status CODE; stdout and
// stderr are kept for the stdout/stderr commands.
func cmdVb(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: vb CODE args...")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("vb: bad exit code %q", args[0])
	}
	err = ts.Exec("vbench", args[1:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("vb: %v", err)
	}
	if got != want {
		ts.Fatalf("vbench %s: exit status %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}

// waitfile FILE: wait (up to a minute) until FILE exists and is not empty.
func cmdWaitfile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	p := ts.MkAbs(args[0])
	for i := 0; i < 600; i++ {
		if fi, err := os.Stat(p); err == nil && fi.Size() > 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	ts.Fatalf("%s did not appear", args[0])
}

// pidsgone FILE: every pid listed in FILE is dead (or a zombie).
func cmdPidsgone(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: pidsgone FILE")
	}
	for _, f := range strings.Fields(ts.ReadFile(args[0])) {
		pid, err := strconv.Atoi(f)
		ts.Check(err)
		if alive(pid) {
			ts.Fatalf("process %d is still running", pid)
		}
	}
}

func alive(pid int) bool {
	// A killed grandchild is reparented and reaped by init; allow a moment.
	for i := 0; i < 50; i++ {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return false
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		if fs := strings.Fields(string(b)); len(fs) > 2 && fs[2] == "Z" {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
	return true
}

// json FILE PATH WANT: the value at PATH (dot-separated keys and indices;
// "len" of an array or object gives its length) printed with %v equals WANT.
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: json FILE PATH WANT")
	}
	var v any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &v))
	for _, seg := range strings.Split(args[1], ".") {
		switch x := v.(type) {
		case map[string]any:
			if seg == "len" {
				v = float64(len(x))
				continue
			}
			var ok bool
			if v, ok = x[seg]; !ok {
				v = nil
			}
		case []any:
			if seg == "len" {
				v = float64(len(x))
				continue
			}
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				ts.Fatalf("json %s: no element %q", args[1], seg)
			}
			v = x[i]
		default:
			ts.Fatalf("json %s: %q is not inside an object or array", args[1], seg)
		}
	}
	got := fmt.Sprint(v)
	if (got == args[2]) == neg {
		ts.Fatalf("json %s %s = %s, want %s%s", args[0], args[1], got, map[bool]string{true: "not ", false: ""}[neg], args[2])
	}
}
