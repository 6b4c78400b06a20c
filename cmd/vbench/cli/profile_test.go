package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"vbench/internal/machine"
	"vbench/internal/profile"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
	"vbench/reports/profileview"
)

// runVbench runs the real vbench binary and returns stdout, stderr, exit code.
func runVbench(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	testbin.ProfilerLib(t) // built next to vbench, where vbench looks by default
	cmd := exec.Command(testbin.Vbench(t), args...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running vbench: %v", err)
	}
	return so.String(), se.String(), cmd.ProcessState.ExitCode()
}

func TestProfilePassesThroughExitCodeAndStdout(t *testing.T) {
	dll := testapp.DLL(t)
	plain := testapp.Run(t, nil, "exitcode", "7")
	out := t.TempDir()
	stdout, stderr, code := runVbench(t, "profile", "--mode", "tracing", "--out", out, "--", "dotnet", dll, "exitcode", "7")
	if code != 7 {
		t.Fatalf("exit %d, want the program's 7\n%s", code, stderr)
	}
	if stdout != plain.Stdout {
		t.Fatalf("stdout %q, want the program's own %q", stdout, plain.Stdout)
	}
	if !strings.Contains(stderr, "profile of pid") || !strings.Contains(stderr, out) {
		t.Errorf("stderr does not say where the profile went:\n%s", stderr)
	}
	if _, err := profile.ReadFile(out); err != nil {
		t.Errorf("--out %s: %v", out, err)
	}
}

func TestProfileTableOnStderr(t *testing.T) {
	dll := testapp.DLL(t)
	stdout, stderr, code := runVbench(t, "profile", "--mode", "tracing", "--top", "5", "dotnet", dll, "loop", "1000")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "VbTest.") || strings.Contains(stdout, "FUNCTION") {
		t.Errorf("stdout should be the program's only:\n%s", stdout)
	}
	// The table `vbench report PROFILE` starts with: the same header, and
	// Step's exact call count in the calls column before its name.
	for _, want := range []string{"\n\nTop ", " functions by exclusive wall-clock time (total ", "  excl  excl%", "incl%  calls  function\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("table on stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !regexp.MustCompile(`(?m)^ +\S+ +\d+\.\d% +\S+ +\d+\.\d% +1000  VbTest\.Loop\.Step\b`).MatchString(stderr) {
		t.Errorf("no row for VbTest.Loop.Step with 1000 calls:\n%s", stderr)
	}
}

func TestProfileJSON(t *testing.T) {
	dll := testapp.DLL(t)
	stdout, stderr, code := runVbench(t, "profile", "--mode", "tracing", "--format", "json", "--top", "1000", "--", "dotnet", dll, "throw", "4")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// The program's own stdout comes first, then vbench's JSON object.
	i := strings.Index(stdout, "{")
	if i < 0 || !strings.HasPrefix(stdout, "caught=4 after=4\n") {
		t.Fatalf("stdout:\n%s", stdout)
	}
	var doc struct {
		Mode      string `json:"mode"`
		ExitCode  *int   `json:"exit_code"`
		Functions []map[string]json.RawMessage
	}
	dec := json.NewDecoder(strings.NewReader(stdout[i:]))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("decoding the JSON: %v\n%s", err, stdout[i:])
	}
	if doc.Mode != "tracing" || doc.ExitCode == nil || *doc.ExitCode != 0 || len(doc.Functions) == 0 {
		t.Fatalf("document: %+v", doc)
	}
	keys := []string{"name", "module", "calls", "inclusive_ns", "exclusive_ns", "inclusive_samples", "exclusive_samples", "callers"}
	found := false
	for _, f := range doc.Functions {
		for _, k := range keys {
			if _, ok := f[k]; !ok {
				t.Fatalf("function %s lacks %q", f["name"], k)
			}
		}
		if string(f["name"]) == `"VbTest.Throws.Thrower"` {
			found = true
			var callers []struct {
				Name  string
				Calls int64
			}
			json.Unmarshal(f["callers"], &callers)
			if string(f["calls"]) != "4" || len(callers) != 1 || callers[0].Name != "VbTest.Throws.Middle" || callers[0].Calls != 4 {
				t.Errorf("Thrower: calls %s callers %+v", f["calls"], callers)
			}
		}
	}
	if !found {
		t.Errorf("VbTest.Throws.Thrower not in the JSON")
	}
}

func TestProfileMissingLibrary(t *testing.T) {
	_, stderr, code := runVbench(t, "profile", "--profiler", filepath.Join(t.TempDir(), "nope.so"), "--", "true")
	if code != ExitUsage || !strings.Contains(stderr, "does not exist") {
		t.Fatalf("exit %d, stderr %q; want exit %d and a clear message", code, stderr, ExitUsage)
	}
	notELF := filepath.Join(t.TempDir(), "lib.so")
	os.WriteFile(notELF, []byte("not a library"), 0o644)
	_, stderr, code = runVbench(t, "profile", "--profiler", notELF, "--", "true")
	if code != ExitUsage || !strings.Contains(stderr, "not an ELF") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestProfileNotDotnet(t *testing.T) {
	_, stderr, code := runVbench(t, "profile", "--mode", "sampling", "--", "true")
	if code != ExitFailed || !strings.Contains(stderr, "no profile was written") {
		t.Fatalf("exit %d, stderr %q; want %d and an explanation", code, stderr, ExitFailed)
	}
}

func TestProfileUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"profile", "--mode", "none", "--", "true"}, `--mode "none"`},
		{[]string{"profile", "--mode", "sampling", "--interval", "10s", "--", "true"}, "--interval 10s"},
		{[]string{"profile", "--format", "xml", "--", "true"}, `--format "xml"`},
		{[]string{"profile", "--time-sample", "3", "--", "true"}, "--time-sample 3"},
		// A flag the engine does not read would silently do nothing.
		{[]string{"profile", "--mode", "tracing", "--interval", "1ms", "--", "true"}, "--interval does nothing under --mode tracing: only sampling, suspend-sampling read it"},
		{[]string{"profile", "--mode", "sampling", "--max-stack", "64", "--", "true"}, "--max-stack does nothing under --mode sampling: only suspend-sampling read it"},
		{[]string{"profile", "--mode", "sampling", "--time-sample", "4", "--", "true"}, "--time-sample does nothing under --mode sampling: only tracing, instrumentation read it"},
		{[]string{"profile", "--mode", "null", "--no-inline", "--", "true"}, "--no-inline does nothing under --mode null"},
		{[]string{"profile", "--top", "0", "--", "true"}, "--top 0: must be >= 1"},
		{[]string{"profile", "--top", "-1", "--", "true"}, "--top -1: must be >= 1"},
		{[]string{"profile"}, "requires at least 1 arg"},
	} {
		if _, stderr, code := runVbench(t, tc.args...); code != ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d stderr %q, want %d and %q", tc.args, code, stderr, ExitUsage, tc.want)
		}
	}
}

// A program that dies of an unhandled exception keeps its profile: `vbench
// profile` exits with the program's code (134: SIGABRT), says the profile is
// incomplete and why, and `vbench report DIR` reads it the same way. One
// killed outright (SIGKILL) leaves only started.json: the error then says the
// profiler started and the program died, not that the runtime never loaded it.
func TestProfileOfACrash(t *testing.T) {
	dll := testapp.DLL(t)
	out := t.TempDir()
	summary := filepath.Join(t.TempDir(), "summary.json")
	_, stderr, code := runVbench(t, "profile", "--out", out, "--json", summary, "--", "dotnet", dll, "throw-deep", "3")
	const note = "incomplete profile, written when the process ended (unhandled exception System.InvalidOperationException)"
	if code != 134 || !strings.Contains(stderr, "vbench: warning: "+note) || !regexp.MustCompile(`(?m)^ +\S+ +\S+ +\S+ +\S+ +4  VbTest\.Crasher\.Down$`).MatchString(stderr) {
		t.Fatalf("exit %d (want 134), stderr:\n%s", code, stderr)
	}
	// The JSON summary says why it is incomplete too (it said complete: false alone).
	var doc profileview.ProfileJSON
	if b, err := os.ReadFile(summary); err != nil || json.Unmarshal(b, &doc) != nil || len(doc.Processes) != 1 ||
		doc.Complete || doc.Processes[0].Cause != "unhandled exception System.InvalidOperationException" {
		t.Errorf("--json summary: %v %+v", err, doc)
	}
	report, rerr, code := runVbench(t, "report", out)
	if code != 0 || !strings.Contains(report, "warning: "+note) {
		t.Errorf("vbench report %s: exit %d\n%s%s", out, code, report, rerr)
	}

	out = t.TempDir()
	_, stderr, code = runVbench(t, "profile", "--out", out, "--", "dotnet", dll, "crash-kill")
	const died = ") started and wrote none: it died of signal 9 (killed) before writing its profile"
	if code != 137 || !strings.Contains(stderr, died) || strings.Contains(stderr, "did not load") {
		t.Errorf("killed program: exit %d (want 137), stderr:\n%s", code, stderr)
	}
	// vbench report DIR says it too: vbench profile recorded it (ended.json).
	_, rerr, code = runVbench(t, "report", out)
	if code != ExitUsage || !strings.Contains(rerr, "no process wrote its profile (pid ") || !strings.Contains(rerr, died) {
		t.Errorf("vbench report of the killed program's directory: exit %d\n%s", code, rerr)
	}
}

// Ctrl-C in a terminal sends SIGINT to the whole foreground process group:
// vbench and the program both get it (and vbench forwards it once more). The
// program keeps its profile: vbench exits 130 (the program's), says the
// profile is incomplete because of SIGINT and shows its table; SIGTERM to
// vbench alone (forwarded) does the same with 143.
func TestProfileKeepsProfileOnCtrlC(t *testing.T) {
	dll := testapp.DLL(t)
	testbin.ProfilerLib(t)
	for _, c := range []struct {
		sig   syscall.Signal
		group bool
		code  int
	}{{syscall.SIGINT, true, 130}, {syscall.SIGTERM, false, 143}} {
		cmd, se, wait := profileUntilReady(t, dll, "7")
		if c.group {
			syscall.Kill(-cmd.Process.Pid, c.sig)
		} else {
			cmd.Process.Signal(c.sig)
		}
		note := "incomplete profile, written when the process ended (interrupted by " + unix.SignalName(c.sig) + ")"
		if code := wait(); code != c.code || !strings.Contains(se.String(), "vbench: warning: "+note) ||
			!regexp.MustCompile(`(?m)  7  VbTest\.Loop\.Step$`).MatchString(se.String()) {
			t.Errorf("%v: exit %d (want %d), stderr:\n%s", c.sig, code, c.code, se.String())
		}
	}
}

// vbench profile's times are wall-clock, so it warns of a busy machine as
// `vbench run` does: here the test itself keeps every core busy while the
// program runs (longer than machine.MinBusySpan, so the figure is measured,
// not the load average), then stops it with SIGTERM.
func TestProfileWarnsOfABusyMachine(t *testing.T) {
	dll := testapp.DLL(t)
	testbin.ProfilerLib(t)
	stop := make(chan struct{})
	for i := 0; i < runtime.NumCPU(); i++ {
		go func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	}
	cmd, se, wait := profileUntilReady(t, dll, "1")
	time.Sleep(machine.MinBusySpan() + time.Second)
	cmd.Process.Signal(syscall.SIGTERM)
	wait()
	close(stop)
	if !regexp.MustCompile(`vbench: warning: the machine was busy: other processes kept \d+\.\d of its \d+ cores busy while the program ran, so its wall-clock times are noisier than usual`).MatchString(se.String()) {
		t.Errorf("no busy-machine warning, stderr:\n%s", se.String())
	}
}

// The hint of a run that left no profile names the program: the assembly of
// `dotnet X.dll`, never "dotnet" (which is .NET); and when --processes
// matched nothing it says so, without asking whether the program is .NET.
func TestProfileNoProfileHintNamesTheProgram(t *testing.T) {
	dll := testapp.DLL(t)
	_, stderr, code := runVbench(t, "profile", "--processes", "nomatch", "--", "dotnet", dll, "exitcode", "0")
	want := `(--processes "nomatch" matched the command line of no process of "VbTestApp.dll": each declined the profiler; leave --processes out to profile every .NET process, or match the command line of the one you want)`
	if code != ExitFailed || !strings.Contains(stderr, want) || strings.Contains(stderr, ".NET program?") {
		t.Errorf("--processes matching nothing: exit %d, stderr:\n%s\nwant %s", code, stderr, want)
	}
	_, stderr, code = runVbench(t, "profile", "--", "true")
	if want := `(the runtime did not load the profiler: is "true" a .NET program? see ` + "`vbench doctor`)"; code != ExitFailed || !strings.Contains(stderr, want) {
		t.Errorf("not .NET: exit %d, stderr:\n%s\nwant %s", code, stderr, want)
	}
}

// profileUntilReady starts `vbench profile -- dotnet DLL stop-sleep n` in a
// process group of its own (as a terminal's foreground job) and returns once
// the program said "ready"; wait waits for vbench and returns its exit code.
func profileUntilReady(t *testing.T, dll, n string) (cmd *exec.Cmd, stderr *bytes.Buffer, wait func() int) {
	t.Helper()
	cmd = exec.Command(testbin.Vbench(t), "profile", "--out", t.TempDir(), "--", "dotnet", dll, "stop-sleep", n)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr = &bytes.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && sc.Text() != "ready" {
	}
	return cmd, stderr, func() int {
		io.Copy(io.Discard, stdout)
		cmd.Wait()
		return cmd.ProcessState.ExitCode()
	}
}

// A program that takes SIGPROF, the sampling engine's signal, blinds the
// sampler. Ignored: the profile says why it has so few samples (stderr
// and profile.json) and vbench profile exits 3, the profiler having
// failed; it exited 0 with a believable table (Main 100 %). Reset to its
// default action: the program dies of SIGPROF at the next tick, and the
// error says what most likely did it.
func TestProfileOfABlindedSampler(t *testing.T) {
	dll := testapp.DLL(t)
	out := t.TempDir()
	_, stderr, code := runVbench(t, "profile", "--mode", "sampling", "--interval", "1ms", "--out", out, "--", "dotnet", dll, "sigprof", "300", "ign")
	if code != ExitFailed || !strings.Contains(stderr, "vbench-profiler: the program took SIGPROF") ||
		!regexp.MustCompile(`vbench: warning: incomplete profile: sampling stopped [0-9.]+ s in: the program took SIGPROF, the sampling engine's signal; it is now ignored \(SIG_IGN\)`).MatchString(stderr) {
		t.Errorf("SIG_IGN: exit %d (want %d), stderr:\n%s", code, ExitFailed, stderr)
	}
	report, rerr, code := runVbench(t, "report", out)
	if code != 0 || !strings.Contains(report, "warning: incomplete profile: sampling stopped") {
		t.Errorf("vbench report %s: exit %d\n%s%s", out, code, report, rerr)
	}
	// Mostly killed by the next tick; when the drain sees SIG_DFL first, the
	// ticks stop and the program lives, its profile as SIG_IGN's.
	_, stderr, code = runVbench(t, "profile", "--mode", "sampling", "--interval", "1ms", "--out", t.TempDir(), "--", "dotnet", dll, "sigprof", "300", "dfl")
	killed := code == 128+int(syscall.SIGPROF) && strings.Contains(stderr, "died of signal 27 (profiling timer expired) before writing its profile (SIGPROF is the sampling engine's signal: the program most likely reset it to its default action")
	seen := code == ExitFailed && strings.Contains(stderr, "vbench: warning: incomplete profile: sampling stopped") && strings.Contains(stderr, "it is now reset to its default action (SIG_DFL)")
	if !killed && !seen {
		t.Errorf("SIG_DFL: exit %d (want 155, or 3 when the profiler saw it first), stderr:\n%s", code, stderr)
	}
}
