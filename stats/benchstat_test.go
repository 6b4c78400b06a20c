package stats

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/perf/benchmath"

	"vbench/internal/testbin"
)

// TestAgainstBenchstat writes samples in Go benchmark format, runs the real
// benchstat (golang.org/x/perf/cmd/benchstat, built by testbin) and
// checks that our medians, interval widths and p-values are the ones it prints.
func TestAgainstBenchstat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs benchstat")
	}
	benchstat := testbin.Benchstat(t)
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	type pair struct{ old, new []float64 }
	var pairs []pair
	var oldTxt, newTxt strings.Builder
	for b := 0; b < 6; b++ {
		n := 6 + 3*b // 6..21 runs
		shift := 1 + 0.02*float64(b-1)
		var p pair
		for i := 0; i < n; i++ {
			p.old = append(p.old, math.Round(1e6*math.Exp(0.03*rng.NormFloat64())))
			p.new = append(p.new, math.Round(shift*1e6*math.Exp(0.03*rng.NormFloat64())))
			fmt.Fprintf(&oldTxt, "BenchmarkW%d 1 %d ns/op\n", b, int64(p.old[i]))
			fmt.Fprintf(&newTxt, "BenchmarkW%d 1 %d ns/op\n", b, int64(p.new[i]))
		}
		pairs = append(pairs, p)
	}
	oldF, newF := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	os.WriteFile(oldF, []byte(oldTxt.String()), 0o644)
	os.WriteFile(newF, []byte(newTxt.String()), 0o644)
	cmd := exec.Command(benchstat, "-format", "csv", oldF, newF)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	if err != nil {
		t.Fatalf("benchstat csv: %v\n%s", err, out)
	}
	pRe := regexp.MustCompile(`p=([0-9.]+)`)
	checked := 0
	for _, row := range rows {
		var b int
		if _, err := fmt.Sscanf(row[0], "W%d", &b); err != nil {
			continue
		}
		p := pairs[b]
		for side, xs := range [][]float64{p.old, p.new} {
			center, _ := strconv.ParseFloat(row[1+2*side], 64)
			s := Summarize(xs)
			if !near(s.Median, center*1e9, 1e-9) {
				t.Errorf("W%d side %d: median %v, benchstat %v", b, side, s.Median, center*1e9)
			}
			pct := benchmath.Summary{Center: s.Median, Lo: s.Lo, Hi: s.Hi}.PctRangeString()
			if pct != row[2+2*side] {
				t.Errorf("W%d side %d: interval ±%s, benchstat ±%s", b, side, pct, row[2+2*side])
			}
		}
		m := pRe.FindStringSubmatch(row[6])
		if m == nil {
			t.Fatalf("no p-value in %q", row)
		}
		c := Compare(p.old, p.new)
		if got := fmt.Sprintf("%0.3f", c.P); got != m[1] {
			t.Errorf("W%d: p=%s, benchstat p=%s", b, got, m[1])
		}
		checked++
	}
	if checked != len(pairs) {
		t.Fatalf("checked %d rows of %d\n%s", checked, len(pairs), out)
	}
}
