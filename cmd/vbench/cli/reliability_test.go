package cli_test

// Reliability: bad input, faults and stress lose nothing. These tests run the
// real vbench binary on real processes (internal/fakework, .NET workloads,
// the real profiler library) and check exit codes, messages and what is left
// on disk. docs/reliability.md maps each row of the catalogue to its test.

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"vbench/internal/summary"

	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
)

// vbRun runs vbench in dir with env (nil: the test's own environment) and
// returns stdout, stderr and the exit code (internal/testbin).
func vbRun(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	return testbin.Run(t, dir, env, args...)
}

// fakeSuite writes dir/bench/suite.yaml measuring fakework (which counts its
// launches in dir/bench/launches.txt) and returns the suite's path.
func fakeSuite(t *testing.T, dir, name string, modes string) string {
	t.Helper()
	fw := testbin.Fakework(t)
	p := filepath.Join(dir, "bench", "suite.yaml")
	writeFile(t, p, "name: "+name+"\nruns: 2\nwarmup: 0\nmodes: ["+modes+"]\nworkloads:\n  - name: a\n    command: ["+fw+", -counter, launches.txt]\n")
	return p
}

func launches(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "bench", "launches.txt"))
	return string(b)
}

func fileHash(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// --- profiler library of another architecture or class ------------------

// wrongArchLibraries returns real ELF files the profiler host cannot load:
// copies of the real library with the machine or the class changed, an
// i386 shared object exporting DllGetClassObject (gcc -m32), an AArch64
// position-independent executable (Go's own cross-compiler), and an x86-64
// shared object without the COM entry point. Each comes with the problem
// vbench must name.
func wrongArchLibraries(t *testing.T) map[string][2]string {
	t.Helper()
	dir := t.TempDir()
	real, err := os.ReadFile(testbin.ProfilerLib(t))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]string{}
	patch := func(name string, off int, b []byte, problem string) {
		c := append([]byte(nil), real...)
		copy(c[off:], b)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, c, 0o755); err != nil {
			t.Fatal(err)
		}
		out[name] = [2]string{p, problem}
	}
	// e_machine (offset 18, little-endian) = EM_AARCH64; EI_CLASS (offset 4) = ELFCLASS32.
	patch("aarch64-machine.so", 18, binary.LittleEndian.AppendUint16(nil, uint16(elf.EM_AARCH64)), "built for ELFCLASS64/EM_AARCH64")
	patch("class32.so", 4, []byte{byte(elf.ELFCLASS32)}, "built for ELFCLASS32/EM_X86_64")

	src := filepath.Join(dir, "entry.c")
	writeFile(t, src, "int DllGetClassObject(void *a, void *b, void **c) { return 0; }\n")
	i386 := filepath.Join(dir, "i386.so")
	if b, err := exec.Command("gcc", "-m32", "-shared", "-nostdlib", "-fPIC", "-o", i386, src).CombinedOutput(); err != nil {
		t.Logf("no i386 object (gcc -m32 -nostdlib: %v: %s); the patched copies still cover the 32-bit class", err, b)
	} else {
		out["i386.so"] = [2]string{i386, "built for ELFCLASS32/EM_386"}
	}

	// Right architecture, but no COM entry point: not a CoreCLR profiler.
	noEntry := filepath.Join(dir, "no-entry.so")
	writeFile(t, filepath.Join(dir, "f.c"), "int f(void) { return 0; }\n")
	if b, err := exec.Command("gcc", "-shared", "-fPIC", "-o", noEntry, filepath.Join(dir, "f.c")).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	out["no-entry.so"] = [2]string{noEntry, "does not export DllGetClassObject; it is not a CoreCLR profiler"}

	mod := filepath.Join(dir, "arm")
	writeFile(t, filepath.Join(mod, "go.mod"), "module arm\n")
	writeFile(t, filepath.Join(mod, "main.go"), "package main\n\nfunc main() {}\n")
	arm := filepath.Join(dir, "arm64-pie.so")
	build := exec.Command("go", "build", "-buildmode=pie", "-o", arm, ".")
	build.Dir = mod
	build.Env = append(os.Environ(), "GOARCH=arm64", "CGO_ENABLED=0", "GOFLAGS=")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cross-building an arm64 PIE: %v\n%s", err, b)
	}
	out["arm64-pie.so"] = [2]string{arm, "built for ELFCLASS64/EM_AARCH64"}
	return out
}

// A profiler library of another architecture stops `vbench run` and
// `vbench profile` before anything runs: exit 2, naming the file and why.
func TestProfilerLibraryWrongArchitecture(t *testing.T) {
	libs := wrongArchLibraries(t)
	names := make([]string, 0, len(libs))
	for n := range libs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		lib, problem := libs[name][0], libs[name][1]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			suite := fakeSuite(t, dir, "arch", "none, tracing")
			_, stderr, code := vbRun(t, dir, nil, "run", suite, "--quiet", "--profiler", lib, "--json", "r.json")
			if code != 2 || !strings.Contains(stderr, "profiler library unusable: "+lib) || !strings.Contains(stderr, problem) {
				t.Errorf("vbench run: exit %d, want 2 naming %s and %q:\n%s", code, lib, problem, stderr)
			}
			if n := launches(dir); n != "" {
				t.Errorf("vbench run launched the workload %s times before refusing the library", n)
			}
			if _, err := os.Stat(filepath.Join(dir, "r.json")); err == nil {
				t.Errorf("vbench run wrote results although it refused the library")
			}
			marker := filepath.Join(dir, "ran")
			_, stderr, code = vbRun(t, dir, nil, "profile", "--profiler", lib, "--", "touch", marker)
			if code != 2 || !strings.Contains(stderr, lib) || !strings.Contains(stderr, problem) {
				t.Errorf("vbench profile: exit %d, want 2 naming %s and %q:\n%s", code, lib, problem, stderr)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("vbench profile ran the program although it refused the library")
			}
			// Another build of the profiler named by a mode of the suite is
			// checked when the suite is read: file, line and field.
			other := fakeSuite(t, dir, "arch", "none, {name: other, engine: tracing, profiler: "+lib+"}")
			_, stderr, code = vbRun(t, dir, nil, "run", other, "--quiet", "--json", "r.json")
			if want := other + ":4: modes[1](other).profiler: profiler library unusable: " + lib; code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, problem) {
				t.Errorf("a mode's profiler: exit %d, want 2 with %q and %q:\n%s", code, want, problem, stderr)
			}
			if n := launches(dir); n != "" {
				t.Errorf("vbench run launched the workload %s times before refusing the mode's library", n)
			}
		})
	}
}

// --- a profiler that loads but fails to initialise ----------------------

// The real profiler, loaded into a real .NET workload, refuses its
// configuration (VBENCH_TIME_SAMPLE=3 from the workload's env): CoreCLR then
// runs the program unprofiled. vbench must fail those cells (exit 3) quoting
// the profiler's reason, never report an unprofiled run as profiled, and
// still measure and save every other cell.
func TestProfilerInitFailureFailsTheCell(t *testing.T) {
	testbin.ProfilerLib(t) // next to vbench, where run looks for it
	dll := testbin.Workload(t, "benchmarks/fibonacci/Fibonacci.csproj")
	dotnet := testbin.Dotnet(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: initfail
runs: 1
warmup: 0
modes: [none, tracing, sampling]
baseline: none.json
workloads:
  - name: refused
    command: [`+dotnet+`, `+dll+`, --n, "12", --iterations, "2"]
    env: {VBENCH_TIME_SAMPLE: "3"}
  - name: fine
    command: [`+dotnet+`, `+dll+`, --n, "12", --iterations, "2"]
`)
	stdout, stderr, code := vbRun(t, dir, nil, "run", "suite.yaml", "--quiet", "--json", "r.json")
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, stdout, stderr)
	}
	const reason = `profiler did not initialise, so the run was unprofiled: vbench-profiler: VBENCH_TIME_SAMPLE="3" is not 1 or a power of two up to 1024; running unprofiled`
	f, err := results.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []modes.Mode{modes.Tracing, modes.Sampling} {
		c := f.Find("refused", mode)
		if c == nil || c.Verdict != results.VerdictFailed || c.Runs != 0 || !strings.Contains(c.Failure, reason) {
			t.Errorf("refused/%s: want failed with %q, got %+v", mode, reason, c)
		}
		if !strings.Contains(stdout, "FAILED refused/"+string(mode)+": ") {
			t.Errorf("the table does not list refused/%s as failed:\n%s", mode, stdout)
		}
		if c := f.Find("fine", mode); c == nil || c.Failed() || c.Runs != 1 || c.Accuracy == nil && mode == "tracing" {
			t.Errorf("fine/%s was not measured (with exact call counts under tracing): %+v", mode, c)
		} else if mode == "tracing" && c.Accuracy.Exact != c.Accuracy.Checked {
			t.Errorf("fine/tracing call counts: %+v", c.Accuracy)
		}
	}
	if c := f.Find("refused", "none"); c == nil || c.Failed() || c.Runs != 1 {
		t.Errorf("refused/none (no profiler, nothing to refuse) should be measured: %+v", c)
	}
}

// A profile that is truncated, corrupt or of another schema fails its cell
// (exit 3) naming the file and the problem: the run is never counted as
// profiled. Other cells are measured.
func TestUnreadableProfileFailsTheCell(t *testing.T) {
	fw, fp := testbin.Fakework(t), testbin.FakeProfiler(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: badprofile
runs: 1
warmup: 0
modes: [none, tracing]
baseline: none.json
workloads:
  - name: truncated
    command: [`+fw+`, -raw-profile, '{"schema":1,"mode":"tracing","functions":[{"id":0']
  - name: trailing
    command: [`+fw+`, -raw-profile, '{"schema":1,"mode":"tracing","functions":[],"threads":[]}{"schema":1}']
  - name: future
    command: [`+fw+`, -raw-profile, '{"schema":99,"mode":"tracing","functions":[],"threads":[]}']
  - name: fine
    command: [`+fw+`]
`)
	stdout, stderr, code := vbRun(t, dir, nil, "run", "suite.yaml", "--quiet", "--profiler", fp)
	if code != 3 {
		t.Fatalf("exit %d, want 3:\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		`FAILED truncated/tracing: profiler wrote an unreadable profile: `,
		`/profile.json:1:49: truncated JSON (file ends early)`,
		`FAILED trailing/tracing: profiler wrote an unreadable profile: `,
		`/profile.json: corrupt profile: more data after the profile, which ends at byte 57`,
		`FAILED future/tracing: profiler wrote an unreadable profile: `,
		`/profile.json: profile schema 99 is newer than this vbench reads`,
		"3 failed, 5 new",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

// A profiler.interval outside what the profiler accepts is refused when the
// suite is read (exit 2), before any build or run.
func TestSuiteIntervalTheProfilerRejects(t *testing.T) {
	dir := t.TempDir()
	suite := fakeSuite(t, dir, "interval", "none, sampling")
	b, _ := os.ReadFile(suite)
	writeFile(t, suite, strings.Replace(string(b), "workloads:", "profiler:\n  interval: 2s\nworkloads:", 1))
	_, stderr, code := vbRun(t, dir, nil, "run", suite, "--quiet", "--profiler", testbin.FakeProfiler(t))
	if code != 2 || !strings.Contains(stderr, "suite.yaml:6: profiler.interval: must be between 1ms and 1s") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if n := launches(dir); n != "" {
		t.Errorf("launched %s times", n)
	}
}

// --- outputs that cannot be written --------------------------------------

// Every output vbench writes is checked before anything is measured: a path
// under a regular file (ENOTDIR, which stops root too), /proc and /sys.
// Exit 2 naming the path; nothing launched, nothing left behind.
func TestUnwritableOutputsRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	suite := fakeSuite(t, dir, "unwritable", "none")
	notDir := filepath.Join(dir, "plainfile")
	writeFile(t, notDir, "I am a file, not a directory\n")
	// A results file to report and merge.
	if _, stderr, code := vbRun(t, dir, nil, "run", suite, "--quiet", "--json", "r.json"); code != 0 {
		t.Fatalf("making results: exit %d %s", code, stderr)
	}
	os.Remove(filepath.Join(dir, "bench", "launches.txt"))
	for _, bad := range []string{filepath.Join(notDir, "out"), "/proc/vbench-test", "/sys/vbench-test"} {
		cases := []struct {
			name string
			args []string
			path string // named in the message
		}{
			{"run --json", []string{"run", suite, "--quiet", "--json", bad + "/r.json"}, bad},
			{"baseline update", []string{"baseline", "update", suite, "--quiet", "--baseline", bad + "/b.json"}, bad},
			{"baseline update --from", []string{"baseline", "update", suite, "--from", "r.json", "--baseline", bad + "/b.json"}, bad},
			{"merge -o", []string{"merge", "r.json", "-o", bad + "/m.json"}, bad},
			{"report -o", []string{"report", "r.json", "-o", bad + "/report.html"}, bad},
			{"report --junit", []string{"report", "r.json", "--junit", bad + "/junit.xml"}, bad},
			{"profile --out", []string{"profile", "--profiler", testbin.FakeProfiler(t), "--out", bad + "/prof", "--", "touch", filepath.Join(dir, "profiled-ran")}, bad},
		}
		for _, c := range cases {
			t.Run(c.name+" "+bad, func(t *testing.T) {
				_, stderr, code := vbRun(t, dir, nil, c.args...)
				if code != 2 || !strings.Contains(stderr, c.path) {
					t.Errorf("exit %d, want 2 with %s named:\n%s", code, c.path, stderr)
				}
				if n := launches(dir); n != "" {
					t.Errorf("launched the workload %s times before refusing the output", n)
				}
				if _, err := os.Stat(filepath.Join(dir, "profiled-ran")); err == nil {
					t.Errorf("vbench profile ran the program before refusing --out")
				}
			})
		}
	}
	// A directory that exists and takes no file: said as such, whatever errno
	// the file system gives (/proc: ENOENT, /sys: EACCES).
	for _, d := range []string{"/proc", "/sys"} {
		_, stderr, code := vbRun(t, dir, nil, "run", suite, "--quiet", "--junit", d+"/x.xml")
		if want := d + "/x.xml: cannot create a file in output directory " + d + ": "; code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("--junit %s/x.xml: exit %d, want 2 and %q:\n%s", d, code, want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bench", "baselines")); err == nil {
		t.Errorf("a baselines directory appeared")
	}
}

// An unusable TMPDIR (a regular file, a directory that does not exist) is a
// configuration error found before anything runs: exit 2 naming TMPDIR. It
// used to fail every cell ("cannot create a work directory"), exit 3, as if
// the workloads had failed.
func TestUnusableTmpdirRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	suite := fakeSuite(t, dir, "tmpdir", "none")
	plain := filepath.Join(dir, "plainfile")
	writeFile(t, plain, "I am a file, not a directory\n")
	for _, tmp := range []string{plain, filepath.Join(dir, "nowhere")} {
		env := append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }), "TMPDIR="+tmp)
		for _, args := range [][]string{
			{"run", suite, "--quiet", "--json", "r.json"},
			{"baseline", "update", suite, "--quiet", "--baseline", "b.json"},
		} {
			_, stderr, code := vbRun(t, dir, env, args...)
			if code != 2 || !strings.Contains(stderr, "TMPDIR="+tmp) {
				t.Errorf("%v with TMPDIR=%s: exit %d, want 2 naming TMPDIR:\n%s", args[:2], tmp, code, stderr)
			}
			if n := launches(dir); n != "" {
				t.Errorf("%v with TMPDIR=%s: launched the workload %s times", args[:2], tmp, n)
			}
		}
		for _, f := range []string{"r.json", "b.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Errorf("TMPDIR=%s: %s was written", tmp, f)
			}
		}
	}
}

// The suite's default baseline directory cannot be created (a regular file
// is in the way): baseline update stops before running, exit 2.
func TestBaselineDirectoryBlocked(t *testing.T) {
	dir := t.TempDir()
	suite := fakeSuite(t, dir, "blocked", "none")
	writeFile(t, filepath.Join(dir, "bench", "baselines"), "not a directory\n")
	_, stderr, code := vbRun(t, dir, nil, "baseline", "update", suite, "--quiet")
	if code != 2 || !strings.Contains(stderr, filepath.Join(dir, "bench", "baselines")) {
		t.Errorf("exit %d, want 2 naming the baselines directory:\n%s", code, stderr)
	}
	if n := launches(dir); n != "" {
		t.Errorf("launched %s times", n)
	}
}

// A read-only file system (a read-only bind mount in a private mount
// namespace: the one case where permissions stop root) is refused up front
// like any other unwritable output.
func TestReadOnlyFilesystemOutputs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a private read-only bind mount; ENOTDIR, /proc and /sys are covered by TestUnwritableOutputsRefusedUpFront")
	}
	if err := exec.Command("unshare", "-m", "--propagation", "private", "true").Run(); err != nil {
		t.Skipf("cannot create a mount namespace here (%v); ENOTDIR, /proc and /sys are covered by TestUnwritableOutputsRefusedUpFront", err)
	}
	dir := t.TempDir()
	suite := fakeSuite(t, dir, "readonly", "none")
	if _, stderr, code := vbRun(t, dir, nil, "run", suite, "--quiet", "--json", "r.json"); code != 0 {
		t.Fatalf("making results: exit %d %s", code, stderr)
	}
	os.Remove(filepath.Join(dir, "bench", "launches.txt"))
	ro := filepath.Join(dir, "ro")
	os.MkdirAll(filepath.Join(ro, "prof"), 0o755)
	vb := testbin.Vbench(t)
	for _, args := range [][]string{
		{"run", suite, "--quiet", "--json", ro + "/r.json"},
		{"baseline", "update", suite, "--quiet", "--baseline", ro + "/b.json"},
		{"merge", "r.json", "-o", ro + "/m.json"},
		{"report", "r.json", "-o", ro + "/report.md"},
		{"profile", "--profiler", testbin.FakeProfiler(t), "--out", ro + "/prof", "--", "touch", filepath.Join(dir, "profiled-ran")},
	} {
		cmd := exec.Command("unshare", append([]string{"-m", "--propagation", "private", "sh", "-c",
			`mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"`, ro, vb}, args...)...)
		cmd.Dir = dir
		var se bytes.Buffer
		cmd.Stderr = &se
		code := exitCode(t, cmd.Run())
		if code != 2 || !strings.Contains(se.String(), ro) || !strings.Contains(se.String(), "read-only file system") {
			t.Errorf("%v on a read-only mount: exit %d, want 2 naming %s:\n%s", args[:2], code, ro, se.String())
		}
	}
	if n := launches(dir); n != "" {
		t.Errorf("launched %s times", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "profiled-ran")); err == nil {
		t.Errorf("vbench profile ran the program before refusing --out")
	}
}

// --- bad baselines ---------------------------------------------------------

// The suite's own baseline (found, not named on the command line) being
// corrupt, truncated, of another schema version or wrongly typed stops the
// run before anything is launched: exit 2 with file and line. Nothing of the
// user's is touched.
func TestBadBaselineStopsTheRun(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"truncated", "{\n  \"schema\": 1,\n  \"suite\": {\"name\": \"bad\"},\n  \"results\": [\n    {\"workload\": \"a\",", "baselines/bad.json:5:21: truncated JSON (file ends early)"},
		{"corrupt", "{\n  \"schema\": 1,\n  \"suite\": {\"name\": \"bad\"}\n  \"results\": []\n}\n", "baselines/bad.json:4:3: malformed JSON: invalid character '\"' after object key:value pair"},
		{"schema 2", "{\"schema\": 2, \"suite\": {\"name\": \"bad\"}, \"cells\": {}}\n", "baselines/bad.json: results schema version 2, this vbench reads version 1 (re-create it with this vbench)"},
		{"wrong type", "{\n  \"schema\": 1,\n  \"suite\": {\"name\": \"bad\"},\n  \"results\": [{\"workload\": \"a\", \"mode\": \"none\", \"runs\": \"two\"}]\n}\n", "baselines/bad.json:4:61: field results.runs: int cannot hold a JSON string"},
		{"bad time", "{\n  \"schema\": 1,\n  \"suite\": {\"name\": \"bad\"},\n  \"started\": \"last tuesday\"\n}\n", "baselines/bad.json:4:27: field started: not a time"},
		{"empty", "", "baselines/bad.json: empty file, not a vbench results file"},
		{"a profile", `{"schema":1,"mode":"tracing","functions":[],"threads":[]}`, `baselines/bad.json: this is a profile, not a results file`},
		{"other suite", `{"schema": 1, "suite": {"name": "other"}, "results": []}`, `baselines/bad.json: baseline of suite "other", not "bad"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			suite := fakeSuite(t, dir, "bad", "none")
			base := filepath.Join(dir, "bench", "baselines", "bad.json")
			writeFile(t, base, c.content)
			before := fileHash(t, base)
			_, stderr, code := vbRun(t, dir, nil, "run", suite, "--quiet", "--json", "r.json")
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("vbench run: exit %d, want 2 with %q:\n%s", code, c.want, stderr)
			}
			if n := launches(dir); n != "" {
				t.Errorf("launched %s times before refusing the baseline", n)
			}
			// compare and report read baselines the same way.
			if _, stderr, code := vbRun(t, dir, nil, "compare", "bench/baselines/bad.json", "bench/baselines/bad.json"); code != 2 || !strings.Contains(stderr, "baselines/bad.json") {
				t.Errorf("vbench compare: exit %d:\n%s", code, stderr)
			}
			if fileHash(t, base) != before {
				t.Errorf("the bad baseline was modified")
			}
		})
	}
}

// --- a baseline is only ever changed by `baseline update` -----------------

func TestBaselineOnlyChangedByUpdate(t *testing.T) {
	dir := t.TempDir()
	suite := fakeSuite(t, dir, "guarded", "none")
	base := filepath.Join(dir, "bench", "baselines", "guarded.json")
	if _, stderr, code := vbRun(t, dir, nil, "baseline", "update", suite, "--quiet"); code != 0 {
		t.Fatalf("baseline update: exit %d %s", code, stderr)
	}
	want := fileHash(t, base)
	if _, stderr, code := vbRun(t, dir, nil, "run", suite, "--quiet", "--json", "r.json"); code != 0 {
		t.Fatalf("run: exit %d %s", code, stderr)
	}
	refused := [][]string{
		{"run", suite, "--quiet", "--json", "bench/baselines/guarded.json"},
		{"run", suite, "--quiet", "--no-baseline", "--json", "bench/baselines/guarded.json"},
		{"run", suite, "--quiet", "--baseline", "r.json", "--json", "bench/baselines/guarded.json"},
		{"baseline", "update", suite, "--quiet", "--json", "bench/baselines/guarded.json"},
		{"merge", "r.json", "-o", "bench/baselines/guarded.json"},
		{"report", "r.json", "--format", "markdown", "-o", "bench/baselines/guarded.json"},
		{"report", "r.json", "--junit", "bench/baselines/guarded.json"},
	}
	for _, args := range refused {
		_, stderr, code := vbRun(t, dir, nil, args...)
		if code != 2 || !strings.Contains(stderr, "baselines/guarded.json") || !strings.Contains(stderr, "baseline update") {
			t.Errorf("%v: exit %d, want 2 saying only baseline update writes baselines:\n%s", args, code, stderr)
		}
		if fileHash(t, base) != want {
			t.Fatalf("%v changed the baseline", args)
		}
	}
	// Runs that read the baseline, and updates that must not happen, leave it alone.
	fw := testbin.Fakework(t)
	writeFile(t, filepath.Join(dir, "failing.json"), "")
	bad := filepath.Join(dir, "bench", "failing.yaml")
	writeFile(t, bad, "name: guarded\nruns: 2\nwarmup: 0\nmodes: [none]\nbaseline: baselines/guarded.json\nworkloads:\n  - name: a\n    command: ["+fw+", -exit, \"4\"]\n")
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"run", suite, "--quiet"}, 0},
		{[]string{"compare", "bench/baselines/guarded.json", "r.json"}, 0},
		{[]string{"baseline", "update", bad, "--quiet"}, 3},                  // a failed cell
		{[]string{"baseline", "update", suite, "--from", "failing.json"}, 2}, // unreadable results
	} {
		_, stderr, code := vbRun(t, dir, nil, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d:\n%s", c.args, code, c.code, stderr)
		}
		if fileHash(t, base) != want {
			t.Fatalf("%v changed the baseline", c.args)
		}
	}
	// An interrupted update leaves the old baseline in place.
	stuck := filepath.Join(dir, "bench", "stuck.yaml")
	writeFile(t, stuck, "name: guarded\nruns: 2\nwarmup: 0\nmodes: [none]\nbaseline: baselines/guarded.json\ntimeout: 10m\nworkloads:\n  - name: a\n    command: ["+fw+", -hang, -pidfile, pids.txt]\n")
	cmd := exec.Command(testbin.Vbench(t), "baseline", "update", stuck, "--quiet")
	cmd.Dir = dir
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForPids(t, filepath.Join(dir, "bench", "pids.txt"), cmd)
	cmd.Process.Signal(syscall.SIGTERM)
	if code := exitCode(t, cmd.Wait()); code != 130 || !strings.Contains(se.String(), "the baseline was not changed") {
		t.Errorf("interrupted update: exit %d, want 130:\n%s", code, se.String())
	}
	if fileHash(t, base) != want {
		t.Fatalf("an interrupted update changed the baseline")
	}
	entries, _ := os.ReadDir(filepath.Dir(base))
	if len(entries) != 1 {
		t.Errorf("left in the baselines directory: %v", entries)
	}
}

// waitForPids waits (up to a minute) until a hanging fakework has written
// its own pid and its child's to pidfile; it kills cmd if that never happens.
func waitForPids(t *testing.T, pidfile string, cmd *exec.Cmd) {
	t.Helper()
	for i := 0; ; i++ {
		if b, err := os.ReadFile(pidfile); err == nil && len(strings.Fields(string(b))) == 2 {
			return
		}
		if i > 600 {
			cmd.Process.Kill()
			t.Fatalf("the workload never started hanging")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// assertPidsGone: every process listed in pidfile is dead (or a zombie).
func assertPidsGone(t *testing.T, pidfile string) {
	t.Helper()
	b, _ := os.ReadFile(pidfile)
	for _, p := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(p)
		if err != nil {
			t.Fatal(err)
		}
		if alive(pid) {
			t.Errorf("process %d survived", pid)
		}
	}
}

// A workload that reports elapsed_ns=0 (a kernel below the timer's
// resolution) once made a baseline whose median was 0, and every later
// run was judged "from 0 (p=0.002)", regressed, exit 1 (issue 39: a
// baseline without measured times judged against as 0s). Now such a
// baseline is not recorded (the old one, if any, kept), and one made by
// hand stops vbench run before anything runs: exit 2, the file and the
// cell named.
func TestBaselineWithoutMeasuredTimesIsRefused(t *testing.T) {
	fw := testbin.Fakework(t)
	dir := t.TempDir()
	suite := filepath.Join(dir, "bench", "suite.yaml")
	write := func(elapsed string) {
		writeFile(t, suite, "name: zero\nruns: 6\nwarmup: 0\nmodes: [none]\nworkloads:\n  - name: z\n    command: ["+fw+", -elapsed, \""+elapsed+"\"]\n")
	}
	write("0")
	base := filepath.Join(dir, "bench", "baselines", "zero.json")
	stdout, stderr, code := vbRun(t, dir, nil, "baseline", "update", suite, "--quiet")
	if code == 0 || !strings.Contains(stderr, "the baseline was not changed: the results: results[0] (z/none): measured run 1 of 6 has no elapsed (0)") {
		t.Fatalf("baseline update of runs without a time: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(base); !os.IsNotExist(err) {
		t.Fatalf("a baseline was written: %v", err)
	}
	// One written by hand: the run refuses it before running anything.
	write("1000")
	if _, stderr, code := vbRun(t, dir, nil, "baseline", "update", suite, "--quiet"); code != 0 {
		t.Fatalf("baseline update: exit %d %s", code, stderr)
	}
	f, err := results.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Results[0].Samples {
		f.Results[0].Samples[i].ElapsedNs = 0
	}
	if err := results.WriteFile(base, f); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = vbRun(t, dir, nil, "run", suite, "--quiet", "--json", "r.json")
	if code != 2 || !strings.Contains(stderr, base+": results[0] (z/none): measured run 1 of 6 has no elapsed (0)") {
		t.Fatalf("run against a baseline without times: exit %d, want 2 naming the file and cell:\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); !os.IsNotExist(err) {
		t.Errorf("the run ran: %v", err)
	}
}

// --- SIGTERM mid-suite -----------------------------------------------------

// SIGTERM (what CI runners send on cancel) behaves like Ctrl-C: children
// killed, results so far saved marked partial, exit 130, and no temporary
// file anywhere under the output directory, profiles included.
func TestSigtermSavesPartialResults(t *testing.T) {
	fw, fp := testbin.Fakework(t), testbin.FakeProfiler(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: sigterm
runs: 3
warmup: 0
modes: [none, tracing]
baseline: none.json
timeout: 10m
workloads:
  - name: good
    command: [`+fw+`, -calls, "F.G=3"]
  - name: stuck
    command: [`+fw+`, -counter, count.txt, -hang-at, "3", -pidfile, pids.txt]
`)
	out := filepath.Join(dir, "out", "r.json")
	os.MkdirAll(filepath.Dir(out), 0o755)
	cmd := exec.Command(testbin.Vbench(t), "run", "suite.yaml", "--json", out, "--quiet", "--profiler", fp, "--seed", "7")
	cmd.Dir = dir
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForPids(t, filepath.Join(dir, "pids.txt"), cmd)
	cmd.Process.Signal(syscall.SIGTERM)
	if code := exitCode(t, cmd.Wait()); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, se.String())
	}
	f, err := results.ReadFile(out)
	if err != nil || !f.Partial {
		t.Fatalf("partial results: %v %+v", err, f)
	}
	// stuck's first two launches were measured and saved, its third (the
	// interrupted one) dropped; good's runs before the signal are kept.
	stuck, good := 0, 0
	for _, c := range f.Results {
		for _, r := range c.Samples {
			if r.Error != "" {
				t.Errorf("%s: a failed run was recorded: %s", c.Key(), r.Error)
			}
		}
		if c.Workload == "stuck" {
			stuck += len(c.Samples)
		} else {
			good += len(c.Samples)
		}
	}
	if stuck != 2 || good < 1 {
		t.Errorf("saved runs: stuck %d (want 2), good %d (want >= 1)", stuck, good)
	}
	assertPidsGone(t, filepath.Join(dir, "pids.txt"))
	filepath.Walk(filepath.Dir(out), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && (strings.Contains(fi.Name(), ".tmp") || strings.HasPrefix(fi.Name(), ".")) {
			t.Errorf("half-written or temporary file left: %s", p)
		}
		return nil
	})
}

// --- commands run as argv, names stay inside, environment explicit --------

// A workload's command is an argv list run without a shell: metacharacters
// reach the program literally and nothing they would do in a shell happens.
func TestCommandsRunWithoutAShell(t *testing.T) {
	fw := testbin.Fakework(t)
	dir := t.TempDir()
	pwned := filepath.Join(dir, "pwned")
	// No spaces: the VBENCH line separates fields by spaces.
	evil := "$(touch${IFS}" + pwned + ");touch${IFS}" + pwned + "|touch${IFS}" + pwned + "&&`touch${IFS}" + pwned + "`>" + pwned + "*~\"'"
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: argv
runs: 1
warmup: 0
modes: [none]
baseline: none.json
workloads:
  - name: checksum
    command: [`+fw+`, -checksum, '`+strings.ReplaceAll(evil, "'", "''")+`']
  - name: echo
    command: [/bin/echo, "$(touch `+pwned+`)"]
`)
	_, stderr, code := vbRun(t, dir, nil, "run", "suite.yaml", "--quiet", "--json", "r.json")
	if code != 3 { // echo prints no VBENCH line: that cell fails
		t.Fatalf("exit %d, want 3 (echo prints no VBENCH line):\n%s", code, stderr)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatalf("a shell ran: %s was created", pwned)
	}
	f, err := results.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c := f.Find("checksum", "none"); c == nil || c.Failed() || c.Samples[0].Checksum != evil {
		t.Errorf("the argument did not arrive literally: %+v", c)
	}
	if c := f.Find("echo", "none"); c == nil || !strings.Contains(c.Failure, "last output: $(touch "+pwned+")") {
		t.Errorf("echo did not print its argument literally: %+v", c)
	}
}

// The child's environment is exactly the documented set: the parent's minus
// every profiler variable (CORECLR_*PROFIL*, DOTNET_*PROFIL*, VBENCH_*), plus
// the workload's env (overriding the parent), plus — in profiled modes only —
// attach.ProfiledDefaults (unless set already, as here), the profiler's variables from
// attach.Env and the suite's profiler settings that the mode's engine reads.
func TestChildEnvironmentIsExactlyTheDocumentedSet(t *testing.T) {
	fw, fp := testbin.Fakework(t), testbin.FakeProfiler(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: env
runs: 1
warmup: 0
modes: [none, null, tracing, instrumentation, sampling]
baseline: none.json
profiler:
  interval: 7ms
  include: [Fib, Other]
  exclude: [Skip]
workloads:
  - name: dump
    command: [`+fw+`, -write-env, env.txt, -counter, n.txt]
    env: {FROM_SUITE: "1", OVERRIDDEN: suite, VBENCH_TIME_SAMPLE: "4", VSTEST_TESTHOST_SHUTDOWN_TIMEOUT: "5"}
`)
	parent := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "KEEP_ME=yes", "OVERRIDDEN=parent",
		"CORECLR_ENABLE_PROFILING=1", "CORECLR_PROFILER={00000000-0000-0000-0000-000000000000}",
		"CORECLR_PROFILER_PATH=/evil.so", "CORECLR_PROFILER_PATH_64=/evil.so",
		"CORECLR_ENABLE_NOTIFICATION_PROFILERS=1", "CORECLR_NOTIFICATION_PROFILERS=/evil.so={0}",
		"DOTNET_PROFILER_PATH=/evil.so", "VBENCH_MODE=bogus", "VBENCH_DEBUG=1", "VBENCH_INTERVAL=1s",
	}
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "KEEP_ME=yes", "OVERRIDDEN=suite", "FROM_SUITE=1", "VBENCH_TIME_SAMPLE=4",
		"VSTEST_TESTHOST_SHUTDOWN_TIMEOUT=5"} // the workload's own, not attach.ProfiledDefaults' (profiled.txtar has those)
	for _, m := range modes.Builtins {
		mode := string(m)
		t.Run(mode, func(t *testing.T) {
			os.Remove(filepath.Join(dir, "env.txt"))
			if _, stderr, code := vbRun(t, dir, parent, "run", "suite.yaml", "--quiet", "--modes", mode, "--profiler", fp); code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			b, err := os.ReadFile(filepath.Join(dir, "env.txt"))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Fields(strings.TrimSpace(string(b)))
			want := append([]string(nil), base...)
			var profDir, lib, pad string
			for _, kv := range got {
				if v, ok := strings.CutPrefix(kv, "VBENCH_PROFILE_DIR="); ok {
					profDir = v
				}
				if v, ok := strings.CutPrefix(kv, "CORECLR_PROFILER_PATH="); ok {
					lib = v
				}
				if v, ok := strings.CutPrefix(kv, "VBENCH_ENV_PAD="); ok {
					pad = v
				}
			}
			// Every run: a pad of random length, so that no side of an A/B
			// pair keeps one stack offset for a whole run.
			if len(pad) > 255 || strings.Trim(pad, "x") != "" {
				t.Errorf("VBENCH_ENV_PAD=%q: want 0-255 x's", pad)
			}
			want = append(want, "VBENCH_ENV_PAD="+pad)
			if m != modes.None {
				if profDir == "" {
					t.Fatalf("no VBENCH_PROFILE_DIR in a profiled run: %v", got)
				}
				// A fresh copy of the build for the run, at one path
				// length whatever the build's; the build in VBENCH_PROFILER_BUILD.
				if filepath.Base(lib) != "libvbenchprof.so" || !strings.HasPrefix(filepath.Base(filepath.Dir(lib)), "lib-") {
					t.Errorf("the run loaded %s, not a copy of the build", lib)
				}
				// The suite's interval reaches only the engines that read it.
				want = append(want, attach.Env(lib, attach.Options{Engine: m.Engine(), ProfileDir: profDir, Settings: modes.ProfilerSettings{
					Interval: modes.Duration(7 * time.Millisecond), Include: []string{"Fib", "Other"}, Exclude: []string{"Skip"}}})...)
				want = append(want, attach.EnvBuild+"="+fp)
			}
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("child environment under %s:\n got %v\nwant %v", mode, got, want)
			}
		})
	}
}

// compare judges a partial NEW file (an interrupted run's) and exits by
// its verdicts: the cell that never ran is "not run", never "new" or a
// pass, and compare itself was not interrupted (it used to exit 130).
func TestCompareOfPartialFileExitsByVerdicts(t *testing.T) {
	dir := t.TempDir()
	cell := func(mode modes.Mode, n int) results.Cell {
		c := results.Cell{Workload: "w", Mode: mode, Samples: []results.Run{}}
		for i := 0; i < n; i++ {
			c.Samples = append(c.Samples, results.Run{Seq: i, ElapsedNs: int64(1e6 * (1 + float64(i%3)/1000))})
		}
		return c
	}
	file := func(partial bool, cells ...results.Cell) string {
		f := &results.File{Schema: results.SchemaVersion, Suite: results.Suite{Name: "s"}, Partial: partial,
			Settings: results.Settings{Runs: 10, Alpha: 0.01, Threshold: 0.05, Modes: []modes.Mode{modes.None, modes.Tracing}}, Results: cells}
		summary.Fill(f)
		path := filepath.Join(dir, map[bool]string{true: "new.json", false: "old.json"}[partial])
		if err := results.WriteFile(path, f); err != nil {
			t.Fatal(err)
		}
		return path
	}
	old := file(false, cell(modes.None, 10), cell(modes.Tracing, 10))
	cur := file(true, cell(modes.None, 10), cell(modes.Tracing, 0))
	out, stderr, code := vbRun(t, dir, nil, "compare", old, cur, "--junit", filepath.Join(dir, "j.xml"))
	if code != 0 {
		t.Fatalf("compare of a partial file: exit %d, want 0 (by its verdicts)\n%s%s", code, out, stderr)
	}
	if !strings.Contains(out, "1 not run, 1 same") || !strings.Contains(out, "not run: the cell has no measured run") {
		t.Errorf("table:\n%s", out)
	}
	j, _ := os.ReadFile(filepath.Join(dir, "j.xml"))
	if !strings.Contains(string(j), `<skipped message="w/tracing not run: no measured run`) {
		t.Errorf("JUnit does not skip the cell that never ran:\n%s", j)
	}
}

// A .NET program that dies of an unhandled exception or Environment.FailFast
// deep in its own code (the test program's throw-deep and failfast-deep: 41
// recursive frames under LINQ) fails its cell with the runtime's error line
// and the program's frames, not with the last lines of the stack (Main and
// the framework frames above it), which said nothing of what failed.
func TestCrashMessageKeepsTheErrorLine(t *testing.T) {
	dll, dotnet := testapp.DLL(t), testbin.Dotnet(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: crash
runs: 1
warmup: 0
modes: [none]
workloads:
  - name: throws
    command: [`+dotnet+`, `+dll+`, throw-deep]
  - name: failfast
    command: [`+dotnet+`, `+dll+`, failfast-deep]
`)
	stdout, stderr, code := vbRun(t, dir, ciEnv(), "run", "suite.yaml", "--quiet", "--no-baseline", "--json", "out/r.json")
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s%s", code, stdout, stderr)
	}
	f, err := results.ReadFile(filepath.Join(dir, "out", "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cell, want string }{
		{"throws", `^crashed: killed by SIGABRT: Unhandled exception\. System\.InvalidOperationException: boom at the bottom ` +
			`at VbTest\.Crasher\.Bottom\(Boolean fail\) in Crash\.cs:\d+ ` +
			`at VbTest\.Crasher\.Down\(Int32 depth, Boolean fail\) in Crash\.cs:\d+ ×41 ` +
			`at VbTest\.Crasher\S*<Throw>\S*\(Int32 _\) in Crash\.cs:\d+$`}, // the lambda in Throw
		{"failfast", `^crashed: killed by SIGABRT: Process terminated\. vbtest: giving up on purpose ` +
			`at VbTest\.Crasher\.Bottom\(Boolean\) at VbTest\.Crasher\.Down\(Int32, Boolean\) ×41 at VbTest\.Crasher\S*<FailFast>\S*\(Int32\)$`},
	} {
		cell := f.Find(c.cell, modes.None)
		if cell == nil {
			t.Fatalf("no cell %s/none", c.cell)
		}
		msg := cell.Failure
		if msg == "" && len(cell.Samples) > 0 {
			msg = cell.Samples[0].Error
		}
		if !regexp.MustCompile(c.want).MatchString(msg) {
			t.Errorf("%s/none failed with\n  %s\nwant the error line and the program's frames:\n  %s", c.cell, msg, c.want)
		}
		if !strings.Contains(stdout, "FAILED "+c.cell+"/none: "+msg) {
			t.Errorf("the table's FAILED line for %s/none is not the cell's failure:\n%s", c.cell, stdout)
		}
	}
}

// A profiled cell whose program crashes keeps the crashed run's profile:
// the cell fails with the program's own message (for a fault in native
// code, where the program prints nothing, the cause the profiler recorded:
// the signal and the address) and where the profile went; the profile there
// is marked incomplete with that cause and `vbench report DIR` reads it.
func TestRunKeepsACrashedRunsProfile(t *testing.T) {
	dll, dotnet := testapp.DLL(t), testbin.Dotnet(t)
	testbin.ProfilerLib(t) // next to vbench, where run looks for it
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: crash
runs: 1
warmup: 0
modes: [tracing]
workloads:
  - name: throws
    command: [`+dotnet+`, `+dll+`, throw-deep, "3"]
  - name: segv
    command: [`+dotnet+`, `+dll+`, segv-deep, "3"]
  - name: exit7
    command: [`+dotnet+`, `+dll+`, exitcode, "7"]
`)
	stdout, stderr, code := vbRun(t, dir, ciEnv(), "run", "suite.yaml", "--quiet", "--no-baseline", "--json", "out/r.json")
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s%s", code, stdout, stderr)
	}
	f, err := results.ReadFile(filepath.Join(dir, "out", "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cell, message, cause, fn string }{
		{"throws", "crashed: killed by SIGABRT: Unhandled exception. System.InvalidOperationException: boom at the bottom",
			"unhandled exception System.InvalidOperationException", "VbTest.Crasher.Bottom"},
		{"segv", "crashed: killed by SIGSEGV",
			"fatal signal SIGSEGV (segmentation fault) at address 0x8 outside managed code", "VbTest.Crasher.BottomNative"},
		// Exiting non-zero is no crash: the profile is complete, and says so.
		{"exit7", "exited with status 7", "", "VbTest.Program.Main"},
	} {
		cell := f.Find(c.cell, modes.Mode("tracing"))
		if cell == nil || len(cell.Samples) == 0 {
			t.Fatalf("no run of %s/tracing in the results", c.cell)
		}
		msg := cell.Samples[0].Error
		kept := `its profile, incomplete \(` + regexp.QuoteMeta(c.cause) + `\),`
		if c.cause == "" {
			kept = `its profile`
		}
		m := regexp.MustCompile(`^` + regexp.QuoteMeta(c.message) + `.* \[` + kept + ` is in (\S+)\]$`).FindStringSubmatch(msg)
		if m == nil {
			t.Errorf("%s/tracing failed with\n  %s\nwant the program's message, the cause %q and where its profile is", c.cell, msg, c.cause)
			continue
		}
		tree, err := profile.ReadTree(filepath.Join(dir, m[1])) // relative to where vbench ran
		if err != nil || len(tree.Processes) != 1 {
			t.Fatalf("%s: the kept profile %s: %v", c.cell, m[1], err)
		}
		p := tree.Processes[0]
		if p.Complete != (c.cause == "") || p.Cause != c.cause || p.Function(c.fn) == nil || p.Function(c.fn).Calls != 1 {
			t.Errorf("%s: kept profile complete %v cause %q, %s %+v; want cause %q, 1 call", c.cell, p.Complete, p.Cause, c.fn, p.Function(c.fn), c.cause)
		}
		report, rerr, code := vbRun(t, dir, ciEnv(), "report", m[1])
		warned := strings.Contains(report, "warning: incomplete profile")
		if code != 0 || warned != (c.cause != "") || !strings.Contains(report, "warning: incomplete profile, written when the process ended ("+c.cause+")") && c.cause != "" || !strings.Contains(report, c.fn) {
			t.Errorf("vbench report %s: exit %d\n%s%s", m[1], code, report, rerr)
		}
	}
}

// Two results files in one directory keep their own profiles: out/a.json's
// cells point into out/a.profiles/, out/b.json's into out/b.profiles/, and
// the second run leaves the first one's profiles as they were (a shared
// out/profiles/ was silently replaced by whichever run came last).
func TestResultsFilesKeepTheirOwnProfiles(t *testing.T) {
	fw, fp := testbin.Fakework(t), testbin.FakeProfiler(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: own
runs: 1
warmup: 0
modes: [tracing]
workloads:
  - name: w
    command: [`+fw+`, -calls, "F.G=3", -profile-calls, "F.G=3"]
`)
	pids := map[string][]string{}
	for _, name := range []string{"a", "b"} {
		stdout, stderr, code := vbRun(t, dir, ciEnv(), "run", "suite.yaml", "--quiet", "--no-baseline", "--profiler", fp, "--json", "out/"+name+".json")
		if code != 0 {
			t.Fatalf("run %s: exit %d\n%s%s", name, code, stdout, stderr)
		}
		f, err := results.ReadFile(filepath.Join(dir, "out", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join("out", name+".profiles", "w", "tracing")
		if c := f.Find("w", modes.Mode("tracing")); c == nil || c.Profile != want {
			t.Fatalf("%s.json: w/tracing's profile %+v, want %s", name, c, want)
		}
		pids[name], _ = filepath.Glob(filepath.Join(dir, want, "[0-9]*"))
	}
	again, _ := filepath.Glob(filepath.Join(dir, "out", "a.profiles", "w", "tracing", "[0-9]*"))
	if len(again) != 1 || !slices.Equal(again, pids["a"]) || slices.Equal(pids["a"], pids["b"]) {
		t.Errorf("a.json's profile after b's run: %v (before: %v, b's: %v)", again, pids["a"], pids["b"])
	}
}

// baseline update --from results of another suite file (with the same suite
// name) says so and names both files; results of an earlier version of the
// same file say that. An update whose run lacks cells the previous baseline
// had names them: the update replaces the whole baseline.
func TestBaselineUpdateSaysWhatItReplaces(t *testing.T) {
	fw := testbin.Fakework(t)
	dir := t.TempDir()
	suiteText := func(extra string) string {
		return `name: same
runs: 3
warmup: 0
modes: [none, tracing]
metric: wall
workloads:
  - name: w
    command: [` + fw + `, -calls, "F.G=3"]
` + extra
	}
	writeFile(t, filepath.Join(dir, "s1.yaml"), suiteText(""))
	writeFile(t, filepath.Join(dir, "s2.yaml"), suiteText("# another program, the same suite name\n"))
	fp := testbin.FakeProfiler(t)
	for _, s := range []string{"s1", "s2"} {
		if _, stderr, code := vbRun(t, dir, ciEnv(), "run", s+".yaml", "--quiet", "--no-baseline", "--profiler", fp, "--json", "out/"+s+".json"); code != 0 {
			t.Fatalf("run %s: exit %d\n%s", s, code, stderr)
		}
	}
	_, stderr, code := vbRun(t, dir, ciEnv(), "baseline", "update", "s1.yaml", "--from", "out/s2.json")
	if want := "vbench: warning: out/s2.json was produced from another suite file, s2.yaml, not s1.yaml"; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("--from another file's results: exit %d, stderr\n%s\nwant %q", code, stderr, want)
	}
	writeFile(t, filepath.Join(dir, "s1.yaml"), suiteText("# edited\n"))
	_, stderr, code = vbRun(t, dir, ciEnv(), "baseline", "update", "s1.yaml", "--from", "out/s1.json")
	if want := "vbench: warning: out/s1.json was produced from a different version of s1.yaml: the file changed since"; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("--from an earlier version's results: exit %d, stderr\n%s\nwant %q", code, stderr, want)
	}
	_, stderr, code = vbRun(t, dir, ciEnv(), "baseline", "update", "s1.yaml", "--quiet", "--profiler", fp, "--modes", "none")
	if want := "vbench: warning: the new baseline drops 1 cell the previous one had (w/tracing): later runs will call it new"; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("update with fewer modes: exit %d, stderr\n%s\nwant %q", code, stderr, want)
	}
}

// A program that takes SIGPROF, the sampling engine's signal, fails its
// sampling cell, naming the cause: it passed with a believable multiple
// (x1.03) and 5 samples against 600. Ignored: the profiler stopped
// sampling and marked the profile incomplete; reset to its default action:
// the program dies of SIGPROF, and the failure says what most likely did
// it.
func TestRunFailsABlindedSampler(t *testing.T) {
	dll, dotnet := testapp.DLL(t), testbin.Dotnet(t)
	testbin.ProfilerLib(t) // next to vbench, where run looks for it
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "suite.yaml"), `name: sigprof
runs: 1
warmup: 0
metric: wall
modes: [sampling]
profiler:
  interval: 1ms
workloads:
  - name: ign
    command: [`+dotnet+`, `+dll+`, sigprof, "300", ign]
  - name: dfl
    command: [`+dotnet+`, `+dll+`, sigprof, "300", dfl]
`)
	stdout, stderr, code := vbRun(t, dir, ciEnv(), "run", "suite.yaml", "--quiet", "--no-baseline", "--json", "out/r.json")
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s%s", code, stdout, stderr)
	}
	f, err := results.ReadFile(filepath.Join(dir, "out", "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cell, want string }{
		{"ign", `^the sampler was blinded: its profile is incomplete \(sampling stopped [0-9.]+ s in: the program took SIGPROF, the sampling engine's signal; it is now ignored \(SIG_IGN\), so the samples cover only the time before\) \[its profile is in \S+\]$`},
		// Mostly killed by the next tick; else seen by the profiler first.
		{"dfl", `^crashed: killed by SIGPROF.* \(SIGPROF is the sampling engine's signal: the program most likely reset it to its default action|^the sampler was blinded: .*it is now reset to its default action \(SIG_DFL\)`},
	} {
		cell := f.Find(c.cell, modes.Mode("sampling"))
		if cell == nil || !cell.Failed() || !regexp.MustCompile(c.want).MatchString(cell.Failure) {
			t.Errorf("%s/sampling: %+v\nwant it failed with %s", c.cell, cell, c.want)
		}
	}
}
