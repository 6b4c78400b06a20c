package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"vbench/internal/modes"

	"vbench/internal/results"
	"vbench/stats"
)

// runLevel is the run-level experiment: the whole suite c.runLevel run
// `vbench run --against` c.reps times with the same build on both sides
// (a copy at another path: A/A) and c.reps times with the slow build as NEW
// (A/B), alternating so that drift hits both alike. The run is the unit: a
// pull request's CI job acts on its exit code, so an A/A run with any
// regressed cell is a false failure, and an A/B run caught the slow build
// when every tracing cell regressed (the slow build spins in the enter
// hook, which only tracing calls).
func runLevel(out io.Writer, c config) error {
	dir := c.keep
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "vbench-statq-run-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	vb, _ := filepath.Abs(c.vbench)
	lib := c.profiler
	if lib == "" {
		lib = filepath.Join(filepath.Dir(vb), "libvbenchprof.so")
	}
	lib, _ = filepath.Abs(lib)
	slow, _ := filepath.Abs(c.slow)
	// The same build at another path, as a pull request that changes
	// nothing has it: base/ and head/ hold identical libraries.
	twin := filepath.Join(dir, "same-build", "libvbenchprof.so")
	if err := os.MkdirAll(filepath.Dir(twin), 0o755); err != nil {
		return err
	}
	if b, err := os.ReadFile(lib); err != nil {
		return err
	} else if err := os.WriteFile(twin, b, 0o644); err != nil {
		return err
	}
	started := time.Now()
	uptime0 := uptime()
	var aaFalse, abCaught int
	var aaDetail, abDetail []string
	var otherCPU, aaRuns, abRuns []float64
	for i := 0; i < c.reps; i++ {
		for _, side := range []struct{ name, newLib string }{{"aa", lib}, {"ab", slow}} {
			if i%2 == 1 { // alternate which side runs first
				if side.name == "aa" {
					side = struct{ name, newLib string }{"ab", slow}
				} else {
					side = struct{ name, newLib string }{"aa", lib}
				}
			}
			path := filepath.Join(dir, fmt.Sprintf("%02d-run-%s.json", i, side.name))
			against := lib
			if side.name == "aa" {
				against = twin
			}
			args := []string{"run", c.runLevel, "--quiet", "--no-baseline", "--no-step-summary", "--json", path, "--format", "csv", "--profiler", side.newLib, "--against", against}
			cmd := exec.Command(vb, args...)
			cmd.Stderr = os.Stderr
			if o, err := cmd.Output(); err != nil && cmd.ProcessState.ExitCode() != 1 {
				return fmt.Errorf("vbench %s: %v\n%s", strings.Join(args, " "), err, o)
			}
			f, err := results.ReadFile(path)
			if err != nil {
				return err
			}
			otherCPU = append(otherCPU, f.OtherCPU)
			counts := f.Counts()
			var tracing, tracingRegressed int
			for _, cell := range f.Results {
				if cell.Compare == nil || cell.Compare.Against == "" {
					continue
				}
				if side.name == "aa" {
					aaRuns = append(aaRuns, float64(cell.Runs))
				} else {
					abRuns = append(abRuns, float64(cell.Runs))
				}
				if cell.Mode == modes.Tracing {
					tracing++
					if cell.Verdict == results.VerdictRegressed {
						tracingRegressed++
					}
				}
			}
			detail := fmt.Sprintf("%d regressed, %d improved, %d inconclusive, %d same; tracing regressed %d/%d",
				counts[results.VerdictRegressed], counts[results.VerdictImproved], counts[results.VerdictInconclusive], counts[results.VerdictSame], tracingRegressed, tracing)
			if side.name == "aa" {
				if counts[results.VerdictRegressed] > 0 {
					aaFalse++
				}
				aaDetail = append(aaDetail, detail)
			} else {
				if tracing > 0 && tracingRegressed == tracing {
					abCaught++
				}
				abDetail = append(abDetail, detail)
			}
			fmt.Fprintf(os.Stderr, "statquality: run-level rep %d/%d %s: %s\n", i+1, c.reps, side.name, detail)
		}
	}
	fmt.Fprintf(out, "suite A/A (--against the same build): runs with a false regression %d/%d; suite A/B (--against, B = %s): runs that caught it %d/%d\n",
		aaFalse, c.reps, filepath.Base(slow), abCaught, c.reps)
	fmt.Fprintf(out, "\nSuite %s, %d repetitions of each, %s; other processes' cores: median %.2f; `uptime` before: %s; after: %s.\n",
		c.runLevel, c.reps, time.Since(started).Round(time.Second), stats.Median(otherCPU), uptime0, uptime())
	fmt.Fprintf(out, "Runs per side of the A/B pairs (adaptive rounds): A/A median %.0f [max %.0f]; A/B median %.0f [max %.0f].\n",
		stats.Median(aaRuns), maxOf(aaRuns), stats.Median(abRuns), maxOf(abRuns))
	for i := range aaDetail {
		fmt.Fprintf(out, "- rep %d: A/A %s; A/B %s\n", i+1, aaDetail[i], abDetail[i])
	}
	return nil
}
