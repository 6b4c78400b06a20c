package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"vbench/internal/testbin"
)

// A results file edited by hand (or corrupt) is refused by every reader
// with the file, line and field: a judged verdict without its comparison
// used to panic report (text, markdown, junit; a template error in html),
// an unknown verdict was rendered and passed on by merge and baseline
// update --from, negative runs and a median the runs do not give were
// printed.
func TestEditedResultsRefused(t *testing.T) {
	dir := t.TempDir()
	// The first cell (fibonacci/none): its median on line 44, its verdict
	// on line 55, its comparison after it, its first run's elapsed_ns on
	// line 70.
	res := testdata("results.json")
	noCompare := writeEdited(t, dir, "nocompare.json", res, `"verdict": "same",
      "compare": {`, `"verdict": "regressed",
      "_compare": {`)
	bogus := writeEdited(t, dir, "bogus.json", res, `"verdict": "same"`, `"verdict": "bogus"`)
	negative := writeEdited(t, dir, "negative.json", res, `"elapsed_ns": 415526729,`, `"elapsed_ns": -415526729,`)
	median := writeEdited(t, dir, "median.json", res, `"median_ns": 410780732,`, `"median_ns": -410780732,`)
	stale := writeEdited(t, dir, "stale.json", res, `"median_ns": 410780732,`, `"median_ns": 41078073,`)
	suite := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(suite, []byte("name: default\nworkloads:\n  - name: fibonacci\n    command: [true]\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	noCompareMsg := "nocompare.json:55:15: results[0] (fibonacci/none).verdict: \"regressed\" without the comparison it was judged by"
	bogusMsg := "bogus.json:55:15: results[0] (fibonacci/none).verdict: unknown verdict \"bogus\" (known: regressed, failed, inconclusive, not run, improved, same, new, reference)"
	medianMsg := "median.json:44:17: results[0] (fibonacci/none).median_ns: -410780732 is negative"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", noCompare}, noCompareMsg},
		{[]string{"report", "--format", "markdown", noCompare}, noCompareMsg},
		{[]string{"report", "--format", "junit", noCompare}, noCompareMsg},
		{[]string{"report", "--format", "html", "-o", "r.html", noCompare}, noCompareMsg},
		{[]string{"report", bogus}, bogusMsg},
		{[]string{"report", "--format", "html", "-o", "r.html", bogus}, bogusMsg},
		{[]string{"merge", "-o", "merged.json", bogus, testdata("results.json")}, bogusMsg},
		{[]string{"baseline", "update", suite, "--from", bogus}, bogusMsg},
		{[]string{"compare", testdata("baseline.json"), bogus}, bogusMsg},
		{[]string{"report", median}, medianMsg},
		{[]string{"report", negative}, "negative.json:70:22: results[0] (fibonacci/none).samples[0].elapsed_ns: -415526729 is negative"},
		{[]string{"report", "--format", "markdown", stale}, "stale.json:44:17: results[0] (fibonacci/none).median_ns: 41078073, but its 10 measured runs' median elapsed is 410780732"},
	} {
		r := vbench(t, dir, tc.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "panic") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, r.code, r.stderr, ExitUsage, tc.want)
		}
	}
	for _, out := range []string{"r.html", "merged.json"} {
		if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
			t.Errorf("%s written from a refused file", out)
		}
	}
}

// A profile.json edited by hand (or corrupt) with negative calls or a
// frame's exclusive time above its inclusive time is refused with the
// file, line, node and function; it used to render as negative calls and
// shares above 100%.
func TestEditedProfileRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, from, to, want string }{
		{"calls.json", `"calls": 50,`, `"calls": -50,`, "calls.json:204:9: threads[0] (os_id 48213): nodes[3] (Fibonacci.Program.Fib(int)): calls -50 is negative"},
		{"excl.json", `"exclusive_ns": 4500`, `"exclusive_ns": 2092501`, "excl.json:197:9: threads[0] (os_id 48213): nodes[2] (Fibonacci.Program.Fib(int)): exclusive_ns 2092501 exceeds inclusive_ns 2092500"},
		{"fn.json", `"calls": 1,`, `"calls": -1,`, "fn.json:19:5: functions[0] (Fibonacci.Program.Main(string[])): calls -1 is negative"},
	} {
		p := writeEdited(t, dir, tc.name, testdata("profile-tracing.json"), tc.from, tc.to)
		for _, args := range [][]string{{"report", p}, {"diff", testdata("profile-tracing.json"), p}} {
			r := vbench(t, dir, args...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", args, r.code, r.stderr, ExitUsage, tc.want)
			}
		}
	}
}

// writeEdited writes file from with every old replaced by new into dir as
// name.
func writeEdited(t *testing.T, dir, name, from, old, new string) string {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(data), old, new)
	if s == string(data) {
		t.Fatalf("%s: %q not found", name, old)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Text vbench did not write — a method name, a commit, a program's stderr —
// reaches the terminal with its control characters shown (\x1b, \n), never
// as an escape sequence or a forged line; in Markdown (a pull-request
// comment) it cannot link, embed an image, mention anyone or break a table.
func TestUntrustedTextShownInert(t *testing.T) {
	dir := t.TempDir()
	hostileName := `Fibonacci.Program.Fib\u001b]0;pwned\u0007\u001b[2J\nvbench: 0 regressions(int)`
	shown := `Fibonacci.Program.Fib\x1b]0;pwned\x07\x1b[2J\nvbench: 0 regressions(int)`
	prof := writeEdited(t, dir, "profile.json", testdata("profile-tracing.json"), `"Fibonacci.Program.Fib(int)"`, `"`+hostileName+`"`)
	hist := writeEdited(t, dir, "history.jsonl", filepath.Join(testbin.RepoRoot(), "reports", "testdata", "history.jsonl"),
		`"commit":"dd71038f3463f511ee7403dbcbc87195302d891c"`, `"commit":"\u001b[2J\nFAKE\r\u009b31m"`)
	res := writeEdited(t, dir, "results.json", testdata("results.json"), `"failure": "exit status 134 (SIGABRT): Fatal error. Internal CLR error. (0x80131506)"`,
		`"failure": "crash \u001b[31m see [here](https://evil.example/x) ![pixel](https://evil.example/p.png) cc @octocat `+"`x`"+` a|b fixes #1 at https://evil.example/bare or www.evil.example\n## forged heading"`)

	for _, tc := range []struct {
		args       []string
		want, lack []string
	}{
		{[]string{"report", prof}, []string{shown}, nil},
		{[]string{"report", prof, "--top", "5"}, []string{shown}, nil},
		{[]string{"diff", testdata("profile-tracing.json"), prof}, []string{shown}, nil},
		{[]string{"history", "show", "--history", hist}, []string{`\x1b[2J\nFAKE\r..`}, nil},
		{[]string{"report", res}, []string{`crash \x1b[31m see`}, nil},
		{[]string{"report", "--format", "markdown", res},
			[]string{"[here\\](https:\u200d//evil.example/x)", "\\![pixel\\](https:\u200d//evil.example/p.png)", "cc @\u200doctocat",
				"\\`x\\` a\\|b fixes #\u200d1 at https:\u200d//evil.example/bare or www\u200d.evil.example ## forged heading"},
			[]string{"[here](", "[pixel](", "@octocat", "\n## forged", "https://evil", "www.evil", "fixes #1 "}},
		{[]string{"history", "show", "--format", "markdown", "--history", hist}, []string{"`\\x1b[2J\\nFAKE\\r..ad552e6dc0`"}, nil},
	} {
		r := vbench(t, dir, tc.args...)
		if r.code != 0 {
			t.Errorf("%v: exit %d\n%s", tc.args, r.code, r.stderr)
			continue
		}
		for _, out := range []string{r.stdout, r.stderr} {
			for _, c := range out {
				if c == 0x1b || c == '\r' || c == 0x07 || (c >= 0x80 && c < 0xa0) {
					t.Errorf("%v: output holds the control character %U:\n%s", tc.args, c, out)
					break
				}
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, r.stdout)
			}
		}
		for _, l := range tc.lack {
			if strings.Contains(r.stdout, l) {
				t.Errorf("%v: output holds %q:\n%s", tc.args, l, r.stdout)
			}
		}
	}
}
