package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
	"vbench/internal/verdict"

	"github.com/spf13/cobra"

	"vbench/baseline"
	"vbench/internal/attach"
	"vbench/internal/machine"
	"vbench/internal/modes"
	"vbench/internal/ownfile"
	"vbench/internal/results"
	"vbench/internal/suite"
	"vbench/runner"
)

// runFlags are the flags `run` and `baseline update` share.
type runFlags struct {
	runs, warmup int
	maxRuns      int
	modes        []string
	workloads    []string
	timeout      time.Duration
	format       string
	jsonOut      string
	shard        string
	quiet        bool
	profiler     string
	seed         uint64
	against      string // run only: the OLD build of an A/B run
	schedule     string
	budget       time.Duration
	metric       string
	jobs         int
}

func (f *runFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&f.runs, "runs", 0, "measured runs per cell (overrides the suite and its workloads)")
	fl.IntVar(&f.maxRuns, "max-runs", 0, "cap on the runs of an A/B pair whose verdict is still undecided after --runs (default: the suite's max_runs, else 3 x runs)")
	fl.IntVar(&f.warmup, "warmup", 0, "unmeasured warmup runs per cell (overrides the suite)")
	fl.StringSliceVar(&f.modes, "modes", nil, "modes to run: none,null,tracing,instrumentation,sampling or modes the suite defines (default: the suite's)")
	fl.StringSliceVar(&f.workloads, "workloads", nil, "only these workloads (comma-separated names)")
	fl.DurationVar(&f.timeout, "timeout", 0, "timeout per run, e.g. 2m (overrides the suite and its workloads)")
	fl.StringVar(&f.format, "format", "table", formatHelp)
	fl.StringVar(&f.jsonOut, "json", "", "write the full results (every raw sample) to this file, atomically; each cell's last profiles are kept beside it (out/r.json: out/r.profiles/)")
	fl.StringVar(&f.shard, "shard", "", "run only shard i of n of the (workload, mode) cells, e.g. 2/4")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress on stderr")
	fl.StringVar(&f.profiler, "profiler", "", "profiler library for profiled modes (default: libvbenchprof.so next to vbench)")
	fl.StringVar(&f.schedule, "schedule", runner.SchedulePairs, "how a round orders its launches: pairs (an A/B pair's two cells back to back, so a neighbour's burst of load hits both) or shuffle (every cell in one random order)")
	fl.DurationVar(&f.budget, "budget", 0, "time the run may take, its builds included: no batch of adaptive rounds starts that the time left cannot pay for at the pace so far; the planned runs always run (e.g. 8m; default: none)")
	fl.StringVar(&f.metric, "metric", "", "measure every batch workload by this metric instead of its own, e.g. instructions (cells it cannot measure are left out, and said)")
	fl.IntVar(&f.jobs, "jobs", 0, "launches at once when every cell's metric is deterministic (instructions; default: one per core); time metrics always run one at a time")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the randomized run order (default: from the clock; recorded in the results)")
	registerCompletion(cmd, "modes", completeSuiteModes)
	registerCompletion(cmd, "workloads", completeSuiteWorkloads)
	registerCompletion(cmd, "format", completeResultsFormats)
}

// measurement is a suite ready to run.
type measurement struct {
	suite           *suite.Suite
	plan            *runner.Plan
	lib             string
	flags           *runFlags
	valgrind        string // valgrind's path when a cell counts instructions
	valgrindVersion string // its --version, recorded with the counts
	marks           string // the kernel marks' library when a cell counts its kernel
	jobs            int    // launches at once (Plan.Deterministic), else 1
}

// prepare validates everything that can be checked before the first run, so
// that configuration errors exit 2 in a second, not after an hour of runs.
func prepare(cmd *cobra.Command, path string, f *runFlags) (*measurement, error) {
	if err := checkFormat(f.format); err != nil {
		return nil, err
	}
	if cmd.Flags().Changed("runs") && f.runs < 1 {
		return nil, usageErrf("--runs %d: must be >= 1", f.runs)
	}
	if cmd.Flags().Changed("max-runs") && f.maxRuns < 1 {
		return nil, usageErrf("--max-runs %d: must be >= 1 (equal to --runs: no adaptive rounds)", f.maxRuns)
	}
	if cmd.Flags().Changed("warmup") && f.warmup < 0 {
		return nil, usageErrf("--warmup %d: must be >= 0", f.warmup)
	}
	for _, c := range []struct {
		flag string
		n    int
	}{{"runs", f.runs}, {"max-runs", f.maxRuns}, {"warmup", f.warmup}} {
		if c.n > suite.RunsLimit {
			return nil, usageErrf("--%s %d: must be at most %d (the runs vbench launches per cell)", c.flag, c.n, suite.RunsLimit)
		}
	}
	if cmd.Flags().Changed("timeout") && f.timeout <= 0 {
		return nil, usageErrf("--timeout %s: must be > 0", f.timeout)
	}
	s, err := suite.Load(path)
	if err != nil {
		return nil, usageErr(err)
	}
	if err := checkTempDir(); err != nil {
		return nil, err
	}
	// One behaviour for one setting: the suite's max_runs below its runs is
	// refused, and so is the flag (it was raised to the runs silently).
	if runs := cmp.Or(f.runs, s.Runs); cmd.Flags().Changed("max-runs") && f.maxRuns < runs {
		return nil, usageErrf("--max-runs %d is below the runs (%d): it caps the runs an undecided A/B pair may add, so it must be at least the runs (equal adds none)", f.maxRuns, runs)
	}
	if !slices.Contains(runner.Schedules, f.schedule) {
		return nil, usageErrf("--schedule %q: one of %s", f.schedule, strings.Join(runner.Schedules, ", "))
	}
	if cmd.Flags().Changed("budget") && f.budget <= 0 {
		return nil, usageErrf("--budget %s: must be > 0", f.budget)
	}
	if cmd.Flags().Changed("jobs") && f.jobs < 1 {
		return nil, usageErrf("--jobs %d: must be >= 1", f.jobs)
	}
	opts := runner.Options{Runs: f.runs, MaxRuns: f.maxRuns, Warmup: -1, Modes: modeNames(f.modes), Workloads: f.workloads, Timeout: f.timeout, Seed: f.seed,
		Schedule: f.schedule, Budget: f.budget, Metric: results.Metric(f.metric)}
	if cmd.Flags().Changed("warmup") {
		opts.Warmup = f.warmup
	}
	if !cmd.Flags().Changed("seed") {
		opts.Seed = uint64(time.Now().UnixNano())
	}
	if f.shard != "" {
		if opts.Shard, err = parseShard(f.shard); err != nil {
			return nil, usageErr(err)
		}
	}
	if cmd.Flags().Changed("against") {
		if f.against == "" {
			return nil, usageErrf("--against needs the OLD build of the profiler, e.g. --against base/libvbenchprof.so")
		}
		if _, err := os.Stat(f.against); errors.Is(err, os.ErrNotExist) {
			abs, _ := filepath.Abs(f.against)
			return nil, usageErrf("--against %s: no such file (build the OLD profiler first, e.g. `make build` in a checkout of the base commit)", abs)
		}
		if opts.Against, err = attach.Check(f.against); err != nil {
			return nil, usageErrf("--against: %v", err)
		}
	}
	plan, err := runner.NewPlan(s, opts)
	if err != nil {
		return nil, planErr(err)
	}
	m := &measurement{suite: s, plan: plan, flags: f, jobs: 1}
	if plan.Deterministic() {
		m.jobs = cmp.Or(f.jobs, runtime.NumCPU())
	} else if f.jobs > 1 {
		return nil, usageErrf("--jobs %d: only runs of a deterministic metric (instructions) go in parallel, and this run measures time, which another launch beside it would disturb", f.jobs)
	}
	if plan.Counts() {
		if m.valgrind, err = exec.LookPath("valgrind"); err != nil {
			return nil, usageErrf("metric instructions runs every process under valgrind, which is not installed (%v): install it with scripts/ensure-valgrind.sh (Debian's valgrind package)", err)
		}
		if m.valgrindVersion, err = runner.ValgrindVersion(cmd.Context(), m.valgrind); err != nil {
			return nil, usageErrf("metric instructions runs every process under valgrind, which does not run: %v", err)
		}
	}
	if plan.MarksKernel() {
		if m.marks, err = runner.BuildKernelMarks(cmd.Context()); err != nil {
			return nil, usageErrf("metric kernel-instructions needs vbench's kernel marks, which did not build: %v (they need cc and valgrind's callgrind.h: scripts/ensure-valgrind.sh)", err)
		}
	}
	if plan.Profiled {
		lib := f.profiler
		if lib == "" {
			lib = attach.DefaultLibrary()
		}
		if m.lib, err = attach.Check(lib); err != nil {
			return nil, usageErrf("%v\n(modes with an engine load the profiler: %s; --modes none runs without it)", err, modes.List(m.plan.LibraryModes()))
		}
	}
	if f.jsonOut != "" {
		if err := baseline.Guard("--json", f.jsonOut, s.Baseline); err != nil {
			return nil, usageErr(err)
		}
		if err := ownfile.Check("--json", f.jsonOut, results.Kind); err != nil {
			return nil, usageErr(err)
		}
		if err := results.CheckWritable(f.jsonOut); err != nil {
			return nil, usageErr(err)
		}
	}
	return m, nil
}

// checkTempDir refuses, before anything runs, a temporary directory in which
// the runner cannot make its work directory (os.MkdirTemp in runner's
// newLaunch): a TMPDIR naming a file or a missing directory would otherwise
// fail every cell, exit 3, as if the workloads had failed.
func checkTempDir() error {
	d, err := os.MkdirTemp("", "vbench-check-")
	if err == nil {
		return os.Remove(d)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	where := "TMPDIR=" + os.Getenv("TMPDIR")
	if os.Getenv("TMPDIR") == "" {
		where = "the temporary directory " + os.TempDir() + " (TMPDIR is unset)"
	}
	return usageErrf("%s is unusable: cannot create a directory in it (%v); vbench makes each run's work directory there: point TMPDIR at a writable directory", where, err)
}

// measure runs the plan until done or interrupted (SIGINT, SIGTERM), which
// kills the running child's process group and returns partial results,
// with the whys of its A/B pairs for judging them (verdict.Options.Whys).
func (m *measurement) measure(cmd *cobra.Command) (*results.File, results.Whys) {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stderr := cmd.ErrOrStderr()
	env := runner.Env{
		Profiler:        m.lib,
		Valgrind:        m.valgrind,
		ValgrindVersion: m.valgrindVersion,
		KernelMarks:     m.marks,
		Jobs:            m.jobs,
		Progress:        newProgress(stderr, m.flags.quiet),
		Log: func(format string, args ...any) {
			if !m.flags.quiet {
				fmt.Fprintf(stderr, "vbench: "+format+"\n", args...)
			}
		},
	}
	if m.flags.jsonOut != "" {
		env.ProfilesDir = ProfilesDirFor(m.flags.jsonOut)
	}
	// One line per reason, naming the cells it leaves out.
	var reasons []string
	cells := map[string][]string{}
	for _, left := range m.plan.Left {
		cell, why, _ := strings.Cut(left, ": ")
		if cells[why] == nil {
			reasons = append(reasons, why)
		}
		cells[why] = append(cells[why], cell)
	}
	for _, why := range reasons {
		env.Log("not measured by %s: %s: %s", m.plan.Options.Metric, strings.Join(cells[why], ", "), why)
	}
	fp := machine.Collect(context.WithoutCancel(ctx))
	load := machine.LoadAverage()
	f, whys := runner.Run(ctx, m.plan, env)
	f.Machine = fp
	f.LoadAverage = []float64{load, machine.LoadAverage()}
	if f.OtherCPU > machine.BusyWarnCores && !m.plan.Deterministic() { // a count is not disturbed
		f.Warnings = append(f.Warnings, fmt.Sprintf("the machine was busy: other processes kept %.1f of its %d cores busy while workloads ran, so times are noisier than usual", f.OtherCPU, fp.Cores))
	}
	return f, whys
}

func newRunCmd() *cobra.Command {
	var f runFlags
	var ci ciFlags
	var basePath, historyPath string
	var noBaseline bool
	cmd := &cobra.Command{
		Use:   "run SUITE.yaml",
		Short: "Measure a suite's workloads under each mode and compare with the baseline",
		Long: `Run builds what the suite's workloads need (once), runs warmups, then the
measured runs of every (workload, mode) cell interleaved in a randomized
round-robin, so drift hits all modes alike. Each run records the workload's
own elapsed time (its VBENCH line, when it prints one, with the CPU time the
process spent meanwhile when it reports that), wall time, user/system CPU,
max RSS, exit status and checksum; each workload's metric (elapsed, wall, cpu
or kernel-cpu: the suite's metric field) says which is its time. The table
shows each cell's median with a 95% confidence interval, the overhead
multiple against mode none, and — when a baseline exists — the change and a
verdict (see 'vbench compare --help': a permutation test at the suite's
alpha AND the suite's minimum change). Modes are the built-in ones (none,
null, tracing, instrumentation, sampling) and those the suite defines.

--history FILE judges the run against a history (vbench history) instead:
per cell, the raw runs of its latest appended runs since its last change
point (at most 10 appended runs), pooled as one baseline cell and
judged by the same rule.

The baseline is --baseline FILE, else the suite's baseline file when it
exists: the suite's baseline field, by default baselines/<suite name>.json in
the suite's own folder (benchmarks/suite.yaml, named default:
benchmarks/baselines/default.json). Run never writes a baseline: use
'vbench baseline update'.

A/B: --against OLD.so measures every mode that loads vbench's profiler twice
in the same interleaved rounds, with the run's library (--profiler, NEW) and
with OLD (as mode <mode>@old), and judges each NEW cell against its OLD twin:
the change with a 95% interval, p, and the verdict (exit 1 on a regression).
Drift between invocations cannot enter, so no stored baseline is needed. A
mode a suite defines may say against: <other mode> to be judged the same way.
A pair whose verdict is still undecided after its runs (not significant, yet
its interval still reaches the minimum change) gets more rounds, half its
runs at a time, until it is decided or reaches --max-runs (the suite's
max_runs, else 3 x runs); a pair that even its cap could not decide stops
as hopeless, and --budget bounds the time the extra rounds may take. Why
each pair stopped is listed under the table. In each round the two cells of
a pair run back to back, in a random order (--schedule pairs), so that a
neighbour's burst of load lands on both. A run more than a quarter of whose
pairs are inconclusive says it cannot show that nothing regressed, and
exits 1 unless --fail-on regressed.

For CI: --junit FILE writes JUnit XML (one test case per cell; regressions
and failed workloads are failures), and when GITHUB_STEP_SUMMARY is set (as
in GitHub Actions) the Markdown report is appended to it. Both are written
whatever the exit code, interrupted runs included. --format gobench prints
Go benchmark format, one line per run, for benchstat.

Ctrl-C (or SIGTERM) kills the running workload and its children, saves what
was measured so far to --json FILE (and --junit FILE) marked partial, and
exits 130.

` + exitCodesHelp(allExitCodes...),
		Example: `  vbench run benchmarks/suite.yaml
  vbench run benchmarks/suite.yaml --runs 5 --modes none,tracing --json out/results.json
  vbench run benchmarks/suite.yaml --format markdown --baseline benchmarks/baselines/default.json
  vbench run benchmarks/suite.yaml --against base/libvbenchprof.so --modes none,tracing
  vbench run benchmarks/quick.yaml --against base/libvbenchprof.so --budget 8m
  vbench run benchmarks/suite.yaml --shard 2/4 --json out/shard2.json --quiet
  vbench run benchmarks/suite.yaml --junit out/junit.xml --json out/results.json
  vbench run benchmarks/suite.yaml --quiet --format gobench > new.txt && benchstat old.txt new.txt`,
		Args: exactArgs(1, "SUITE.yaml"),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := prepare(cmd, args[0], &f)
			if err != nil {
				return err
			}
			var base *results.File
			switch {
			case historyPath != "":
				if basePath != "" || noBaseline {
					return usageErrf("--history judges against the history: give it without --baseline or --no-baseline")
				}
				if base, err = historyBase(historyPath, m.suite); err != nil {
					return err
				}
				basePath = historyPath
			case !noBaseline:
				if base, basePath, err = loadBaseline(cmd, m.suite, basePath); err != nil {
					return err
				}
			}
			if base != nil && f.jsonOut != "" && baseline.SamePath(f.jsonOut, basePath) {
				return usageErrf("--json %s is the baseline file; only 'vbench baseline update' writes baselines", f.jsonOut)
			}
			if base != nil {
				if err := verdict.CheckMetrics(basePath, base, m.suite.Path, m.plan.Metrics()); err != nil {
					return usageErr(err)
				}
			}
			if err := ci.check(f.jsonOut, basePath, m.suite.Baseline, m.suite.Path); err != nil {
				return err
			}
			m.plan.SetBaseline(base)
			res, whys := m.measure(cmd)
			if base != nil {
				res.Baseline = basePath
			}
			opts := verdict.OptionsOf(res)
			opts.Whys = whys
			verdict.Apply(res, base, opts)
			return finish(cmd, res, &f, &ci)
		},
	}
	f.register(cmd)
	ci.register(cmd)
	cmd.Flags().StringVar(&basePath, "baseline", "", "compare with this baseline `FILE` (default: the suite's baseline file, baselines/<suite name>.json in the suite's folder, when it exists)")
	cmd.Flags().BoolVar(&noBaseline, "no-baseline", false, "do not compare with any baseline")
	cmd.Flags().StringVar(&historyPath, "history", "", "judge against this history `FILE`'s last stable stretch of each cell (vbench history) instead of a baseline")
	cmd.Flags().StringVar(&f.against, "against", "", "A/B run: also measure every mode that loads vbench's profiler with this OLD build, in the same rounds, and judge each against it")
	return cmd
}

// loadBaseline reads --baseline, or the suite's baseline when it exists.
func loadBaseline(cmd *cobra.Command, s *suite.Suite, path string) (*results.File, string, error) {
	explicit := path != ""
	if !explicit {
		path = s.Baseline
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, "", nil
		}
	}
	b, err := baseline.Load(path, s.Name)
	if err != nil {
		return nil, "", usageErr(err)
	}
	return b, path, nil
}

// finish saves and prints results and picks the exit code (see outcome).
// Every output is attempted even when an earlier one fails.
func finish(cmd *cobra.Command, res *results.File, f *runFlags, ci *ciFlags) error {
	stderr := cmd.ErrOrStderr()
	var errs []error
	if f.jsonOut != "" {
		if err := results.WriteFile(f.jsonOut, res); err != nil {
			errs = append(errs, fmt.Errorf("saving results: %w", err))
		} else if res.Partial {
			fmt.Fprintf(stderr, "vbench: interrupted; partial results saved to %s\n", f.jsonOut)
		}
	} else if res.Partial {
		fmt.Fprintln(stderr, "vbench: interrupted (no --json FILE, so nothing was saved)")
	}
	if err := ci.write(cmd, res); err != nil {
		errs = append(errs, err)
	}
	if err := writeFormat(cmd.OutOrStdout(), res, f.format); err != nil {
		errs = append(errs, err)
	}
	return outcome(res, res.Partial, true, ci.failOn, errs...)
}

// modeNames types the --modes flag's values (nil stays nil: the suite's modes).
func modeNames(names []string) []modes.Mode {
	if names == nil {
		return nil
	}
	out := make([]modes.Mode, len(names))
	for i, n := range names {
		out[i] = modes.Mode(n)
	}
	return out
}

// exactArgs is cobra.ExactArgs with a usage error naming what is missing.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrf("%s needs %s (got %d arguments)\nSee '%s --help'.", cmd.CommandPath(), what, len(args), cmd.CommandPath())
		}
		return nil
	}
}

// ProfilesDirFor is where a run writing results to jsonOut keeps its cells'
// profiles: out/r.json's in out/r.profiles/<workload>/<mode>/. Each results
// file has its own, so two results files in one directory never replace
// each other's (a shared out/profiles/ did, silently).
func ProfilesDirFor(jsonOut string) string {
	return strings.TrimSuffix(jsonOut, filepath.Ext(jsonOut)) + ".profiles"
}
