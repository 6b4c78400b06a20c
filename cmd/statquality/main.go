// Command statquality measures how trustworthy vbench's verdicts are on this
// machine, with real runs of a real workload:
//
//   - A/A: the same build against itself, -reps times: every "regressed" is a
//     false alarm; the rate should stay at or below the suite's alpha.
//   - A/B: the workload slowed down by its work-scale argument (default
//     --scale 1.05, i.e. 5% more work) against the original: the share of
//     repetitions flagged "regressed" is the detection rate.
//   - Bookkeeping: the harness's own time per run beyond the child process,
//     from every results file, plus a suite of no-op runs.
//
// It runs bin/vbench as a user would and judges with the same code as
// `vbench compare`. Usage (see scripts/stat-quality.sh):
//
//	statquality -suite benchmarks/quick.yaml -workload fibonacci -reps 20
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"vbench/baseline"
	"vbench/internal/machine"
	"vbench/internal/results"
	"vbench/internal/suite"
	"vbench/reports"
	"vbench/reports/numfmt"
	"vbench/stats"
)

func main() {
	suitePath := flag.String("suite", "", "suite file holding the workload")
	workload := flag.String("workload", "", "workload to measure")
	mode := flag.String("mode", string(results.ModeNone), "mode to run it under")
	reps := flag.Int("reps", 20, "repetitions of each experiment")
	runs := flag.Int("runs", 0, "measured runs per cell (default: the suite's)")
	scaleFlag := flag.String("scale-flag", "--scale", "the workload's work-scale argument")
	scale := flag.Float64("scale", 1.05, "work scale of the B side")
	vbench := flag.String("vbench", "bin/vbench", "vbench binary")
	profiler := flag.String("profiler", "", "profiler library, for profiled modes")
	keep := flag.String("keep", "", "keep the results files in this directory")
	also := flag.String("also-min-change", "0.025", "comma-separated further minimum changes to judge the same runs with")
	flag.Parse()
	if *suitePath == "" || *workload == "" {
		fmt.Fprintln(os.Stderr, "usage: statquality -suite SUITE.yaml -workload NAME [-reps 20] [-scale 1.05]")
		os.Exit(2)
	}
	var thresholds []float64
	for _, t := range strings.Split(*also, ",") {
		var x float64
		if _, err := fmt.Sscan(t, &x); err == nil && x > 0 {
			thresholds = append(thresholds, x)
		}
	}
	if err := run(os.Stdout, *suitePath, *workload, *mode, *reps, *runs, *scaleFlag, *scale, *vbench, *profiler, *keep, thresholds); err != nil {
		fmt.Fprintln(os.Stderr, "statquality:", err)
		os.Exit(1)
	}
}

func run(out io.Writer, suitePath, name, mode string, reps, runs int, scaleFlag string, scale float64, vbench, profiler, keep string, also []float64) error {
	s, err := suite.Load(suitePath)
	if err != nil {
		return err
	}
	var w *suite.Workload
	for i := range s.Workloads {
		if s.Workloads[i].Name == name {
			w = &s.Workloads[i]
		}
	}
	if w == nil {
		return fmt.Errorf("%s has no workload %q", suitePath, name)
	}
	if runs == 0 {
		runs = s.Runs
		if w.Runs > 0 {
			runs = w.Runs
		}
	}
	dir := keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "vbench-statq-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	vbench, _ = filepath.Abs(vbench)
	a, err := writeSuite(dir, "a.yaml", s, w, mode, runs, scaleFlag, variant{w.Name, 1})
	if err != nil {
		return err
	}
	b, err := writeSuite(dir, "b.yaml", s, w, mode, runs, scaleFlag, variant{w.Name, scale})
	if err != nil {
		return err
	}
	// The same three variants in one suite, their runs interleaved.
	inter, err := writeSuite(dir, "interleaved.yaml", s, w, mode, runs, scaleFlag, variant{"a1", 1}, variant{"a2", 1}, variant{"b", scale})
	if err != nil {
		return err
	}
	started := time.Now()
	var bookkeeping, startup, otherCPU []float64
	measure := func(suiteFile, path string) (*results.File, error) {
		args := []string{"run", suiteFile, "--quiet", "--no-baseline", "--json", path, "--format", "csv"}
		if profiler != "" {
			args = append(args, "--profiler", profiler)
		}
		cmd := exec.Command(vbench, args...)
		cmd.Stderr = os.Stderr
		if o, err := cmd.Output(); err != nil {
			return nil, fmt.Errorf("vbench %s: %v\n%s", strings.Join(args, " "), err, o)
		}
		f, err := results.ReadFile(path)
		if err != nil {
			return nil, err
		}
		bookkeeping = append(bookkeeping, f.BookkeepingNs)
		otherCPU = append(otherCPU, f.OtherCPU)
		for _, c := range f.Results {
			startup = append(startup, c.WallMedianNs-c.MedianNs)
		}
		return f, nil
	}
	// pairs[i] = {A1, A2, B, the A that B is judged against}; interleaved[i]
	// the same from one suite run whose cells ran interleaved.
	var pairs, interleaved [][4]*results.File
	for i := 0; i < reps; i++ {
		p := func(s string) string { return filepath.Join(dir, fmt.Sprintf("%02d-%s.json", i, s)) }
		a1, err := measure(a, p("a1"))
		if err != nil {
			return err
		}
		bf, err := measure(b, p("b"))
		if err != nil {
			return err
		}
		a2, err := measure(a, p("a2"))
		if err != nil {
			return err
		}
		// B ran between the two A runs; judge it against each in turn so a
		// slow drift does not always push the same way.
		ref := a1
		if i%2 == 1 {
			ref = a2
		}
		pairs = append(pairs, [4]*results.File{a1, a2, bf, ref})
		in, err := measure(inter, p("interleaved"))
		if err != nil {
			return err
		}
		ia1, ia2, ib := split(in, "a1"), split(in, "a2"), split(in, "b")
		ref = ia1
		if i%2 == 1 {
			ref = ia2
		}
		interleaved = append(interleaved, [4]*results.File{ia1, ia2, ib, ref})
		fmt.Fprintf(os.Stderr, "statquality: rep %d/%d: A/A %s, A/B %s\n", i+1, reps,
			numfmt.Change(a2.Results[0].MedianNs/a1.Results[0].MedianNs), numfmt.Change(bf.Results[0].MedianNs/ref.Results[0].MedianNs))
	}
	type tally struct {
		aa, ab             map[string]int
		aaRatios, abRatios []float64
	}
	judge := func(pairs [][4]*results.File, minChange float64) tally {
		t := tally{aa: map[string]int{}, ab: map[string]int{}}
		opts := baseline.Options{Alpha: s.Alpha, MinChange: minChange}
		for _, p := range pairs {
			baseline.Compare(p[0], p[1], opts)
			c := p[1].Results[0]
			t.aa[c.Verdict]++
			t.aaRatios = append(t.aaRatios, c.Compare.Ratio)
			baseline.Compare(p[3], p[2], opts)
			c = p[2].Results[0]
			t.ab[c.Verdict]++
			t.abRatios = append(t.abRatios, c.Compare.Ratio)
		}
		return t
	}
	noop, err := noopBookkeeping(dir, vbench)
	if err != nil {
		return err
	}
	fp := machine.Collect(context.Background())
	fmt.Fprintf(out, "### Statistical quality: %s / %s (%s)\n\n", s.Name, name, mode)
	fmt.Fprintf(out, "Measured %s on %s, %d cores, %s, .NET %s; vbench %s; %s.\n\n",
		time.Now().UTC().Format("2006-01-02"), fp.CPUModel, fp.Cores, fp.OS, fp.DotnetRuntime, short(fp.VbenchCommit), time.Since(started).Round(time.Second))
	fmt.Fprintf(out, "Settings: %d measured runs per cell (+%d warmup), alpha %g, %d repetitions, B = `%s %g`; the first rows use the suite's minimum change (%g%%).\n\n",
		runs, s.Warmup, s.Alpha, reps, scaleFlag, scale, 100*s.MinChange)
	var rows [][]string
	for _, how := range []struct {
		label string
		pairs [][4]*results.File
	}{{"separate runs", pairs}, {"interleaved in one run", interleaved}} {
		for _, mc := range append([]float64{s.MinChange}, also...) {
			t := judge(how.pairs, mc)
			row := func(label string, verdicts map[string]int, ratios []float64) []string {
				reg := verdicts[results.VerdictRegressed]
				return []string{label, fmt.Sprintf("%g%%", 100*mc), fmt.Sprintf("%d/%d (%s)", reg, reps, numfmt.Share(float64(reg), float64(reps))),
					fmt.Sprint(verdicts[results.VerdictImproved]), fmt.Sprint(verdicts[results.VerdictSame]), spread(ratios)}
			}
			rows = append(rows, row("A/A, "+how.label, t.aa, t.aaRatios),
				row(fmt.Sprintf("A/B (%s %g), %s", scaleFlag, scale, how.label), t.ab, t.abRatios))
		}
	}
	header := []string{"experiment", "min change", "regressed", "improved", "same", "median change [min, max]"}
	if err := reports.WriteMarkdownTable(out, header, rows, reports.Left, reports.Right, reports.Right, reports.Right, reports.Right, reports.Right); err != nil {
		return err
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "Harness bookkeeping per run beyond the child process: median %s over %d suite runs of the workload (max %s); %s per no-op run (`/bin/echo`, 100 runs).\n",
		numfmt.Duration(stats.Median(bookkeeping)), len(bookkeeping), numfmt.Duration(max(bookkeeping)), numfmt.Duration(noop))
	fmt.Fprintf(out, "Other processes kept %.2f cores busy during a suite run (median over the runs; max %.2f) on this %d-core machine.\n",
		stats.Median(otherCPU), max(otherCPU), fp.Cores)
	fmt.Fprintf(out, "Process start-up and shutdown outside the workload's own timer (wall − elapsed, median): %s.\n", numfmt.Duration(stats.Median(startup)))
	return nil
}

// variant is the workload under another name with its work scaled.
type variant struct {
	name  string
	scale float64
}

// writeSuite writes a suite of variants of w, all under mode.
func writeSuite(dir, file string, s *suite.Suite, w *suite.Workload, mode string, runs int, scaleFlag string, variants ...variant) (string, error) {
	var wls []any
	for _, v := range variants {
		wl := map[string]any{"name": v.name, "cwd": w.Cwd}
		extra := []string{scaleFlag, fmt.Sprint(v.scale)}
		if w.Project != "" {
			wl["project"] = w.Project
			wl["args"] = append(append([]string{}, w.Args...), extra...)
		} else {
			wl["command"] = append(append([]string{}, w.Command...), extra...)
		}
		if len(w.Env) > 0 {
			env := map[string]string{}
			for _, kv := range w.Env {
				k, val, _ := strings.Cut(kv, "=")
				env[k] = val
			}
			wl["env"] = env
		}
		wls = append(wls, wl)
	}
	doc := map[string]any{
		"name":       "statq-" + s.Name,
		"runs":       runs,
		"warmup":     s.Warmup,
		"modes":      []string{mode},
		"timeout":    s.Timeout.String(),
		"thresholds": map[string]any{"alpha": s.Alpha, "min_change": s.MinChange},
		"baseline":   filepath.Join(dir, "none.json"),
		"workloads":  wls,
	}
	if s.Profiler.Interval > 0 {
		doc["profiler"] = map[string]any{"interval": s.Profiler.Interval.String()}
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, file)
	return p, os.WriteFile(p, b, 0o644)
}

// split takes one workload's cell out of an interleaved run as a file of its
// own, named like the original workload, so it can be judged like a separate run.
func split(f *results.File, name string) *results.File {
	g := *f
	c := *f.Find(name, f.Results[0].Mode)
	c.Workload = "w"
	g.Results = []results.Cell{c}
	return &g
}

// noopBookkeeping runs 100 no-op launches and returns the harness's time per run.
func noopBookkeeping(dir, vbench string) (float64, error) {
	p := filepath.Join(dir, "noop.yaml")
	os.WriteFile(p, []byte("name: noop\nruns: 100\nwarmup: 0\nmodes: [none]\nbaseline: none.json\nworkloads:\n  - name: echo\n    command: [/bin/echo, \"VBENCH elapsed_ns=1 checksum=x\"]\n"), 0o644)
	out := filepath.Join(dir, "noop.json")
	cmd := exec.Command(vbench, "run", p, "--quiet", "--no-baseline", "--json", out, "--format", "csv")
	cmd.Stderr = os.Stderr
	if o, err := cmd.Output(); err != nil {
		return 0, fmt.Errorf("no-op suite: %v\n%s", err, o)
	}
	f, err := results.ReadFile(out)
	if err != nil {
		return 0, err
	}
	return f.BookkeepingNs, nil
}

// spread is the median change of a set of ratios and its range: "+0.5% [-1.2%, +2.0%]".
func spread(ratios []float64) string {
	s := append([]float64(nil), ratios...)
	sort.Float64s(s)
	return numfmt.Change(stats.Median(s)) + " " + numfmt.Range(numfmt.Change(s[0]), numfmt.Change(s[len(s)-1]))
}

func max(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		if x > m {
			m = x
		}
	}
	return m
}

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
