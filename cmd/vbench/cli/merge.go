package cli

import (
	"fmt"
	"vbench/internal/summary"
	"vbench/internal/verdict"

	"github.com/spf13/cobra"

	"vbench/baseline"
	"vbench/internal/ownfile"
	"vbench/internal/results"
)

func newMergeCmd() *cobra.Command {
	var out, format string
	var allowPartial bool
	var failOn string
	cmd := &cobra.Command{
		Use:   "merge A.json B.json... -o OUT.json",
		Short: "Join the results of shards (vbench run --shard i/n) into one file",
		Long: `Merge joins results files from shards of one suite, e.g. the jobs of a CI
matrix, into one file that 'compare', 'baseline update --from' and reports
take. It refuses files from different suites (name and sha256 of the suite
file), cells measured twice and partial files, then recomputes every
summary from the raw samples: a workload's overheads need its none cell,
which may come from another shard. The A/B verdicts of an --against run (or
of a suite's against: modes) are judged again from the samples, each pair
having run in one shard; merge exits 1 when one regressed. OUT is written
atomically.

` + exitCodesHelp(ExitOK, ExitRegression, ExitUsage, ExitFailed),
		Example: `  vbench run suite.yaml --shard 1/2 --json s1.json
  vbench run suite.yaml --shard 2/2 --json s2.json
  vbench merge s1.json s2.json -o all.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 {
				return usageErrf("merge needs at least one results file\nSee '%s --help'.", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErrf("merge needs -o OUT.json")
			}
			if format != "" {
				if err := checkFormat(format); err != nil {
					return err
				}
			}
			if err := checkFailOn(failOn); err != nil {
				return err
			}
			if err := baseline.Guard("-o", out); err != nil {
				return usageErr(err)
			}
			if err := ownfile.Check("-o", out, results.Kind); err != nil {
				return usageErr(err)
			}
			if err := results.CheckWritable(out); err != nil {
				return usageErr(err)
			}
			var files []*results.File
			for _, a := range args {
				f, err := results.ReadFile(a)
				if err != nil {
					return usageErr(err)
				}
				files = append(files, f)
			}
			merged, err := results.Merge(args, files, allowPartial)
			if err != nil {
				return usageErr(err)
			}
			// Workloads by name, then modes in report order: shards interleave.
			results.SortCells(merged.Results, nil, merged.Modes())
			summary.Fill(merged)
			// A/B verdicts hold within one run: a shard keeps each pair
			// whole, so they are judged again from the merged samples, as
			// one family over every shard's pairs.
			verdict.Apply(merged, nil, verdict.OptionsOf(merged))
			if err := results.WriteFile(out, merged); err != nil {
				return withCode(ExitFailed, err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "vbench: merged %d files, %d cells, into %s\n", len(args), len(merged.Results), out)
			if format != "" {
				if err := writeFormat(cmd.OutOrStdout(), merged, format); err != nil {
					return withCode(ExitFailed, err)
				}
			}
			return outcome(merged, false, true, failOn, nil) // an A/B run's verdicts
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "merged results file to write")
	cmd.Flags().StringVar(&format, "format", "", "also print the merged results: "+formatNames)
	registerCompletion(cmd, "format", completeResultsFormats)
	cmd.Flags().StringVar(&failOn, "fail-on", "", failOnHelp)
	cmd.Flags().BoolVar(&allowPartial, "allow-partial", false, "merge partial (interrupted) files too; the result is marked partial")
	return cmd
}
