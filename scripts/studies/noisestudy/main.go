//go:build vbenchstudy

// Command noisestudy chose vbench's verdict rule: it evaluates candidate
// rules (estimators × tests × pairing) on synthetic experiments drawn from
// run times recorded on a real machine, and prints each rule's false alarms
// (A/A: the same build on both sides) and power (A/B: B 5% slower).
//
//	scripts/studies/noise-study.sh out/noise                       # record (about an hour)
//	go run -tags vbenchstudy ./scripts/studies/noisestudy record -o stats/testdata/noise.json out/noise
//	go run -tags vbenchstudy ./scripts/studies/noisestudy evaluate [-n 10,20] [-experiments 400]
//
// A developer's tool: the shipped rule lives in stats (stats.Judge).
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/olekukonko/tablewriter/tw"

	"vbench/internal/noise"
	"vbench/internal/results"
	"vbench/reports"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "record":
		fs := flag.NewFlagSet("record", flag.ExitOnError)
		out := fs.String("o", "stats/testdata/noise.json", "recording to write")
		note := fs.String("note", "", "a note kept in the recording")
		fs.Parse(os.Args[2:])
		if fs.NArg() != 1 {
			usage()
		}
		if err := record(fs.Arg(0), *out, *note); err != nil {
			fmt.Fprintln(os.Stderr, "noisestudy:", err)
			os.Exit(1)
		}
	case "evaluate":
		fs := flag.NewFlagSet("evaluate", flag.ExitOnError)
		data := fs.String("data", "stats/testdata/noise.json", "recording to draw experiments from")
		ns := fs.String("n", "20", "runs per side, comma-separated")
		exps := fs.Int("experiments", 400, "synthetic experiments per rule, size and kind")
		alpha := fs.Float64("alpha", 0.01, "significance level")
		filter := fs.String("rules", "", "only rules whose name contains one of these (comma-separated)")
		seed := fs.Uint64("seed", 1, "seed of the experiments")
		metric := fs.String("metric", string(results.MetricKernelCPU), "what to judge: elapsed (the kernel's elapsed time), kernel-cpu (the process's CPU time during the kernel) or cpu (the whole process's user+system time)")
		fs.Parse(os.Args[2:])
		d, err := noise.Load(*data)
		if err != nil {
			fmt.Fprintln(os.Stderr, "noisestudy:", err)
			os.Exit(1)
		}
		var sizes []int
		for _, s := range strings.Split(*ns, ",") {
			n, err := strconv.Atoi(s)
			if err != nil || n < 2 {
				usage()
			}
			sizes = append(sizes, n)
		}
		var rs []rule
		for _, r := range rules() {
			if *filter == "" || matchAny(r.name, strings.Split(*filter, ",")) {
				rs = append(rs, r)
			}
		}
		if err := evaluate(os.Stdout, d, results.Metric(*metric), rs, sizes, *exps, *alpha, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "noisestudy:", err)
			os.Exit(1)
		}
	case "summary":
		fs := flag.NewFlagSet("summary", flag.ExitOnError)
		data := fs.String("data", "stats/testdata/noise.json", "recording to draw experiments from")
		n := fs.Int("n", 20, "runs per side")
		exps := fs.Int("experiments", 200, "synthetic experiments per rule, workload and kind")
		alpha := fs.Float64("alpha", 0.01, "significance level")
		filter := fs.String("rules", "", "only rules whose name contains one of these (comma-separated)")
		metrics := fs.String("metrics", string(results.MetricKernelCPU), "metrics, comma-separated: a row per metric and rule")
		decide := fs.Int("decide", 2, "0: p < alpha alone; 1: and the estimate beyond ±5%; 2: and the 1-alpha interval reaching ±5% (vbench's)")
		seed := fs.Uint64("seed", 1, "seed of the experiments")
		fs.Parse(os.Args[2:])
		d, err := noise.Load(*data)
		if err != nil {
			fmt.Fprintln(os.Stderr, "noisestudy:", err)
			os.Exit(1)
		}
		var rs []rule
		for _, r := range rules() {
			if *filter == "" || matchAny(r.name, strings.Split(*filter, ",")) {
				rs = append(rs, r)
			}
		}
		if err := summary(os.Stdout, d, strings.Split(*metrics, ","), rs, *n, *exps, *alpha, *decide, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "noisestudy:", err)
			os.Exit(1)
		}
	default:
		usage()
	}
}

// summary prints one row per metric and rule: for each workload, within one
// run and across invocations, "A/A false alarms · A/B detected" out of exps.
func summary(w io.Writer, d *noise.Data, metrics []string, rs []rule, n, exps int, alpha float64, decide int, seed uint64) error {
	header := []string{"metric", "rule"}
	for _, kind := range []string{noise.Within, noise.Across} {
		for _, wc := range workloadCells {
			header = append(header, kind+": "+wc.label)
		}
	}
	var rows [][]string
	for _, m := range metrics {
		for _, r := range rs {
			row := []string{m, r.name}
			for _, kind := range []string{noise.Within, noise.Across} {
				for _, wc := range workloadCells {
					if kind == noise.Across && r.paired {
						row = append(row, "-")
						continue
					}
					aa, ab, err := run(d, results.Metric(m), kind, wc, r, n, exps, alpha, seed)
					if err != nil {
						return err
					}
					row = append(row, fmt.Sprintf("%d · %d", aa[decide].regressed+aa[decide].improved, ab[decide].regressed))
				}
			}
			rows = append(rows, row)
		}
	}
	fmt.Fprintf(w, "A/A false alarms · A/B detected, of %d synthetic experiments each, %d runs per side, alpha %g, decision %d.\n\n", exps, n, alpha, decide)
	align := []tw.Align{reports.Left, reports.Left}
	for range header[2:] {
		align = append(align, reports.Right)
	}
	return reports.WriteMarkdownTable(w, header, rows, align...)
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: noisestudy record [-o FILE] DIR | noisestudy evaluate [-data FILE] [-n 10,20] [-experiments N] [-rules a,b] | noisestudy summary [-metrics cpu,elapsed] [-n 20] [-decide 2]")
	os.Exit(2)
}

func matchAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// workloadCells: each studied workload's cells in the within suite (A1, A2,
// B) and its cell in the across suites.
var workloadCells = []struct{ label, a1, a2, b, across string }{
	{"fibonacci, none, B = --scale 1.05", "fib-a1", "fib-a2", "fib-b", "fib"},
	{"fibonacci, tracing, B = slow profiler", "fibt-a1", "fibt-a2", "fibt-b", "fibt"},
	{"mandelbrot, none, B = --scale 1.05", "man-a1", "man-a2", "man-b", "man"},
}

// tally counts verdicts of a set of experiments.
type tally struct{ regressed, improved, total int }

func evaluate(w io.Writer, d *noise.Data, metric results.Metric, rs []rule, sizes []int, exps int, alpha float64, seed uint64) error {
	fmt.Fprintf(w, "Recorded %s on %s; %d invocations. Metric: %s. %d synthetic experiments per cell of the tables, alpha %g.\n\n",
		d.Recorded.Format("2006-01-02"), d.Machine, len(d.Invocations), metric, exps, alpha)
	for _, kind := range []string{noise.Within, noise.Across} {
		for _, wc := range workloadCells {
			for _, n := range sizes {
				fmt.Fprintf(w, "#### %s, %s, %d runs per side\n\n", kind, wc.label, n)
				var rows [][]string
				for _, r := range rs {
					if kind == noise.Across && r.paired {
						continue // runs of two invocations share no rounds
					}
					aa, ab, err := run(d, metric, kind, wc, r, n, exps, alpha, seed)
					if err != nil {
						return err
					}
					row := []string{r.name}
					for k := range aa {
						row = append(row, fmt.Sprintf("%d/%d", aa[k].regressed+aa[k].improved, aa[k].total), fmt.Sprintf("%d/%d", ab[k].regressed, ab[k].total))
					}
					rows = append(rows, row)
				}
				if err := reports.WriteMarkdownTable(w, []string{"rule", "A/A alarms: p", "A/B: p", "A/A: p, est ±5%", "A/B: p, est +5%", "A/A: p, CI99 reaches ±5%", "A/B: p, CI99 reaches +5%"}, rows,
					reports.Left, reports.Right, reports.Right, reports.Right, reports.Right, reports.Right, reports.Right); err != nil {
					return err
				}
				fmt.Fprintln(w)
			}
		}
	}
	return nil
}

// run judges exps A/A and exps A/B experiments with rule r, deciding in
// three ways (see the loop).
func run(d *noise.Data, metric results.Metric, kind string, wc struct{ label, a1, a2, b, across string }, r rule, n, exps int, alpha float64, seed uint64) (aa, ab [3]tally, err error) {
	type job struct {
		i    int
		isAB bool
	}
	type outcome struct {
		isAB             bool
		ratio, lo, hi, p float64
		err              error
	}
	jobs := make(chan job)
	outs := make(chan outcome)
	var wg sync.WaitGroup
	for k := 0; k < runtime.GOMAXPROCS(0); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				// The same experiments for every rule: the seed depends on
				// the experiment, not on the rule.
				s := uint64(j.i) * 2
				if j.isAB {
					s++
				}
				rng := rand.New(rand.NewPCG(seed, s))
				pair, err := draw(rng, d, metric, kind, wc, n, j.isAB)
				if err != nil {
					outs <- outcome{err: err}
					continue
				}
				ratio, lo, hi, p := r.judge(rng, pair.A, pair.B, alpha)
				outs <- outcome{isAB: j.isAB, ratio: ratio, lo: lo, hi: hi, p: p}
			}
		}()
	}
	go func() {
		for i := 0; i < exps; i++ {
			jobs <- job{i, false}
			jobs <- job{i, true}
		}
		close(jobs)
		wg.Wait()
		close(outs)
	}()
	for o := range outs {
		if o.err != nil {
			err = o.err
			continue
		}
		t := &aa
		if o.isAB {
			t = &ab
		}
		// 0: significance alone; 1: and the estimate beyond ±5% (the old
		// rule); 2: and the rule's 1-alpha interval reaching beyond ±5% (a
		// change that is not shown to be smaller than 5%).
		for k := range t {
			t[k].total++
			sig := o.p < alpha
			up, down := o.ratio > 1, o.ratio < 1
			switch k {
			case 1:
				up, down = o.ratio > 1.05, o.ratio < 0.95
			case 2:
				up = up && !(o.hi < 1.05)
				down = down && !(o.lo > 0.95)
			}
			if sig && up {
				t[k].regressed++
			} else if sig && down {
				t[k].improved++
			}
		}
	}
	return aa, ab, err
}

// draw makes one synthetic experiment.
func draw(rng *rand.Rand, d *noise.Data, metric results.Metric, kind string, wc struct{ label, a1, a2, b, across string }, n int, isAB bool) (noise.Pair, error) {
	if kind == noise.Within {
		a, b := wc.a1, wc.a2
		if rng.IntN(2) == 1 {
			a, b = b, a
		}
		if isAB {
			b = wc.b
		}
		return d.WithinPair(rng, metric, n, a, b)
	}
	if isAB {
		return d.AcrossPair(rng, metric, n, wc.across, "a", "b")
	}
	side := "a"
	if rng.IntN(2) == 1 {
		side = "b"
	}
	return d.AcrossPair(rng, metric, n, wc.across, side, side)
}
