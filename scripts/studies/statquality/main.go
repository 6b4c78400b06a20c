//go:build vbenchstudy

// Command statquality measures how trustworthy vbench's verdicts are on this
// machine, with real runs of a real workload, judged by the code `vbench
// compare` uses (verdict.Apply) at the suite's thresholds. Each
// experiment is repeated -reps times and prints one line:
//
//	<experiment>: A/A false alarms X/N; A/B detected Y/N
//
// A/A compares a build with itself: every verdict other than "same" is a
// false alarm. A/B compares a 5% slower variant with the original: the
// share judged "regressed" is the detection rate. The experiments:
//
//   - within one run: A1, A2 and B (the workload's --scale 1.05: 5% more
//     work) as three workloads of one suite, their runs interleaved;
//
//   - across invocations: A1, B and A2 as three separate `vbench run`s, B
//     judged against A1 or A2 alternately, as a stored baseline is;
//
//   - with -slow LIB: within one run, `vbench run --against` under
//     -ab-mode (default tracing): A/A runs the profiler against itself, A/B
//     the slow build (make slow-profiler) against it, and the verdict is
//     vbench's own A/B verdict.
//
//   - with -run-level SUITE (-only suite): the run as the unit — the whole
//     suite `vbench run --against`, as a pull request's CI job runs it.
//     A/A: the profiler against a copy of itself at another path; a run
//     with any regressed cell is a false failure. A/B: the slow build
//     against the profiler; a run caught it when every tracing cell
//     regressed. Prints exactly
//
//     suite A/A (--against the same build): runs with a false regression X/N; suite A/B (--against, B = libvbenchprof-slow.so): runs that caught it Y/N
//
// It also reports the harness's bookkeeping per run and how busy the
// machine was (`uptime` before and after, and each run's other_cpu). Usage
// (see scripts/studies/stat-quality.sh):
//
//	statquality -suite benchmarks/suite.yaml -workload fibonacci -reps 20
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
	"vbench/internal/verdict"

	"gopkg.in/yaml.v3"

	"vbench/internal/machine"
	"vbench/internal/modes"
	"vbench/internal/numfmt"
	"vbench/internal/results"
	"vbench/internal/suite"
	"vbench/reports"
	"vbench/stats"
)

// config is what one measurement needs.
type config struct {
	suitePath, workload string
	mode                modes.Mode
	reps, runs          int
	scaleFlag           string
	scale               float64
	vbench, profiler    string
	keep                string
	slow                string     // the slow build, for the --against experiment
	abMode              modes.Mode // the mode it runs under
	only                string     // run only this experiment (within, across, against, suite); "": all
	runLevel            string     // the suite the run-level experiment runs whole
}

func main() {
	var c config
	var mode string
	flag.StringVar(&c.suitePath, "suite", "", "suite file holding the workload")
	flag.StringVar(&c.workload, "workload", "", "workload to measure")
	flag.StringVar(&mode, "mode", string(modes.None), "mode to run it under")
	flag.IntVar(&c.reps, "reps", 20, "repetitions of each experiment")
	flag.IntVar(&c.runs, "runs", 0, "measured runs per cell (default: the suite's)")
	flag.StringVar(&c.scaleFlag, "scale-flag", "--scale", "the workload's work-scale argument")
	flag.Float64Var(&c.scale, "scale", 1.05, "work scale of the B side")
	flag.StringVar(&c.vbench, "vbench", "bin/vbench", "vbench binary")
	flag.StringVar(&c.profiler, "profiler", "", "profiler library, for profiled modes")
	flag.StringVar(&c.keep, "keep", "", "keep the results files in this directory")
	flag.StringVar(&c.slow, "slow", "", "the slow build of the profiler (make slow-profiler): also measure --against with it")
	flag.StringVar(&c.only, "only", "", "run only this experiment: within, across or against (needs -slow)")
	flag.StringVar(&c.runLevel, "run-level", "", "the run-level experiment: run this whole suite --against the same build (A/A) and the slow build (A/B), -reps times each")
	summarize := flag.String("summarize", "", "print the run-level experiment's line from the results files kept in this directory (-keep)")
	abMode := flag.String("ab-mode", string(modes.Tracing), "with -slow: the mode the --against experiment runs under")
	flag.Parse()
	c.mode, c.abMode = modes.Mode(mode), modes.Mode(*abMode)
	if *summarize != "" {
		files, _ := filepath.Glob(filepath.Join(*summarize, "*-run-a[ab].json"))
		if err := tallyRunLevel(os.Stdout, files, filepath.Base(c.slow)); err != nil {
			fmt.Fprintln(os.Stderr, "statquality:", err)
			os.Exit(1)
		}
		return
	}
	if c.only == "suite" {
		if c.runLevel == "" || c.slow == "" {
			fmt.Fprintln(os.Stderr, "statquality: -only suite needs -run-level SUITE and -slow LIB")
			os.Exit(2)
		}
		if err := runLevel(os.Stdout, c); err != nil {
			fmt.Fprintln(os.Stderr, "statquality:", err)
			os.Exit(1)
		}
		return
	}
	if c.suitePath == "" || c.workload == "" {
		fmt.Fprintln(os.Stderr, "usage: statquality -suite SUITE.yaml -workload NAME [-reps 20] [-scale 1.05]")
		os.Exit(2)
	}
	if c.only != "" && c.only != "within" && c.only != "across" && !(c.only == "against" && c.slow != "") {
		fmt.Fprintf(os.Stderr, "statquality: -only %q: want within, across or against (with -slow)\n", c.only)
		os.Exit(2)
	}
	if err := run(os.Stdout, c); err != nil {
		fmt.Fprintln(os.Stderr, "statquality:", err)
		os.Exit(1)
	}
	if c.runLevel != "" && c.slow != "" && c.only == "" {
		if err := runLevel(os.Stdout, c); err != nil {
			fmt.Fprintln(os.Stderr, "statquality:", err)
			os.Exit(1)
		}
	}
}

// experiment is one kind of comparison, repeated: per repetition the file
// A/A judges (A2 against A1) and the one A/B judges (B against A1 or A2).
type experiment struct {
	label    string
	aa, ab   []pair
	otherCPU []float64
	// verdicts vbench gave itself (the --against experiment): the NEW
	// cells of the A/A and A/B runs, already judged.
	aaCells, abCells []results.Cell
}

type pair struct{ base, cur *results.File }

func run(out io.Writer, c config) error {
	s, err := suite.Load(c.suitePath)
	if err != nil {
		return err
	}
	var w *suite.Workload
	for i := range s.Workloads {
		if s.Workloads[i].Name == c.workload {
			w = &s.Workloads[i]
		}
	}
	if w == nil {
		return fmt.Errorf("%s has no workload %q", c.suitePath, c.workload)
	}
	if c.runs == 0 {
		c.runs = s.Runs
		if w.Runs > 0 {
			c.runs = w.Runs
		}
	}
	dir := c.keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "vbench-statq-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	c.vbench, _ = filepath.Abs(c.vbench)
	a, err := writeSuite(dir, "a.yaml", s, w, c, variant{w.Name, 1})
	if err != nil {
		return err
	}
	b, err := writeSuite(dir, "b.yaml", s, w, c, variant{w.Name, c.scale})
	if err != nil {
		return err
	}
	inter, err := writeSuite(dir, "interleaved.yaml", s, w, c, variant{"a1", 1}, variant{"a2", 1}, variant{"b", c.scale})
	if err != nil {
		return err
	}
	abc := c
	abc.mode = c.abMode
	abSuite, err := writeSuite(dir, "ab.yaml", s, w, abc, variant{w.Name, 1})
	if err != nil {
		return err
	}
	newLib := c.profiler
	if newLib == "" {
		newLib = filepath.Join(filepath.Dir(c.vbench), "libvbenchprof.so")
	}
	started := time.Now()
	uptime0 := uptime()
	var bookkeeping, startup []float64
	commit := "" // of the vbench binary measured (this tool, run by `go run`, has no vcs stamp)
	measure := func(suiteFile, path string, e *experiment, extra ...string) (*results.File, error) {
		args := []string{"run", suiteFile, "--quiet", "--no-baseline", "--no-step-summary", "--json", path, "--format", "csv"}
		if c.profiler != "" && len(extra) == 0 {
			args = append(args, "--profiler", c.profiler)
		}
		args = append(args, extra...)
		cmd := exec.Command(c.vbench, args...)
		cmd.Stderr = os.Stderr
		// Exit 1 is a regression: an A/B run's verdict, not an error.
		if o, err := cmd.Output(); err != nil && !(len(extra) > 0 && cmd.ProcessState.ExitCode() == 1) {
			return nil, fmt.Errorf("vbench %s: %v\n%s", strings.Join(args, " "), err, o)
		}
		f, err := results.ReadFile(path)
		if err != nil {
			return nil, err
		}
		bookkeeping = append(bookkeeping, f.BookkeepingNs)
		commit = f.Machine.VbenchCommit
		e.otherCPU = append(e.otherCPU, f.OtherCPU)
		for _, cell := range f.Results {
			startup = append(startup, cell.WallMedianNs-cell.MedianNs)
		}
		return f, nil
	}
	within := &experiment{label: fmt.Sprintf("within one run, %s %g interleaved", c.scaleFlag, c.scale)}
	across := &experiment{label: fmt.Sprintf("across invocations, %s %g against a stored baseline", c.scaleFlag, c.scale)}
	against := &experiment{label: fmt.Sprintf("within one run, --against under %s, B = %s", c.abMode, filepath.Base(c.slow))}
	for i := 0; i < c.reps; i++ {
		p := func(s string) string { return filepath.Join(dir, fmt.Sprintf("%02d-%s.json", i, s)) }
		if c.slow != "" && (c.only == "" || c.only == "against") {
			// A/A: the profiler against itself; A/B: the slow build (NEW)
			// against it (OLD). vbench judges each NEW cell itself.
			for _, side := range []struct {
				name, lib string
				cells     *[]results.Cell
			}{{"ab-aa", newLib, &against.aaCells}, {"ab-ab", c.slow, &against.abCells}} {
				f, err := measure(abSuite, p(side.name), against, "--profiler", side.lib, "--against", newLib)
				if err != nil {
					return err
				}
				if cell := f.Find(w.Name, c.abMode); cell != nil {
					*side.cells = append(*side.cells, *cell)
				}
			}
		}
		if c.only == "" || c.only == "across" {
			a1, err := measure(a, p("a1"), across)
			if err != nil {
				return err
			}
			bf, err := measure(b, p("b"), across)
			if err != nil {
				return err
			}
			a2, err := measure(a, p("a2"), across)
			if err != nil {
				return err
			}
			// B ran between the two A runs; judge it against each in turn so a
			// slow drift does not always push the same way.
			ref := a1
			if i%2 == 1 {
				ref = a2
			}
			across.aa = append(across.aa, pair{a1, a2})
			across.ab = append(across.ab, pair{ref, bf})
		}
		if c.only == "" || c.only == "within" {
			in, err := measure(inter, p("interleaved"), within)
			if err != nil {
				return err
			}
			ia1, ia2, ib := split(in, "a1"), split(in, "a2"), split(in, "b")
			ref := ia1
			if i%2 == 1 {
				ref = ia2
			}
			within.aa = append(within.aa, pair{ia1, ia2})
			within.ab = append(within.ab, pair{ref, ib})
		}
		fmt.Fprintf(os.Stderr, "statquality: rep %d/%d done\n", i+1, c.reps)
	}
	noop, err := noopBookkeeping(dir, c.vbench)
	if err != nil {
		return err
	}
	opts := verdict.Options{Alpha: s.Alpha, MinChange: s.MinChange}
	fp := machine.Collect(context.Background())
	fmt.Fprintf(out, "### Statistical quality: %s / %s (%s)\n\n", s.Name, c.workload, c.mode)
	fmt.Fprintf(out, "Measured %s on %s, %d cores, %s, .NET %s; vbench %s; %s.\n\n",
		time.Now().UTC().Format("2006-01-02"), fp.CPUModel, fp.Cores, fp.OS, fp.DotnetRuntime, short(commit), time.Since(started).Round(time.Second))
	fmt.Fprintf(out, "Settings: %d measured runs per cell (+%d warmup), alpha %g, minimum change %g%%, %d repetitions, B = `%s %g`.\n\n",
		c.runs, s.Warmup, s.Alpha, 100*s.MinChange, c.reps, c.scaleFlag, c.scale)
	var rows [][]string
	var experiments []*experiment
	for _, e := range []struct {
		name string
		e    *experiment
	}{{"within", within}, {"across", across}, {"against", against}} {
		if (c.only == "" || c.only == e.name) && (e.e != against || c.slow != "") {
			experiments = append(experiments, e.e)
		}
	}
	for _, e := range experiments {
		aa, aaRatios, aaMetric := judge(e.aa, opts)
		ab, abRatios, _ := judge(e.ab, opts)
		if e == against {
			aa, aaRatios, aaMetric = judged(e.aaCells)
			ab, abRatios, _ = judged(e.abCells)
		}
		alarms := aa[results.VerdictRegressed] + aa[results.VerdictImproved]
		nAA, nAB := total(aa), total(ab)
		fmt.Fprintf(out, "%s (%s): A/A false alarms %d/%d; A/B detected %d/%d\n", e.label, aaMetric, alarms, nAA, ab[results.VerdictRegressed], nAB)
		rows = append(rows,
			[]string{"A/A, " + e.label, fmt.Sprintf("%d/%d", alarms, nAA), fmt.Sprint(aa[results.VerdictRegressed]), fmt.Sprint(aa[results.VerdictImproved]), spread(aaRatios), cores(e.otherCPU)},
			[]string{"A/B, " + e.label, fmt.Sprintf("%d/%d", ab[results.VerdictRegressed], nAB), fmt.Sprint(ab[results.VerdictRegressed]), fmt.Sprint(ab[results.VerdictImproved]), spread(abRatios), cores(e.otherCPU)})
	}
	fmt.Fprintln(out)
	header := []string{"experiment", "false alarms / detected", "regressed", "improved", "change judged: median [min, max]", "other processes' cores: median [max]"}
	if err := reports.WriteMarkdownTable(out, header, rows, reports.Left, reports.Right, reports.Right, reports.Right, reports.Right, reports.Right); err != nil {
		return err
	}
	fmt.Fprintln(out)
	if len(against.aaCells)+len(against.abCells) > 0 {
		fmt.Fprintf(out, "Runs per side of the --against pairs (adaptive rounds up to max_runs): A/A %s; A/B %s.\n", runsTaken(against.aaCells), runsTaken(against.abCells))
	}
	fmt.Fprintf(out, "Load: `uptime` before: %s; after: %s.\n", uptime0, uptime())
	fmt.Fprintf(out, "Harness bookkeeping per run beyond the child process: median %s over %d suite runs of the workload (max %s); %s per no-op run (`/bin/echo`, 100 runs).\n",
		numfmt.Duration(stats.Median(bookkeeping)), len(bookkeeping), numfmt.Duration(maxOf(bookkeeping)), numfmt.Duration(noop))
	fmt.Fprintf(out, "Process start-up and shutdown outside the workload's own timer (wall − elapsed, median): %s.\n", numfmt.Duration(stats.Median(startup)))
	return nil
}

// judge compares each pair with verdict.Apply and tallies the verdicts
// of the workload's cell, the changes judged and the metric they judged.
func judge(pairs []pair, opts verdict.Options) (verdicts map[results.Verdict]int, ratios []float64, metric string) {
	verdicts = map[results.Verdict]int{}
	for _, p := range pairs {
		cur := *p.cur
		cur.Results = append([]results.Cell(nil), p.cur.Results...)
		verdict.Apply(&cur, p.base, opts)
		c := cur.Results[0]
		verdicts[c.Verdict]++
		if c.Compare != nil {
			ratios = append(ratios, c.Compare.Ratio)
			metric = string(c.Metric.OrDefault())
		}
	}
	return verdicts, ratios, metric
}

// judged tallies the verdicts vbench gave cells itself (an A/B run's).
func judged(cells []results.Cell) (verdicts map[results.Verdict]int, ratios []float64, metric string) {
	verdicts = map[results.Verdict]int{}
	for _, c := range cells {
		verdicts[c.Verdict]++
		if c.Compare != nil {
			ratios = append(ratios, c.Compare.Ratio)
		}
		metric = string(c.Metric.OrDefault())
	}
	return verdicts, ratios, metric
}

// runsTaken is how many runs the cells took: median [min, max].
func runsTaken(cells []results.Cell) string {
	var ns []float64
	for _, c := range cells {
		ns = append(ns, float64(c.Runs))
	}
	if len(ns) == 0 {
		return "-"
	}
	sort.Float64s(ns)
	return fmt.Sprintf("median %g [%g, %g]", stats.Median(ns), ns[0], ns[len(ns)-1])
}

func total(verdicts map[results.Verdict]int) int {
	n := 0
	for _, k := range verdicts {
		n += k
	}
	return n
}

// variant is the workload under another name with its work scaled.
type variant struct {
	name  string
	scale float64
}

// writeSuite writes a suite of variants of w, all under c.mode, with the
// suite's thresholds.
func writeSuite(dir, file string, s *suite.Suite, w *suite.Workload, c config, variants ...variant) (string, error) {
	var wls []any
	for _, v := range variants {
		wl := map[string]any{"name": v.name, "cwd": w.Cwd, "metric": string(w.Metric.OrDefault())}
		extra := []string{c.scaleFlag, fmt.Sprint(v.scale)}
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
		"runs":       c.runs,
		"warmup":     s.Warmup,
		"modes":      []string{string(c.mode)},
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
	cmd := exec.Command(vbench, "run", p, "--quiet", "--no-baseline", "--no-step-summary", "--json", out, "--format", "csv")
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

// uptime is `uptime`'s line, or why there is none.
func uptime() string {
	o, err := exec.Command("uptime").Output()
	if err != nil {
		return "(uptime: " + err.Error() + ")"
	}
	return strings.TrimSpace(string(o))
}

// spread is the median change of a set of ratios and its range: "+0.5% [-1.2%, +2.0%]".
func spread(ratios []float64) string {
	if len(ratios) == 0 {
		return "-"
	}
	s := append([]float64(nil), ratios...)
	sort.Float64s(s)
	return numfmt.Change(stats.Median(s)) + " " + numfmt.Range(numfmt.Change(s[0]), numfmt.Change(s[len(s)-1]))
}

// cores is the median and max of the other_cpu figures: "0.98 [1.40]".
func cores(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f [%.2f]", stats.Median(xs), maxOf(xs))
}

func maxOf(xs []float64) float64 {
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
