package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two doors: vbench report renders results, vbench show a profile. The old
// spelling `vbench report PROFILE` still shows it, the same bytes, for one
// release, and says on stderr which command to use; each door refuses the
// other's input naming the right one.
func TestReportAndShowAreTwoDoors(t *testing.T) {
	dir := t.TempDir()
	prof := testdata("profile-tracing.json")
	for _, args := range [][]string{{"--top", "5"}, {"-o", filepath.Join(dir, "x.svg")}} {
		show := vbench(t, dir, append([]string{"show", prof}, args...)...)
		if show.code != 0 || strings.Contains(show.stderr, "deprecated") {
			t.Fatalf("vbench show %q: exit %d\n%s", args, show.code, show.stderr)
		}
		svg, _ := os.ReadFile(filepath.Join(dir, "x.svg"))
		old := vbench(t, dir, append([]string{"report", prof}, args...)...)
		svgOld, _ := os.ReadFile(filepath.Join(dir, "x.svg"))
		if old.code != 0 || old.stdout != show.stdout || string(svg) != string(svgOld) {
			t.Errorf("vbench report PROFILE %q: exit %d, not what vbench show prints\n%s", args, old.code, old.stderr)
		}
		if want := "vbench: `vbench report PROFILE` is deprecated and goes in a later release: use `vbench show " + prof + "`"; !strings.Contains(old.stderr, want) {
			t.Errorf("vbench report PROFILE: stderr %q, want %q", old.stderr, want)
		}
	}
	res := testdata("results.json")
	if r := vbench(t, dir, "show", res); r.code != 2 || !strings.Contains(r.stderr, "is a results file: vbench report "+res+" renders it") {
		t.Errorf("vbench show RESULTS: exit %d\n%s", r.code, r.stderr)
	}
	if r := vbench(t, dir, "report", res); r.code != 0 || strings.Contains(r.stderr, "deprecated") {
		t.Errorf("vbench report RESULTS: exit %d\n%s", r.code, r.stderr)
	}
	if r := vbench(t, dir, "report", "--help"); strings.Contains(r.stdout, "--top") || strings.Contains(r.stdout, "--per-thread") {
		t.Errorf("vbench report --help lists the profile flags:\n%s", r.stdout)
	}
}

// One trend view of a history: vbench report --history FILE draws the page
// `vbench history report` drew, which still draws it, for one release, and
// names the new spelling on stderr.
func TestHistoryPageIsReports(t *testing.T) {
	dir := t.TempDir()
	h := testdata("history.jsonl")
	now := vbench(t, dir, "report", "--history", h, "-o", "new.html")
	old := vbench(t, dir, "history", "report", "--history", h, "-o", "old.html")
	if now.code != 0 || old.code != 0 || strings.Contains(now.stderr, "deprecated") {
		t.Fatalf("exit %d, %d\n%s%s", now.code, old.code, now.stderr, old.stderr)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "new.html"))
	b, _ := os.ReadFile(filepath.Join(dir, "old.html"))
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("the two spellings drew different pages (%d, %d bytes)", len(a), len(b))
	}
	if want := "use `vbench report --history " + h + " -o old.html`"; !strings.Contains(old.stderr, want) {
		t.Errorf("vbench history report: stderr %q, want %q", old.stderr, want)
	}
	if r := vbench(t, dir, "report", "--history", h, testdata("results.json")); r.code != 2 {
		t.Errorf("--history with a results file: exit %d\n%s", r.code, r.stderr)
	}
}
