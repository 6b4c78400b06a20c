//go:build vbenchstudy

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
	var files []string
	for i := 0; i < c.reps; i++ {
		sides := []struct{ name, newLib string }{{"aa", lib}, {"ab", slow}}
		if i%2 == 1 { // alternate which side runs first
			sides[0], sides[1] = sides[1], sides[0]
		}
		for _, side := range sides {
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
			files = append(files, path)
			fmt.Fprintf(os.Stderr, "statquality: run-level rep %d/%d %s done\n", i+1, c.reps, side.name)
		}
	}
	if err := tallyRunLevel(out, files, filepath.Base(slow)); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nSuite %s, %d repetitions of each, %s; `uptime` before: %s; after: %s.\n",
		c.runLevel, c.reps, time.Since(started).Round(time.Second), uptime0, uptime())
	return nil
}

// tallyRunLevel reads the run-level experiment's results files
// (NN-run-aa.json, NN-run-ab.json) and prints its line, then what each
// repetition judged. An A/A run with any regressed cell is a false
// failure. An A/B run caught the slow build when it failed on it: some
// tracing cell regressed and nothing else did (the slow build spins in the
// enter hook, which only tracing calls; on workloads that make few calls —
// mandelbrot, exceptions — it adds under 1%, which no rule should flag, so
// "every tracing cell" cannot be the criterion). How often each workload's
// tracing cell was caught is printed beside it.
func tallyRunLevel(out io.Writer, files []string, slowName string) error {
	var aaFalse, abCaught, nAA, nAB int
	var details []string
	var otherCPU, aaRuns, abRuns []float64
	perWorkload := map[string]int{}
	var workloads []string
	for _, path := range files {
		f, err := results.ReadFile(path)
		if err != nil {
			return err
		}
		aa := strings.HasSuffix(path, "-aa.json")
		otherCPU = append(otherCPU, f.OtherCPU)
		counts := f.Counts()
		var tracing, tracingRegressed, otherRegressed int
		for _, cell := range f.Results {
			if cell.Compare == nil || cell.Compare.Against == "" {
				continue
			}
			if aa {
				aaRuns = append(aaRuns, float64(cell.Runs))
			} else {
				abRuns = append(abRuns, float64(cell.Runs))
			}
			switch {
			case cell.Mode == modes.Tracing:
				tracing++
				if _, ok := perWorkload[cell.Workload]; !ok {
					perWorkload[cell.Workload] = 0
					workloads = append(workloads, cell.Workload)
				}
				if cell.Verdict == results.VerdictRegressed {
					tracingRegressed++
					if !aa {
						perWorkload[cell.Workload]++
					}
				}
			case cell.Verdict == results.VerdictRegressed:
				otherRegressed++
			}
		}
		detail := fmt.Sprintf("%s %s: %d regressed, %d improved, %d inconclusive, %d same; tracing regressed %d/%d",
			filepath.Base(path), map[bool]string{true: "A/A", false: "A/B"}[aa],
			counts[results.VerdictRegressed], counts[results.VerdictImproved], counts[results.VerdictInconclusive], counts[results.VerdictSame], tracingRegressed, tracing)
		details = append(details, detail)
		if aa {
			nAA++
			if counts[results.VerdictRegressed] > 0 {
				aaFalse++
			}
		} else {
			nAB++
			if tracingRegressed > 0 && otherRegressed == 0 {
				abCaught++
			}
		}
	}
	fmt.Fprintf(out, "suite A/A (--against the same build): runs with a false regression %d/%d; suite A/B (--against, B = %s): runs that caught it %d/%d\n",
		aaFalse, nAA, slowName, abCaught, nAB)
	var per []string
	for _, w := range workloads {
		per = append(per, fmt.Sprintf("%s %d/%d", w, perWorkload[w], nAB))
	}
	fmt.Fprintf(out, "\nA/B tracing cells regressed, by workload: %s.\n", strings.Join(per, ", "))
	fmt.Fprintf(out, "Other processes' cores: median %.2f [max %.2f]. Runs per side of the A/B pairs (adaptive rounds): A/A median %.0f [max %.0f]; A/B median %.0f [max %.0f].\n",
		stats.Median(otherCPU), maxOf(otherCPU), stats.Median(aaRuns), maxOf(aaRuns), stats.Median(abRuns), maxOf(abRuns))
	for _, d := range details {
		fmt.Fprintf(out, "- %s\n", d)
	}
	return nil
}
