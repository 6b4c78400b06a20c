package reports

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"vbench/internal/results"
	"vbench/internal/testbin"
)

func goBenchString(t *testing.T, f *results.File) string {
	t.Helper()
	var b bytes.Buffer
	if err := GoBench(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Reading the output back with benchfmt gives one result per measured,
// successful run, with the run's own numbers.
func TestGoBenchRoundTrip(t *testing.T) {
	f := readResults(t, "results.json")
	out := goBenchString(t, f)
	r := benchfmt.NewReader(strings.NewReader(out), "results.txt")
	got := map[string][]float64{}
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			if rec.Iters != 1 {
				t.Errorf("%s: %d iterations, want 1 per run", rec.Name, rec.Iters)
			}
			if rec.GetConfig("suite") != f.Suite.Name || rec.GetConfig("cpu") != f.Machine.CPUModel || rec.GetConfig("goos") != "linux" {
				t.Errorf("%s: config suite=%q cpu=%q goos=%q", rec.Name, rec.GetConfig("suite"), rec.GetConfig("cpu"), rec.GetConfig("goos"))
			}
			sec, ok := rec.Value("sec/op")
			if !ok {
				t.Fatalf("%s: no time value", rec.Name)
			}
			rss, ok := rec.Value("max-rss-B")
			if !ok {
				t.Fatalf("%s: no max-rss-B value", rec.Name)
			}
			for _, u := range []string{"wall-sec/op", "user-sec/op", "sys-sec/op"} {
				if _, ok := rec.Value(u); !ok {
					t.Errorf("%s: no %s", rec.Name, u)
				}
			}
			got[rec.Name.String()] = append(got[rec.Name.String()], sec*1e9, rss)
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt cannot read its own writer's output: %v", rec)
		}
	}
	for _, c := range f.Results {
		name := strings.ToUpper(c.Workload[:1]) + c.Workload[1:] + "/mode=" + string(c.Mode)
		var want []float64
		for _, run := range c.Samples {
			if !run.Warmup && run.Error == "" {
				want = append(want, float64(run.ElapsedNs), float64(run.MaxRSS))
			}
		}
		g := got[name]
		if len(g) != len(want) {
			t.Errorf("%s: %d values, want %d (one pair per measured run)", name, len(g)/2, len(want)/2)
			continue
		}
		for i := range want {
			if d := g[i] - want[i]; d > 1 || d < -1 {
				t.Errorf("%s: value %d is %v, the run has %v", name, i, g[i], want[i])
			}
		}
	}
}

func TestBenchName(t *testing.T) {
	for in, want := range map[string]string{"fibonacci": "Fibonacci", "json parse": "Json_parse", "a/b": "A_b", "Ünï": "Ünï"} {
		if got := benchName(in); got != want {
			t.Errorf("benchName(%q) = %q, want %q", in, got, want)
		}
	}
}

// benchstat old.txt new.txt on two runs' gobench output reports every cell
// and flags exactly the changes the fixtures hold.
func TestBenchstatComparesTwoRuns(t *testing.T) {
	old, cur := readResults(t, "baseline.json"), readResults(t, "results.json")
	dir := t.TempDir()
	oldTxt, newTxt := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	for p, f := range map[string]*results.File{oldTxt: old, newTxt: cur} {
		if err := os.WriteFile(p, []byte(goBenchString(t, f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(testbin.Benchstat(t), "-filter", ".unit:sec/op", oldTxt, newTxt)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	text := string(out)
	rows := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], "/mode=") {
			rows[f[0]] = line
		}
	}
	for _, c := range cur.Results {
		name := benchName(c.Workload) + "/mode=" + string(c.Mode)
		row, ok := rows[name]
		if !ok {
			t.Errorf("benchstat has no row for %s:\n%s", name, text)
			continue
		}
		switch c.Verdict {
		case results.VerdictRegressed, results.VerdictImproved:
			want := fmt.Sprintf("%+.2f%%", (c.Compare.Ratio-1)*100)
			if !strings.Contains(row, want) || !strings.Contains(row, "p=0.000") {
				t.Errorf("%s (%s): benchstat row %q lacks %s at p=0.000", name, c.Verdict, row, want)
			}
		case results.VerdictSame:
			if !strings.Contains(row, "~") {
				t.Errorf("%s (same): benchstat row %q reports a change", name, row)
			}
		}
	}
}

// benchstat -col /mode on one run puts the modes side by side: the overhead
// table, with each mode's change against none.
func TestBenchstatModesAsColumns(t *testing.T) {
	cur := readResults(t, "results.json")
	p := filepath.Join(t.TempDir(), "new.txt")
	if err := os.WriteFile(p, []byte(goBenchString(t, cur)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(testbin.Benchstat(t), "-col", "/mode", "-filter", ".unit:sec/op", p).CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	var row string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Mandelbrot ") {
			row = line
		}
	}
	c := cellOf(t, cur, "mandelbrot", "tracing")
	if want := fmt.Sprintf("%+.2f%%", (c.Overhead-1)*100); !strings.Contains(row, want) {
		t.Errorf("Mandelbrot row %q lacks the tracing overhead %s", row, want)
	}
}
