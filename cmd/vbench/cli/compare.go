package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"vbench/internal/results"
	"vbench/internal/suite"
	"vbench/internal/verdict"
)

func newCompareCmd() *cobra.Command {
	var format string
	var ci ciFlags
	var alpha float64
	var minChange, minChangeInstr string
	cmd := &cobra.Command{
		Use:   "compare OLD.json NEW.json",
		Short: "Compare two results files cell by cell and give verdicts",
		Long: `Compare gives every cell of NEW a verdict against the same cell of OLD:
regressed or improved when the change is significant (a permutation test of
the ratio of the faster halves' means, p < alpha) AND not shown to be smaller
than the minimum change (its 1-alpha interval reaches it); same otherwise;
new when OLD lacks the cell; failed when it failed in NEW; not run when
NEW holds it without a run. Cells OLD has and NEW lacks get no verdict: a
warning under the table names them. Overhead
multiples (each mode over none) are compared the same way. Each cell is
judged by its metric (elapsed, wall, cpu, kernel-cpu, instructions or
kernel-instructions); files that measured a workload by different metrics
are refused. Alpha and the minimum change (--min-change for timed cells,
--min-change-instructions for counted ones) come from NEW's suite unless
given here. A machine fingerprint
mismatch is printed as a warning.

For CI, as 'vbench run': --junit FILE writes JUnit XML of the verdicts, and
when GITHUB_STEP_SUMMARY is set the Markdown report is appended to it (the
step that compares merged shards with the baseline is the one whose verdicts
belong in the job summary). Both are written whatever the exit code.

` + exitCodesHelp(ExitOK, ExitRegression, ExitUsage, ExitFailed),
		Example: `  vbench compare benchmarks/baselines/default.json out/results.json
  vbench compare old.json new.json --alpha 0.05 --min-change 3% --format markdown
  vbench compare benchmarks/baselines/default.json results.json --junit junit.xml`,
		Args: exactArgs(2, "OLD.json and NEW.json"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			if err := ci.check(args[0], args[1]); err != nil {
				return err
			}
			old, err := results.ReadFile(args[0])
			if err != nil {
				return usageErr(err)
			}
			cur, err := results.ReadFile(args[1])
			if err != nil {
				return usageErr(err)
			}
			if err := old.CheckMeasured(args[0], results.AnyCell); err != nil {
				return usageErr(err)
			}
			if old.Suite.Name != cur.Suite.Name {
				return usageErrf("%s is from suite %q, %s from suite %q: nothing to compare", args[0], old.Suite.Name, args[1], cur.Suite.Name)
			}
			if err := verdict.CheckMetrics(args[0], old, args[1], verdict.MetricsOf(cur)); err != nil {
				return usageErr(err)
			}
			opts := verdict.OptionsOf(cur)
			if cmd.Flags().Changed("alpha") {
				if !(alpha > 0 && alpha < 0.5) { // NaN too
					return usageErrf("--alpha %g: want a significance level between 0 and 0.5", alpha)
				}
				opts.Alpha = alpha
			}
			if cmd.Flags().Changed("min-change") {
				mc, err := suite.ParseMinChange(minChange)
				if err != nil {
					return usageErrf("--min-change %s: %v", minChange, err)
				}
				opts.MinChange = mc
			}
			if cmd.Flags().Changed("min-change-instructions") {
				mc, err := suite.ParseMinChange(minChangeInstr)
				if err != nil {
					return usageErrf("--min-change-instructions %s: %v", minChangeInstr, err)
				}
				if mc == 0 {
					// 0 is the file's "as min_change": it would judge counts at time's threshold.
					return usageErrf("--min-change-instructions %s: give a change above 0 (a count repeats to ~0.01%%: 0.1%% holds a build to its count)", minChangeInstr)
				}
				opts.CountMinChange = mc
			}
			if opts.Alpha <= 0 {
				return usageErrf("%s records no alpha; pass --alpha", args[1])
			}
			cur.Baseline = args[0]
			cur.Settings.Alpha, cur.Settings.Threshold, cur.Settings.CountThreshold = opts.Alpha, opts.MinChange, opts.CountMinChange
			verdict.Apply(cur, old, opts)
			if miss := lacking(old, cur); len(miss) > 0 {
				noun := "cells"
				if len(miss) == 1 {
					noun = "cell"
				}
				cur.Warnings = append(cur.Warnings, fmt.Sprintf("%s lacks %d %s that %s has (not compared): %s",
					args[1], len(miss), noun, args[0], strings.Join(miss, ", ")))
			}
			var errs []error
			if err := ci.write(cmd, cur); err != nil {
				errs = append(errs, err)
			}
			if err := writeFormat(cmd.OutOrStdout(), cur, format); err != nil {
				errs = append(errs, err)
			}
			// A comparison exits by what it judged: NEW being partial is
			// shown (not run cells), not an interruption of this command.
			return outcome(cur, false, false, ci.failOn, errs...)
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", formatHelp)
	registerCompletion(cmd, "format", completeResultsFormats)
	cmd.Flags().Float64Var(&alpha, "alpha", 0, "significance level (default: NEW's suite setting)")
	cmd.Flags().StringVar(&minChange, "min-change", "", "minimum change that counts in a timed cell, as in the suite's min_change: 5% or 0.05 (default: NEW's suite setting)")
	cmd.Flags().StringVar(&minChangeInstr, "min-change-instructions", "", "minimum change that counts in a counted cell (metric instructions, kernel-instructions), as in the suite's min_change_instructions (default: NEW's suite setting)")
	ci.register(cmd)
	return cmd
}

// lacking names the cells of old that cur does not have at all (a run of
// fewer workloads or modes, one shard): no verdict can say so, since only
// cur's cells get one. Cells cur has without runs are "not run" already.
func lacking(old, cur *results.File) []string {
	var miss []string
	for _, c := range old.Results {
		if cur.Find(c.Workload, c.Mode) == nil {
			miss = append(miss, c.Key())
		}
	}
	return miss
}
