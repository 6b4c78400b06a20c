package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"vbench/internal/numfmt"
	"vbench/internal/suite"
	"vbench/runner"
)

func newListCmd() *cobra.Command {
	var modes, workloads []string
	var shard string
	var cells bool
	cmd := &cobra.Command{
		Use:   "list SUITE.yaml",
		Short: "Validate a suite and list its workloads (or the cells a run would measure)",
		Long: `List reads and validates a suite (the same checks as 'vbench run') and prints
its workload names, one per line, for scripts. With --cells it prints every
(workload, mode) cell with its metric, runs, timeout and program, then what
each mode loads, instead — or only the cells of one shard, to check how
--shard i/n splits a suite.

Exit codes:
  0  the suite is valid
  2  it is not (the error names file, line and field), or a usage error`,
		Example: `  vbench list benchmarks/suite.yaml
  vbench list benchmarks/suite.yaml --cells --shard 1/3
  for w in $(vbench list benchmarks/suite.yaml); do vbench run benchmarks/suite.yaml --workloads $w; done`,
		Args: exactArgs(1, "SUITE.yaml"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := suite.Load(args[0])
			if err != nil {
				return usageErr(err)
			}
			opts := runner.Options{Modes: modeNames(modes), Workloads: workloads, Warmup: -1}
			if shard != "" {
				if opts.Shard, err = parseShard(shard); err != nil {
					return usageErr(err)
				}
			}
			plan, err := runner.NewPlan(s, opts)
			if err != nil {
				return planErr(err)
			}
			if !cells {
				// A workload is listed when any of its cells is selected.
				seen := map[string]bool{}
				for _, c := range plan.Cells {
					if !seen[c.Workload.Name] {
						seen[c.Workload.Name] = true
						fmt.Fprintln(cmd.OutOrStdout(), c.Workload.Name)
					}
				}
				return nil
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "workload\tmode\tmetric\truns\twarmup\ttimeout\tprogram")
			for _, c := range plan.Cells {
				prog := strings.Join(c.Workload.Command, " ")
				if c.Workload.Project != "" {
					prog = c.Workload.Project + " " + strings.Join(c.Workload.Args, " ")
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", c.Workload.Name, c.Mode, c.Metric, c.Runs, c.Warmup, c.Timeout, prog)
			}
			w.Flush()
			fmt.Fprintf(cmd.OutOrStdout(), "suite %s: %s, baseline %s\n", s.Name, numfmt.Count(len(plan.Cells), "cell", "cells"), s.Baseline)
			for _, sp := range plan.Specs {
				fmt.Fprintf(cmd.OutOrStdout(), "mode %s: %s\n", sp.Name, sp.Description())
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&modes, "modes", nil, "only these modes")
	cmd.Flags().StringSliceVar(&workloads, "workloads", nil, "only these workloads")
	registerCompletion(cmd, "modes", completeSuiteModes)
	registerCompletion(cmd, "workloads", completeSuiteWorkloads)
	cmd.Flags().StringVar(&shard, "shard", "", "only the cells of shard i/n")
	cmd.Flags().BoolVar(&cells, "cells", false, "print every (workload, mode) cell with its runs, timeout and program")
	return cmd
}
