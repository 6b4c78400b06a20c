package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"vbench/internal/atomicfile"
	"vbench/internal/history"
	"vbench/internal/ownfile"
	"vbench/internal/results"
	"vbench/internal/suite"
	"vbench/reports"
	"vbench/stats"
)

func newHistoryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Keep every run of a branch and find where its times shift for good",
		Long: `A history is a file of runs, one JSON object a line, each with its commit,
date, machine and every cell's runs: the suite's history field, by default
<suite name>.history.jsonl beside the suite's baseline
(benchmarks/baselines/default.history.jsonl for benchmarks/suite.yaml), or
--history FILE. 'vbench history append' adds a run; 'show' finds, per cell,
the change points of its time and of its overhead multiple (mode over none
of the same run, which the machine's drift does not move); 'report' draws
them as an HTML page. 'vbench run --history FILE' judges a run against the
history's last stable stretch instead of one baseline.

Change points are found by E-divisive means with a permutation test (as
MongoDB's and Apache Otava's histories do): a split of a series is kept when
fewer than 1 in 50 shuffles of its values split as well (--alpha 0.02; a
lasting shift is tested first, a bump only when there is none), and each
side is searched again. Each side of a split holds at least 3 runs, so a shift can
be reported from the third run after it on (with 20 runs before it, a clean
shift is; with 8, the fourth: fewer orderings are as extreme).`,
		Example: `  vbench run benchmarks/suite.yaml --json results.json
  vbench history append results.json
  vbench history show benchmarks/suite.yaml
  vbench history report --history ci/default.history.jsonl -o history.html`,
		Args: cobra.NoArgs, // a misspelt subcommand is an error, not an argument
	}
	cmd.AddCommand(newHistoryAppendCmd(), newHistoryShowCmd(), newHistoryReportCmd())
	return cmd
}

func newHistoryAppendCmd() *cobra.Command {
	var path, commit string
	cmd := &cobra.Command{
		Use:   "append RESULTS.json [--history FILE] [--commit SHA]",
		Short: "Add a run's results to the history",
		Long: `Append adds the run in RESULTS.json to the history: under --commit SHA, else
$GITHUB_SHA, else what 'git rev-parse HEAD' says in the current directory;
with the run's start as its date, its machine fingerprint, and every cell's
runs (failed cells are left out: a gap in their series). The history is the
suite's (its history field, by default <suite name>.history.jsonl beside
its baseline; the suite is found from the path the results record) or
--history FILE. The write is atomic and holds the lock baseline updates
take on the directory: a history is never half-written, and two appends
never lose one another. Partial results, a single shard (merge the shards
first: merged shards append as one run), A/B runs and a run the history
already holds (the same start, seed, suite file and machine, whatever the
commit: the error names the commit it was appended as) are refused.`,
		Example: `  vbench history append out/results.json
  vbench history append results.json --history ci/default.history.jsonl --commit "$GITHUB_SHA"`,
		Args: exactArgs(1, "RESULTS.json"),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := results.ReadFile(args[0])
			if err != nil {
				return usageErr(err)
			}
			if path == "" {
				s, err := suite.Load(res.Suite.Path)
				if err != nil {
					return usageErrf("%s: cannot find the suite's history: %v\n(give --history FILE)", args[0], err)
				}
				path = s.History
			}
			if commit, err = resolveCommit(commit); err != nil {
				return usageErr(err)
			}
			e, err := history.FromResults(res, commit)
			if err != nil {
				return usageErrf("%s: %v", args[0], err)
			}
			stderr := cmd.ErrOrStderr()
			n, err := history.Append(path, e, func(dir string) {
				fmt.Fprintf(stderr, "vbench: waiting for another append (lock on %s)\n", dir)
			})
			if err != nil {
				return usageErr(err)
			}
			fmt.Fprintf(stderr, "vbench: run %d (commit %s, %d cells) appended to %s\n", n-1, commit, len(e.Cells), path)
			return nil
		},
	}
	cmd.Flags().StringVar(&path, "history", "", "history `FILE` to append to (default: the suite's history)")
	cmd.Flags().StringVar(&commit, "commit", "", "the run's commit (default: $GITHUB_SHA, else git rev-parse HEAD)")
	return cmd
}

// resolveCommit is --commit, else $GITHUB_SHA, else git's HEAD.
func resolveCommit(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if sha := os.Getenv("GITHUB_SHA"); sha != "" {
		return sha, nil
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "", errors.New("no commit for the run: give --commit SHA (GITHUB_SHA is unset and 'git rev-parse HEAD' failed here)")
	}
	return strings.TrimSpace(string(out)), nil
}

// historyFlags are what show and report share: which history, and how
// change points are found.
type historyFlags struct {
	path      string
	alpha     float64
	failAlpha float64
}

func (f *historyFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.path, "history", "", "history `FILE` (default: the history of the SUITE.yaml given)")
	cmd.Flags().Float64Var(&f.alpha, "alpha", stats.ChangeAlpha, "significance level of each change point's permutation test")
	cmd.Flags().Float64Var(&f.failAlpha, "fail-alpha", history.GateAlpha, "chance that a run which changed nothing fails --fail-on slower, over all its series (Holm)")
}

// load reads the history of --history or of the suite given, and finds
// its change points.
func (f *historyFlags) load(args []string) (string, *history.Analysis, error) {
	if !(f.alpha > 0 && f.alpha < 0.5) {
		return "", nil, usageErrf("--alpha %v: must be a significance level between 0 and 0.5", f.alpha)
	}
	if !(f.failAlpha > 0 && f.failAlpha < 0.5) {
		return "", nil, usageErrf("--fail-alpha %v: must be a significance level between 0 and 0.5", f.failAlpha)
	}
	path := f.path
	switch {
	case len(args) > 0 && path != "":
		return "", nil, usageErrf("give SUITE.yaml or --history FILE, not both")
	case len(args) > 0:
		s, err := suite.Load(args[0])
		if err != nil {
			return "", nil, usageErr(err)
		}
		path = s.History
	case path == "":
		return "", nil, usageErrf("which history? give SUITE.yaml (its history) or --history FILE")
	}
	entries, err := history.Read(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", nil, usageErrf("%s: no history yet (vbench history append RESULTS.json adds the first run)", path)
		}
		return "", nil, usageErr(err)
	}
	a := history.Analyze(entries, stats.ChangeOptions{Alpha: f.alpha})
	a.Gate(f.failAlpha)
	return path, a, nil
}

func newHistoryShowCmd() *cobra.Command {
	var f historyFlags
	var format, failOn string
	cmd := &cobra.Command{
		Use:   "show [SUITE.yaml] [--history FILE]",
		Short: "List the change points of every cell's series",
		Long: `Show finds, per cell, where its time and its overhead multiple shifted for
good, and lists each change point: the run it starts at (index, counted
from 0 over the appended runs), the commits either side, the medians of
the stable stretches before and after, and the change with p (and its 95%
interval once each side has 6 runs). A change point the last appended run
brought is marked new.

--fail-on slower is what CI checks after appending a push's run: it exits 1
when a change point of the last 10 runs that says slower (a time, a
calibrated time or an overhead went up) holds for the first time over the
whole run: its p, tested again, survives Holm's adjustment over every
series CI judges at --fail-alpha (default 0.05), and it is not smaller than
the suite's min_change. Each such change point is marked: fails CI, failed
CI at an earlier run, held (not significant over the run's series: judged
again next run), or smaller than min_change. A change point within a run
of a change of the machine (CPU, cores, OS, .NET runtime) or, for a count,
of how vbench counted (its environment, the valgrind version) says so: the
step may be the environment's. CI still judges it.

It also says what CI cannot judge yet: per series, the newest runs a step
could start in and not be found however clear it were (too few runs for any
order of them to be significant), and after how many more runs it can be.

` + "--format json prints `{history, runs, gate: {alpha, family}, series: [{workload, mode, series, metric, runs, last, unjudged: {runs, needs}}], change_points: [{workload, mode, series, metric, index, commit, commit_before, before, after, change, change_lo, change_hi, p, new, raw, calibration, gate, gate_p, environment}]}`" + `:
before and after in nanoseconds (a time) or as a multiple (an overhead),
change as a fraction (0.05 is 5% more); change_lo and change_hi are absent
until each side has 6 runs.`,
		Example: `  vbench history show benchmarks/suite.yaml
  vbench history show --history ci/default.history.jsonl --format markdown --fail-on slower`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if failOn != "" && failOn != "slower" {
				return usageErrf("--fail-on %q: the one value is slower", failOn)
			}
			if !slices.Contains(reports.HistoryFormats, format) {
				return usageErrf("--format %q: want one of %s", format, strings.Join(reports.HistoryFormats, ", "))
			}
			path, a, err := f.load(args)
			if err != nil {
				return err
			}
			if err := reports.WriteHistory(cmd.OutOrStdout(), path, a, format); err != nil {
				return err
			}
			if failOn == "slower" {
				if slower := a.Failing(); len(slower) > 0 {
					for _, c := range slower {
						env := ""
						if e := reports.EnvironmentText(c); e != "" {
							env = "; " + e + ": the step may be the environment's"
						}
						fmt.Fprintf(cmd.ErrOrStderr(), "vbench: %s/%s %s got slower at run %d (%s): %s%s\n", c.Workload, c.Mode, c.Series, c.Index, c.Commit, reports.ChangeText(&c), env)
					}
					return withCode(ExitRegression, nil)
				}
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&format, "format", "text", "output `format`: "+strings.Join(reports.HistoryFormats, ", "))
	cmd.Flags().StringVar(&failOn, "fail-on", "", "exit 1 when a recent change point that says `slower` holds over the run's series for the first time (see --fail-alpha)")
	return cmd
}

func newHistoryReportCmd() *cobra.Command {
	var f historyFlags
	var out string
	cmd := &cobra.Command{
		Use:   "report [SUITE.yaml] [--history FILE] -o history.html",
		Short: "Draw every cell's series and change points as an HTML page (now: vbench report --history FILE)",
		Long: `Report writes one self-contained HTML page (inline CSS and SVG, no scripts):
per cell, its time and its overhead multiple over the appended runs with
their 95% intervals, the stable stretches' medians, the change points marked
with their commits and changes, and the table of runs with each one's
commit and date.

Every view of results is vbench report's: this page is vbench report
--history FILE -o history.html. This spelling still works, for one release,
and says so.`,
		Example: `  vbench report --history benchmarks/baselines/default.history.jsonl -o history.html`,
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, a, err := f.load(args)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "vbench: `vbench history report` is deprecated and goes in a later release: use `vbench report --history %s -o %s`\n", path, out)
			return writeHistoryPage(cmd, path, a, out)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the page to `FILE`, atomically")
	return cmd
}

// writeHistoryPage is the trend view of a history: every cell's series and
// change points as one HTML page (vbench report --history).
func writeHistoryPage(cmd *cobra.Command, path string, a *history.Analysis, out string) error {
	if out == "" {
		return usageErrf("give the page's file: -o history.html")
	}
	if err := results.CheckWritable(out); err != nil {
		return usageErr(err)
	}
	if err := ownfile.Check("-o", out, reports.HTMLKind); err != nil {
		return usageErr(err)
	}
	if err := atomicfile.Write(out, 0o666, func(w io.Writer) error { return reports.HistoryHTML(w, path, a) }); err != nil {
		return withCode(ExitFailed, err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "vbench: wrote %s (%d runs, %d series)\n", out, len(a.Entries), len(a.Series))
	return nil
}

// historyBase is what `run --history FILE` judges against: each cell's
// last stable stretch of the history, as a baseline (history.Base).
func historyBase(path string, s *suite.Suite) (*results.File, error) {
	entries, err := history.Read(path)
	if err != nil {
		return nil, usageErr(err)
	}
	if len(entries) == 0 {
		return nil, usageErrf("%s: the history holds no run yet", path)
	}
	if name := entries[len(entries)-1].Suite.Name; name != s.Name {
		return nil, usageErrf("%s is the history of suite %q, not %q", path, name, s.Name)
	}
	return history.Base(history.Analyze(entries, stats.ChangeOptions{})), nil
}
