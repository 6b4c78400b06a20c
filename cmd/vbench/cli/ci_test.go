package cli_test

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"vbench/internal/testbin"
)

// ciEnv is the test process's environment without GITHUB_STEP_SUMMARY, so a
// test run inside GitHub Actions never writes into the real job summary.
func ciEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GITHUB_STEP_SUMMARY=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// vbenchIn runs the real vbench in dir and returns stdout, stderr and the
// exit code.
func vbenchIn(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(testbin.Vbench(t), args...)
	cmd.Dir, cmd.Env = dir, env
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	code := exitCode(t, cmd.Run())
	return so.String(), se.String(), code
}

// ciSuites writes two versions of one suite: base, and one in which
// "slow" got 20% slower and "broken" crashes. fakework reports exactly the
// elapsed time it is told, so the verdicts are deterministic. It returns the
// stand-in profiler library (fakework writes the profiles itself).
// Stand-in: exact verdicts need fakework's exact times, and the real profiler does not load into a Go program.
func ciSuites(t *testing.T, dir string) string {
	fw, fp := testbin.Fakework(t), testbin.FakeProfiler(t)
	head := "runs: 8\nwarmup: 1\nmodes: [none, tracing]\nbaseline: base.json\nworkloads:\n"
	cell := func(name string, args ...string) string {
		return "  - name: " + name + "\n    command: [" + strings.Join(append([]string{fw}, args...), ", ") + "]\n"
	}
	writeFile(t, filepath.Join(dir, "base.yaml"), "name: ci\n"+head+
		cell("same", "-elapsed", "1000000", "-overhead", "tracing=3")+
		cell("slow", "-elapsed", "2000000", "-overhead", "tracing=3"))
	writeFile(t, filepath.Join(dir, "new.yaml"), "name: ci\n"+head+
		cell("same", "-elapsed", "1000000", "-overhead", "tracing=3")+
		cell("slow", "-elapsed", "2000000", "-overhead", "tracing=3", "-scale", "1.2")+
		cell("broken", "-segv"))
	return fp
}

// `vbench run --format gobench` is read by the real benchstat: old vs new
// shows exactly the 20% slowdown, and -col /mode puts the modes side by side.
func TestRunGoBenchReadByBenchstat(t *testing.T) {
	dir := t.TempDir()
	fp := ciSuites(t, dir)
	oldOut, stderr, code := vbenchIn(t, dir, ciEnv(), "run", "base.yaml", "--quiet", "--profiler", fp, "--format", "gobench")
	if code != 0 {
		t.Fatalf("run base: exit %d\n%s", code, stderr)
	}
	newOut, stderr, code := vbenchIn(t, dir, ciEnv(), "run", "new.yaml", "--quiet", "--profiler", fp, "--format", "gobench", "--workloads", "same,slow")
	if code != 0 {
		t.Fatalf("run new: exit %d\n%s", code, stderr)
	}
	if !strings.HasPrefix(oldOut, "goos: linux\n") || strings.Count(oldOut, "BenchmarkSlow/mode=tracing 1 ") != 8 {
		t.Fatalf("gobench output: want the file keys, then one line per measured run (8 per cell, no warmup):\n%s", oldOut)
	}
	oldTxt, newTxt := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	writeFile(t, oldTxt, oldOut)
	writeFile(t, newTxt, newOut)

	out, err := exec.Command(testbin.Benchstat(t), "-filter", ".unit:sec/op", oldTxt, newTxt).CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^Slow/mode=none\s+2\.000m ± 0%\s+2\.400m ± 0%\s+\+20\.00% \(p=0\.000 n=8\)$`),
		regexp.MustCompile(`(?m)^Slow/mode=tracing\s+6\.000m ± 0%\s+7\.200m ± 0%\s+\+20\.00% \(p=0\.000 n=8\)$`),
		regexp.MustCompile(`(?m)^Same/mode=none\s+1\.000m ± 0%\s+1\.000m ± 0%\s+~ \(p=1\.000 n=8\)( ¹)?$`),
	} {
		if !want.MatchString(text) {
			t.Errorf("benchstat old.txt new.txt lacks %s:\n%s", want, text)
		}
	}
	out, err = exec.Command(testbin.Benchstat(t), "-col", "/mode", "-filter", ".unit:sec/op", newTxt).CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat -col /mode: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^Same\s+1\.000m ± 0%\s+3\.000m ± 0%\s+\+200\.00% \(p=0\.000 n=8\)$`).Match(out) {
		t.Errorf("benchstat -col /mode does not show the tracing overhead:\n%s", out)
	}
}

// The JUnit file as CI systems read it.
type junitFile struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Type    string `xml:"type,attr"`
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, path string) junitFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var j junitFile
	if err := xml.Unmarshal(data, &j); err != nil {
		t.Fatalf("%s is not JUnit XML: %v\n%s", path, err, data)
	}
	if len(j.Suites) != 1 {
		t.Fatalf("%s: %d test suites, want 1", path, len(j.Suites))
	}
	return j
}

// failures maps each test case to its failure type ("" when it passed).
func (j junitFile) failures() map[string]string {
	m := map[string]string{}
	for _, c := range j.Suites[0].Cases {
		m[c.Name] = ""
		if c.Failure != nil {
			m[c.Name] = c.Failure.Type
		}
	}
	return m
}

// --junit is written when the run exits 3 (a workload crashed) and 1 (a
// regression), with a failure element per regressed or failed cell; compare
// writes the same from saved files.
func TestJUnitOnFailureAndRegression(t *testing.T) {
	t.Parallel() // verdicts of a fake program, no time
	dir := t.TempDir()
	fp := ciSuites(t, dir)
	env := ciEnv()
	if _, stderr, code := vbenchIn(t, dir, env, "run", "base.yaml", "--quiet", "--profiler", fp, "--json", "old.json"); code != 0 {
		t.Fatalf("run base: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := vbenchIn(t, dir, env, "baseline", "update", "base.yaml", "--quiet", "--from", "old.json"); code != 0 {
		t.Fatalf("baseline update: exit %d\n%s", code, stderr)
	}

	_, stderr, code := vbenchIn(t, dir, env, "run", "new.yaml", "--quiet", "--profiler", fp, "--json", "new.json", "--junit", "run.xml")
	if code != 3 {
		t.Fatalf("run new: exit %d, want 3 (a workload crashed)\n%s", code, stderr)
	}
	j := readJUnit(t, filepath.Join(dir, "run.xml"))
	want := map[string]string{
		"same/none": "", "same/tracing": "",
		"slow/none": "regression", "slow/tracing": "regression",
		"broken/none": "workload-failed", "broken/tracing": "workload-failed",
	}
	if got := j.failures(); !equalMaps(got, want) {
		t.Errorf("test cases and failures: %v, want %v", got, want)
	}
	if j.Tests != 6 || j.Failures != 4 || j.Suites[0].Name != "ci" {
		t.Errorf("tests=%d failures=%d suite %q, want 6, 4, ci", j.Tests, j.Failures, j.Suites[0].Name)
	}
	for _, c := range j.Suites[0].Cases {
		switch {
		case c.Name == "slow/none" && !strings.Contains(c.Failure.Message, "+20.0%"):
			t.Errorf("regression message %q lacks the change", c.Failure.Message)
		case c.Name == "broken/none" && !strings.Contains(c.Failure.Text, "SIGSEGV"):
			t.Errorf("failure text %q lacks the signal", c.Failure.Text)
		}
	}

	// A regression alone: exit 1, same file shape.
	_, stderr, code = vbenchIn(t, dir, env, "run", "new.yaml", "--quiet", "--profiler", fp, "--workloads", "same,slow", "--json", "slower.json", "--junit", "run1.xml")
	if code != 1 {
		t.Fatalf("run: exit %d, want 1 (regression)\n%s", code, stderr)
	}
	if got := readJUnit(t, filepath.Join(dir, "run1.xml")).failures(); got["slow/none"] != "regression" || got["same/none"] != "" || len(got) != 4 {
		t.Errorf("exit-1 run's JUnit: %v", got)
	}

	// compare OLD NEW --junit: the verdicts of a comparison of saved files.
	_, stderr, code = vbenchIn(t, dir, env, "compare", "base.json", "slower.json", "--junit", "compare.xml", "--format", "gobench")
	if code != 1 {
		t.Fatalf("compare: exit %d, want 1\n%s", code, stderr)
	}
	cj := readJUnit(t, filepath.Join(dir, "compare.xml"))
	if got := cj.failures(); got["slow/tracing"] != "regression" || got["same/tracing"] != "" {
		t.Errorf("compare's JUnit: %v", got)
	}
	base := ""
	for _, p := range cj.Suites[0].Properties {
		if p.Name == "baseline" {
			base = p.Value
		}
	}
	if base != "base.json" {
		t.Errorf("compare's JUnit names baseline %q, want base.json", base)
	}

	// Nothing an input or the baseline held is overwritten by --junit.
	for _, args := range [][]string{
		{"run", "base.yaml", "--quiet", "--profiler", fp, "--junit", "base.json"},
		{"run", "base.yaml", "--quiet", "--profiler", fp, "--json", "x.json", "--junit", "x.json"},
		{"compare", "base.json", "slower.json", "--junit", "slower.json"},
	} {
		before, _ := os.ReadFile(filepath.Join(dir, args[len(args)-1]))
		if _, stderr, code := vbenchIn(t, dir, env, args...); code != 2 || !strings.Contains(stderr, "would overwrite") {
			t.Errorf("%v: exit %d, stderr %q; want 2, refused", args, code, stderr)
		}
		if after, _ := os.ReadFile(filepath.Join(dir, args[len(args)-1])); string(after) != string(before) {
			t.Errorf("%v changed %s", args, args[len(args)-1])
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// vbench report --baseline gives the verdicts vbench compare gives, overhead
// test included: here the none mode got 20% faster and tracing stayed put,
// so tracing's overhead grew by a quarter — a regression neither time alone
// shows.
func TestReportVerdictsMatchCompare(t *testing.T) {
	dir := t.TempDir()
	// Stand-in: an exact overhead regression needs fakework's exact times; the real profiler does not load into it.
	fw, fp := testbin.Fakework(t), testbin.FakeProfiler(t)
	suite := func(none, tracing string) string {
		return "name: overhead\nruns: 8\nwarmup: 0\nmodes: [none, tracing]\nbaseline: none.json\nworkloads:\n" +
			"  - name: w\n    command: [" + fw + ", -elapsed, \"" + none + "\", -overhead, \"tracing=" + tracing + "\"]\n"
	}
	writeFile(t, filepath.Join(dir, "old.yaml"), suite("1000000", "3"))   // tracing 3ms
	writeFile(t, filepath.Join(dir, "new.yaml"), suite("800000", "3.75")) // tracing 3ms
	env := ciEnv()
	for _, name := range []string{"old", "new"} {
		if _, stderr, code := vbenchIn(t, dir, env, "run", name+".yaml", "--quiet", "--profiler", fp, "--json", name+".json"); code != 0 {
			t.Fatalf("run %s: exit %d\n%s", name, code, stderr)
		}
	}
	if _, stderr, code := vbenchIn(t, dir, env, "compare", "old.json", "new.json", "--junit", "compare.xml"); code != 1 {
		t.Fatalf("compare: exit %d, want 1 (tracing's overhead regressed)\n%s", code, stderr)
	}
	if _, stderr, code := vbenchIn(t, dir, env, "report", "new.json", "--baseline", "old.json", "--junit", "report.xml", "--format", "text"); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	fromCompare, fromReport := readJUnit(t, filepath.Join(dir, "compare.xml")).failures(), readJUnit(t, filepath.Join(dir, "report.xml")).failures()
	if want := map[string]string{"w/none": "", "w/tracing": "regression"}; !equalMaps(fromCompare, want) {
		t.Errorf("compare: %v, want %v", fromCompare, want)
	}
	if !equalMaps(fromReport, fromCompare) {
		t.Errorf("report --baseline: %v, compare: %v", fromReport, fromCompare)
	}
}
