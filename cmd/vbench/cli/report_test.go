package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/testbin"
)

// These tests run the real vbench binary on the hand-made fixtures of
// reports/testdata.

func testdata(name string) string {
	return filepath.Join(testbin.RepoRoot(), "reports", "testdata", name)
}

type ran struct {
	stdout, stderr string
	code           int
}

func vbench(t *testing.T, dir string, args ...string) ran {
	t.Helper()
	cmd := exec.Command(testbin.Vbench(t), args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return ran{out.String(), errb.String(), code}
}

func loadResults(t *testing.T, name string) *results.File {
	t.Helper()
	data, err := os.ReadFile(testdata(name))
	if err != nil {
		t.Fatal(err)
	}
	var f results.File
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

func TestReportTextOnStdout(t *testing.T) {
	r := vbench(t, t.TempDir(), "report", testdata("results.json"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	f := loadResults(t, "results.json")
	for _, c := range f.Results {
		if !strings.Contains(r.stdout, c.Key()) {
			t.Errorf("stdout lacks %s/%s", c.Workload, c.Mode)
		}
	}
	if !strings.Contains(r.stdout, "Overhead") || !strings.Contains(r.stdout, f.Suite.Name) {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

func TestReportHTMLWithHistoryAndBaseline(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	r := vbench(t, dir, "report", testdata("history-1.json"), testdata("history-2.json"), testdata("results.json"),
		"--baseline", testdata("baseline.json"), "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stdout != "" || !strings.Contains(r.stderr, "wrote "+out) {
		t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
	}
	html, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="overhead-chart"`, `class="chart dist-chart"`, `class="chart trend-chart"`, `id="history"`, "verdicts against " + testdata("baseline.json")} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// No temp files left beside the output.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("output directory holds %d entries, want just report.html", len(entries))
	}
}

func TestReportMarkdownAndJUnit(t *testing.T) {
	dir := t.TempDir()
	r := vbench(t, dir, "report", testdata("results.json"), "-o", "pr.md", "--junit", "junit.xml")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, "pr.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(md, []byte("### vbench")) || !bytes.Contains(md, []byte("<details>")) {
		t.Errorf("pr.md:\n%s", md)
	}
	data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	f := loadResults(t, "results.json")
	fails := 0
	for _, c := range f.Results {
		if c.Verdict == results.VerdictRegressed || c.Verdict == results.VerdictFailed {
			fails++
		}
	}
	if doc.Tests != len(f.Results) || doc.Failures != fails {
		t.Errorf("junit: %d tests, %d failures; want %d, %d", doc.Tests, doc.Failures, len(f.Results), fails)
	}
}

func TestReportGoBench(t *testing.T) {
	r := vbench(t, t.TempDir(), "report", testdata("results.json"), "--format", "gobench")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	f := loadResults(t, "results.json")
	want := 0
	for _, c := range f.Results {
		for _, run := range c.Samples {
			if !run.Warmup && run.Error == "" {
				want++
			}
		}
	}
	got := 0
	rd := benchfmt.NewReader(strings.NewReader(r.stdout), "stdout")
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			got++
		case *benchfmt.SyntaxError:
			t.Error(rec)
		}
	}
	if got != want {
		t.Errorf("%d benchmark results, want one per measured run (%d)", got, want)
	}
	r = vbench(t, t.TempDir(), "report", testdata("history-1.json"), testdata("results.json"), "--format", "gobench")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "one results file") {
		t.Errorf("gobench of two files: exit %d, %s", r.code, r.stderr)
	}
}

func readProfileFixture(t *testing.T, name string) *profile.Profile {
	t.Helper()
	p, err := profile.ReadFile(testdata(name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReportProfileText(t *testing.T) {
	p := readProfileFixture(t, "profile-tracing.json")
	// A profile directory, as the profiler writes it.
	dir := t.TempDir()
	data, err := os.ReadFile(testdata("profile-tracing.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, profile.JSONFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := vbench(t, t.TempDir(), "report", dir, "--min-percent", "0", "--top", "3")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// Every node's exact call count is on a line naming its function.
	var walk func(ns []profile.Node)
	walk = func(ns []profile.Node) {
		for _, n := range ns {
			want := fmt.Sprintf("─ %s  calls=%d  ", p.Functions[n.Fn].Name, n.Calls)
			if !strings.Contains(r.stdout, want) {
				t.Errorf("tree lacks %q", want)
			}
			walk(n.Children)
		}
	}
	for _, th := range p.Threads {
		walk(th.Roots)
	}
	// The top table, with the fixture's figures as every vbench output prints them.
	for _, want := range []string{"Top 3 of 9 functions by exclusive wall-clock time (total 10.79ms on 3 threads)\n",
		"  2.093ms  19.4%  2.093ms  19.4%  11625  Fibonacci.Program.Fib(int)\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("top table lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestReportFlameGraph(t *testing.T) {
	dir := t.TempDir()
	r := vbench(t, dir, "report", testdata("profile-sampling.json"), "-o", "flame.svg", "--per-thread")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "flame.svg"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Frames []struct {
			Name string `xml:"data-name,attr"`
		} `xml:"g"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("flame.svg: %v", err)
	}
	p := readProfileFixture(t, "profile-sampling.json")
	threads := 0
	for _, f := range doc.Frames {
		if strings.HasPrefix(f.Name, "thread ") {
			threads++
		}
	}
	if threads != len(p.Threads) {
		t.Errorf("%d thread frames with --per-thread, want %d", threads, len(p.Threads))
	}
}

// Bad input exits 2 with a message naming the file, and where possible the
// line, column and field; outputs that existed are left as they were.
func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(testdata("results.json"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	trunc := write("trunc.json", string(good[:len(good)/3]))
	syntax := write("syntax.json", "{\n  \"schema\": 1,\n  \"suite\": }\n")
	schema := write("schema.json", strings.Replace(string(good), `"schema": 1,`, `"schema": 2,`, 1))
	typed := write("typed.json", strings.Replace(string(good), `"median_ns": `, `"median_ns": "x", "_": `, 1))
	nullProf := write("null.json", `{"schema":1,"mode":"null","runtime_version":"10.0.0","pid":1,"start":"2025-06-04T10:00:00Z","duration_ns":1,"complete":true,"functions":[],"threads":[]}`)
	keep := write("keep.svg", "previous content")

	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{trunc}, []string{"trunc.json:", "truncated JSON (file ends early)"}},
		{[]string{syntax}, []string{"syntax.json:3:12:", "invalid character '}'"}},
		{[]string{schema}, []string{"schema.json:", "schema version 2"}},
		{[]string{typed}, []string{"typed.json:", "field results.median_ns"}},
		{[]string{filepath.Join(dir, "missing.json")}, []string{"missing.json", "no such file"}},
		{[]string{testdata("results.json"), "--baseline", testdata("profile-tracing.json")}, []string{"baseline:", "profile-tracing.json", "not a results file"}},
		{[]string{testdata("results.json"), "--baseline", trunc}, []string{"baseline:", "trunc.json:"}},
		{[]string{testdata("results.json"), testdata("profile-tracing.json")}, []string{"profile-tracing.json is a profile"}},
		{[]string{testdata("profile-tracing.json"), "--baseline", testdata("results.json")}, []string{"apply to results files"}},
		{[]string{testdata("results.json"), "-o", "report.pdf"}, []string{"report.pdf", "--format"}},
		{[]string{testdata("results.json"), "--format", "svg"}, []string{`format "svg"`}},
		// html of a profile is its source view, which needs lines.
		{[]string{testdata("profile-tracing.json"), "--format", "html"}, []string{"the profile has no source lines"}},
		{[]string{testdata("profile-tracing.json"), "--depth", "5000"}, []string{"--depth 5000 is outside 0..1000"}},
		{[]string{testdata("profile-tracing.json"), "--top", "0"}, []string{"--top 0: must be >= 1"}},
		{[]string{testdata("profile-tracing.json"), "--top", "-1", "-o", keep}, []string{"--top -1: must be >= 1"}},
		{[]string{nullProf, "-o", keep}, []string{"null.json", "null-mode profile"}},
		{[]string{"--format", "html"}, []string{"requires at least 1 arg"}},
	} {
		r := vbench(t, dir, append([]string{"report"}, tc.args...)...)
		if r.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, r.code, ExitUsage, r.stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, r.stderr, w)
			}
		}
	}
	if data, _ := os.ReadFile(keep); string(data) != "previous content" {
		t.Errorf("a failed report changed the existing output: %q", data)
	}
	// The null profile's text report says why there is nothing, and succeeds.
	if r := vbench(t, dir, "report", nullProf); r.code != 0 || !strings.Contains(r.stdout, "null-mode profile") {
		t.Errorf("null profile text: exit %d, %q", r.code, r.stdout)
	}
}

func TestReportHelpHasExamples(t *testing.T) {
	r := vbench(t, t.TempDir(), "report", "--help")
	if r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
	for _, want := range []string{"Examples:", "-o report.html", "benchstat old.txt new.txt", "--baseline", "--junit"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	// A profile's views are show's.
	r = vbench(t, t.TempDir(), "show", "--help")
	for _, want := range []string{"Examples:", "flame.svg", "source.html", "--focus", "--top"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("show --help lacks %q", want)
		}
	}
}

// Results files are judged by what they hold (issue 39): given newest
// first, `vbench report new.json old.json` reports the file that started
// last as the newest, the same report as in order, and warns that the
// arguments disagreed; in order, no warning.
func TestReportOrdersFilesByRecordedStart(t *testing.T) {
	dir := t.TempDir()
	inOrder := vbench(t, dir, "report", testdata("history-1.json"), testdata("results.json"))
	reversed := vbench(t, dir, "report", testdata("results.json"), testdata("history-1.json"))
	if inOrder.code != 0 || reversed.code != 0 {
		t.Fatalf("exit %d and %d: %s %s", inOrder.code, reversed.code, inOrder.stderr, reversed.stderr)
	}
	if strings.Contains(inOrder.stderr, "oldest first") {
		t.Errorf("in order, a warning: %s", inOrder.stderr)
	}
	if !strings.Contains(reversed.stderr, "not given oldest first") || !strings.Contains(reversed.stderr, "the newest reported is "+testdata("results.json")) {
		t.Errorf("reversed: no warning naming the newest: %q", reversed.stderr)
	}
	if reversed.stdout != inOrder.stdout {
		t.Errorf("reversed arguments gave another report:\n%s\nin order:\n%s", reversed.stdout, inOrder.stdout)
	}
	if !strings.Contains(reversed.stdout, "2025-06-04") {
		t.Errorf("the report is not of the file that started last (2025-06-04):\n%s", reversed.stdout)
	}
}

// A baseline or results file with a judged cell that has no runs is
// refused, file and cell named, exit 2 (issue 39): a baseline whose runs
// recorded no elapsed time judged every cell "baseline 0s … regressed", and
// one whose cells had no runs called every cell new without a word.
func TestFilesWithEmptyJudgedCellsAreRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, fixture string, edit func(*results.Cell)) string {
		t.Helper()
		f := loadResults(t, fixture)
		edit(&f.Results[1])
		path := filepath.Join(dir, name)
		data, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	zero := write("zero.json", "baseline.json", func(c *results.Cell) {
		for i := range c.Samples {
			c.Samples[i].ElapsedNs = 0
		}
	})
	empty := write("empty.json", "baseline.json", func(c *results.Cell) { c.Samples, c.Runs = nil, 0 })
	judged := write("judged.json", "results.json", func(c *results.Cell) { c.Samples, c.Runs = nil, 0 })
	cur := testdata("results.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", zero, cur}, zero + ": results[1] (fibonacci/null): measured run 1 of 10 has no elapsed (0)"},
		{[]string{"compare", empty, cur}, empty + ": results[1] (fibonacci/null) has no measured run"},
		{[]string{"report", cur, "--baseline", empty}, empty + ": results[1] (fibonacci/null) has no measured run"},
		{[]string{"report", judged}, judged + ": results[1] (fibonacci/null) has no measured run"},
	} {
		r := vbench(t, dir, tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %d bytes; want exit 2 and %q", tc.args[0], r.code, r.stderr, len(r.stdout), tc.want)
		}
	}
}
