package cli_test

// Hostile programs and inputs (issue 48): what a suite, a flag or a file in
// the way must not do to the machine or to the user's files.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vbench/internal/profile"
	"vbench/internal/results"
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

// A run count no machine can give is refused in a second, exit 2, naming
// the file, line and field (or the flag). runs: 1000000000 used to pass
// `vbench list` and make `vbench run` list every launch up front, printing
// nothing, deaf to Ctrl-C, until it was killed at 24 GB.
func TestHugeRunCountsRefused(t *testing.T) {
	dir := t.TempDir()
	fw := testbin.Fakework(t)
	head := "name: huge\nmodes: [none]\n"
	work := "workloads:\n  - name: a\n    command: [" + fw + ", -counter, launches.txt]\n"
	for _, c := range []struct {
		name, yaml string
		args       []string
		want       string
	}{
		{"runs", head + "runs: 1000000000\n" + work, nil, "s.yaml:3: runs: must be at most 100000 (the runs vbench launches per cell), got 1000000000"},
		{"runs 2^63-1", head + "runs: 9223372036854775807\n" + work, nil, "s.yaml:3: runs: must be at most 100000"},
		{"runs beyond int64", head + "runs: 9223372036854775808\n" + work, nil, "s.yaml:3: runs: must be at most 100000"},
		{"warmup", head + "warmup: 1000000000\n" + work, nil, "s.yaml:3: warmup: must be at most 100000"},
		{"max_runs", head + "max_runs: 1000000000\n" + work, nil, "s.yaml:3: max_runs: must be at most 100000"},
		{"workload runs", head + work + "    runs: 1000000000\n", nil, "s.yaml:6: workloads[0].runs: must be at most 100000"},
		{"--runs", head + work, []string{"--runs", "100000000"}, "--runs 100000000: must be at most 100000"},
		{"--warmup", head + work, []string{"--warmup", "100000000"}, "--warmup 100000000: must be at most 100000"},
		{"--max-runs", head + work, []string{"--max-runs", "100000000"}, "--max-runs 100000000: must be at most 100000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bench := filepath.Join(dir, "bench")
			writeFile(t, filepath.Join(bench, "s.yaml"), c.yaml)
			for _, sub := range [][]string{{"list"}, {"run"}} {
				if sub[0] == "list" && c.args != nil {
					continue
				}
				cmd := exec.Command(testbin.Vbench(t), append(append(sub, "s.yaml", "--no-baseline", "--quiet"), c.args...)...)
				if sub[0] == "list" {
					cmd = exec.Command(testbin.Vbench(t), "list", "s.yaml")
				}
				cmd.Dir = bench
				var stderr strings.Builder
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				// Not a timing: a watchdog, so that the old behaviour fails
				// the test instead of eating the machine.
				watchdog := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
				code := exitCode(t, cmd.Wait())
				watchdog.Stop()
				if code != 2 || !strings.Contains(stderr.String(), c.want) {
					t.Errorf("%s: exit %d, want 2 and %q:\n%s", sub[0], code, c.want, stderr.String())
				}
			}
			if n := launches(dir); n != "" {
				t.Errorf("launched %s times", n)
			}
		})
	}
}

// A suite at the bound (100 workloads of 100000 runs: ten million launches)
// starts launching at once, in little memory, and stops on Ctrl-C: the
// launches are drawn round by round. Listed up front they took a few
// seconds and 924 MiB before the first launch (20 MiB now).
func TestLargestSuiteStartsSmallAndStopsOnInterrupt(t *testing.T) {
	dir := t.TempDir()
	fw := testbin.Fakework(t)
	var b strings.Builder
	b.WriteString("name: largest\nruns: 100000\nwarmup: 0\nmodes: [none]\nworkloads:\n")
	for i := range 100 {
		fmt.Fprintf(&b, "  - name: w%d\n    command: [%s, -counter, launches.txt]\n", i, fw)
	}
	writeFile(t, filepath.Join(dir, "bench", "s.yaml"), b.String())
	cmd := exec.Command(testbin.Vbench(t), "run", "s.yaml", "--no-baseline", "--quiet", "--json", "r.json")
	cmd.Dir = filepath.Join(dir, "bench")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	watchdog := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer watchdog.Stop()
	for launches(dir) == "" {
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	if code := exitCode(t, cmd.Wait()); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, stderr.String())
	}
	f, err := results.ReadFile(filepath.Join(dir, "bench", "r.json"))
	if err != nil || !f.Partial {
		t.Fatalf("partial results: %v", err)
	}
	// Maxrss is in KiB on Linux.
	if rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss; rss > 200<<10 {
		t.Errorf("vbench grew to %d MiB before its first launches", rss>>10)
	}
}

// A writer replaces only its own kind of file: the suite itself named as
// its baseline or as --json, a notes file named as any output, is refused,
// exit 2, and left byte for byte; nothing runs. `baseline update` used to
// replace the suite (baseline: self.yaml) and `run --json s.yaml` too, exit
// 0; diff -o and report --across -o replaced any file. A file of the
// writer's kind is still replaced, as before.
func TestWritersReplaceOnlyTheirOwnFiles(t *testing.T) {
	dir := t.TempDir()
	suite := fakeSuite(t, dir, "own", "none")
	if _, stderr, code := vbRun(t, dir, nil, "run", suite, "--quiet", "--json", "r.json"); code != 0 {
		t.Fatalf("making results: exit %d %s", code, stderr)
	}
	os.Remove(filepath.Join(dir, "bench", "launches.txt"))
	self := filepath.Join(dir, "bench", "self.yaml")
	writeFile(t, self, "name: own\nbaseline: self.yaml\nruns: 2\nwarmup: 0\nmodes: [none]\nworkloads:\n  - name: a\n    command: ["+testbin.Fakework(t)+", -counter, launches.txt]\n")
	notes := filepath.Join(dir, "notes.txt")
	writeFile(t, notes, "my notes: do not lose them\n")
	notesMD, notesSVG := filepath.Join(dir, "notes.md"), filepath.Join(dir, "logo.svg")
	writeFile(t, notesMD, "# My notes\n")
	writeFile(t, notesSVG, "a drawing, not yet svg\n")
	fixture := func(name string) string { return filepath.Join(testbin.RepoRoot(), "reports", "testdata", name) }
	prof, res := fixture("profile-tracing.json"), filepath.Join(dir, "r.json")
	day1, day2 := fixture("history-1.json"), fixture("history-2.json") // runs of one suite, for --across
	for _, c := range []struct {
		name, file string
		args       []string
		want       string
	}{
		{"baseline update over its own suite", self, []string{"baseline", "update", self, "--quiet"}, "the suite's baseline " + self + ": the file there is not a vbench results file"},
		{"baseline update --from over its own suite", self, []string{"baseline", "update", self, "--from", "r.json"}, "the file there is not a vbench results file"},
		{"baseline update --baseline notes", notes, []string{"baseline", "update", suite, "--quiet", "--baseline", notes}, "--baseline " + notes + ": the file there is not a vbench results file"},
		{"run --json the suite", suite, []string{"run", suite, "--quiet", "--json", suite}, "--json " + suite + ": the file there is not a vbench results file"},
		{"run --json notes", notes, []string{"run", suite, "--quiet", "--json", notes}, "the file there is not a vbench results file"},
		{"run --junit notes", notes, []string{"run", suite, "--quiet", "--junit", notes}, "--junit " + notes + ": the file there is not a JUnit XML file"},
		{"merge -o notes", notes, []string{"merge", "r.json", "-o", notes}, "-o " + notes + ": the file there is not a vbench results file"},
		{"report -o notes", notes, []string{"report", "r.json", "-o", notes}, "-o " + notes + ": the file there is not a text file vbench wrote"},
		{"report --junit notes", notes, []string{"report", "r.json", "--junit", notes}, "the file there is not a JUnit XML file"},
		{"diff -o notes", notes, []string{"diff", prof, prof, "-o", notes}, "-o " + notes + ": the file there is not a text diff vbench wrote"},
		{"diff -o notes.md", notesMD, []string{"diff", prof, prof, "-o", notesMD}, "-o " + notesMD + ": the file there is not a markdown diff vbench wrote"},
		{"diff -o results", res, []string{"diff", prof, prof, "-o", res}, "-o " + res + ": the file there is not a json diff vbench wrote"},
		{"diff -o not svg", notesSVG, []string{"diff", prof, prof, "-o", notesSVG}, "the file there is not a svg diff vbench wrote"},
		{"diff --format json -o notes", notes, []string{"diff", prof, prof, "--format", "json", "-o", notes}, "the file there is not a json diff vbench wrote"},
		{"report --across -o notes", notes, []string{"report", "--across", day1, day2, "-o", notes}, "-o " + notes + ": the file there is not a text file vbench wrote"},
		{"report --across -o notes.md", notesMD, []string{"report", "--across", day1, day2, "-o", notesMD}, "the file there is not a markdown file vbench wrote"},
		{"profile --json notes", notes, []string{"profile", "--profiler", testbin.FakeProfiler(t), "--json", notes, "--", "touch", "profiled-ran"}, "--json " + notes + ": the file there is not a vbench profile summary"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := fileHash(t, c.file)
			_, stderr, code := vbRun(t, dir, nil, c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want 2 and %q:\n%s", code, c.want, stderr)
			}
			if fileHash(t, c.file) != before {
				t.Errorf("%s changed", c.file)
			}
			if n := launches(dir); n != "" {
				t.Errorf("launched %s times", n)
			}
			if _, err := os.Stat(filepath.Join(dir, "profiled-ran")); err == nil {
				t.Errorf("vbench profile ran the program")
			}
		})
	}
	// Their own kind of file is replaced, as before.
	for _, args := range [][]string{
		{"run", suite, "--quiet", "--json", "r.json", "--junit", "j.xml"},
		{"run", suite, "--quiet", "--json", "r.json", "--junit", "j.xml"},
		{"baseline", "update", suite, "--from", "r.json", "--baseline", "b.json"},
		{"baseline", "update", suite, "--from", "r.json", "--baseline", "b.json"},
		{"merge", "r.json", "-o", "m.json"},
		{"merge", "r.json", "-o", "m.json"},
		{"report", "r.json", "-o", "r.txt", "--junit", "j.xml"},
		{"report", "r.json", "-o", "r.txt"},
		{"report", "r.json", "-o", "r.md"},
		{"report", "r.json", "-o", "r.md"},
		{"report", "r.json", "-o", "r.html"},
		{"report", "r.json", "-o", "r.html"},
		{"diff", prof, prof, "-o", "d.txt"},
		{"diff", prof, prof, "-o", "d.txt"},
		{"diff", prof, prof, "-o", "d.md"},
		{"diff", prof, prof, "-o", "d.md"},
		{"diff", prof, prof, "-o", "d.json"},
		{"diff", prof, prof, "-o", "d.json"},
		{"diff", prof, prof, "-o", "d.svg"},
		{"diff", prof, prof, "-o", "d.svg"},
		{"report", "--across", day1, day2, "-o", "a.txt"},
		{"report", "--across", day1, day2, "-o", "a.txt"},
		{"report", "--across", day1, day2, "-o", "a.md"},
		{"report", "--across", day1, day2, "-o", "a.md"},
		{"report", "--across", day1, day2, "-o", "r.md"}, // the report's own markdown
	} {
		if _, stderr, code := vbRun(t, dir, nil, args...); code != 0 {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
		}
	}
}
