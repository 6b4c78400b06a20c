package cli

import (
	"fmt"
	"strings"
	"vbench/internal/atomicfile"
	"vbench/internal/ownfile"
	"vbench/internal/verdict"

	"github.com/spf13/cobra"

	"vbench/baseline"
	"vbench/internal/results"
	"vbench/internal/suite"
)

func newBaselineCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "baseline",
		Short: "Record the results that later runs are compared with",
		Long: `A baseline is a results file (every raw sample and the machine fingerprint)
stored at the suite's baseline path: its baseline field, by default
baselines/<suite name>.json in the suite's own folder. Only 'vbench baseline update' writes it: atomically,
under a lock, and only from a complete run in which no cell failed.`,
		Example: `  vbench baseline update benchmarks/suite.yaml
  vbench baseline update benchmarks/suite.yaml --from out/results.json`,
	}
	cmd.AddCommand(newBaselineUpdateCmd())
	return cmd
}

func newBaselineUpdateCmd() *cobra.Command {
	var f runFlags
	var from, out string
	cmd := &cobra.Command{
		Use:   "update SUITE.yaml [--from RESULTS.json]",
		Short: "Write the suite's baseline from a new run or from saved results",
		Long: `Update runs the suite (accepting the same flags as 'vbench run') or takes
--from RESULTS.json, and writes it as the suite's baseline (or --baseline
FILE): the suite's baseline field, by default baselines/<suite name>.json in
the suite's own folder (benchmarks/suite.yaml, named default, writes
benchmarks/baselines/default.json; the directory is created). The write is atomic and holds an exclusive lock on the baseline
directory, so two updates never interleave; a second update waits. Partial
results, shard results and results with failed cells are refused.

` + exitCodesHelpOK("the baseline was written", ExitOK, ExitUsage, ExitFailed, ExitInterrupted),
		Example: `  vbench baseline update benchmarks/suite.yaml
  vbench baseline update benchmarks/suite.yaml --from out/results.json
  vbench baseline update benchmarks/quick.yaml --runs 20 --baseline ci/baselines/quick.json`,
		Args: exactArgs(1, "SUITE.yaml"),
		RunE: func(cmd *cobra.Command, args []string) error {
			stderr := cmd.ErrOrStderr()
			var m *measurement
			var err error
			if from == "" {
				if m, err = prepare(cmd, args[0], &f); err != nil {
					return err
				}
			} else {
				// Nothing runs: only the suite's identity matters.
				s, err := suite.Load(args[0])
				if err != nil {
					return usageErr(err)
				}
				m = &measurement{suite: s}
			}
			path := out
			if path == "" {
				path = m.suite.Baseline
			}
			if f.jsonOut != "" && baseline.SamePath(f.jsonOut, path) {
				return usageErrf("--json %s is the baseline this update writes; give the run's results another file", f.jsonOut)
			}
			named := "--baseline"
			if out == "" {
				named = "the suite's baseline"
			}
			if err := ownfile.Check(named, path, results.Kind); err != nil {
				return usageErr(err)
			}
			var res *results.File
			if from != "" {
				if res, err = results.ReadFile(from); err != nil {
					return usageErr(err)
				}
				if res.Suite.Name != m.suite.Name {
					return usageErrf("%s holds results of suite %q, not %q", from, res.Suite.Name, m.suite.Name)
				}
				if res.Suite.SHA256 != m.suite.SHA256 {
					fmt.Fprintf(stderr, "vbench: warning: %s\n", otherSuiteFile(from, res.Suite.Path, args[0]))
				}
				if err := checkSuiteMetrics(from, res, m.suite); err != nil {
					return usageErr(err)
				}
				if err := baseline.Check(res); err != nil {
					return usageErrf("%s: %v", from, err)
				}
			}
			unlock, err := atomicfile.LockDir(path, func(dir string) {
				fmt.Fprintf(stderr, "vbench: waiting for another baseline update (lock on %s)\n", dir)
			})
			if err != nil {
				return usageErr(err)
			}
			defer unlock()
			if err := results.CheckWritable(path); err != nil {
				return usageErr(err)
			}
			if res == nil {
				var whys results.Whys
				res, whys = m.measure(cmd)
				opts := verdict.OptionsOf(res)
				opts.Whys = whys
				verdict.Apply(res, nil, opts)
				if f.jsonOut != "" {
					if err := results.WriteFile(f.jsonOut, res); err != nil {
						return withCode(ExitFailed, fmt.Errorf("saving results: %w", err))
					}
				}
				if res.Partial {
					fmt.Fprintln(stderr, "vbench: interrupted; the baseline was not changed")
					return withCode(ExitInterrupted, nil)
				}
				if err := baseline.Check(res); err != nil {
					fmt.Fprintf(stderr, "vbench: the baseline was not changed: %v\n", err)
					printTable(cmd, res, f.format)
					return withCode(ExitFailed, nil)
				}
				printTable(cmd, res, f.format)
			}
			if dropped := droppedCells(path, m.suite.Name, res); len(dropped) > 0 {
				what, them := "cells", "them"
				if len(dropped) == 1 {
					what, them = "cell", "it"
				}
				fmt.Fprintf(stderr, "vbench: warning: the new baseline drops %d %s the previous one had (%s): later runs will call %s new\n",
					len(dropped), what, strings.Join(dropped, ", "), them)
			}
			if err := baseline.Write(path, res); err != nil {
				return usageErr(err)
			}
			fmt.Fprintf(stderr, "vbench: baseline %s updated (%d cells)\n", path, len(res.Results))
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&from, "from", "", "take the results from this file instead of running the suite")
	cmd.Flags().StringVar(&out, "baseline", "", "baseline `FILE` to write (default: the suite's baseline, baselines/<suite name>.json in the suite's folder)")
	return cmd
}

func printTable(cmd *cobra.Command, res *results.File, format string) {
	if err := writeFormat(cmd.OutOrStdout(), res, format); err != nil {
		fmt.Fprintln(cmd.ErrOrStderr(), "vbench:", err)
	}
}

// checkSuiteMetrics refuses results that measured a workload by another
// metric than the suite now gives it: as a baseline, every later run would
// be refused against it.
func checkSuiteMetrics(name string, res *results.File, s *suite.Suite) error {
	now := map[string]results.Metric{}
	for _, w := range s.Workloads {
		now[w.Name] = w.Metric.OrDefault()
	}
	return verdict.CheckMetrics(name, res, s.Path, now)
}

// otherSuiteFile says how the suite file results came from differs from the
// one given: another file (whose suite has the same name), or the same file
// changed since.
func otherSuiteFile(from, recorded, given string) string {
	if recorded != "" && !baseline.SamePath(recorded, given) {
		return fmt.Sprintf("%s was produced from another suite file, %s, not %s (both name suite the same); its cells are %s's", from, recorded, given, recorded)
	}
	return fmt.Sprintf("%s was produced from a different version of %s: the file changed since", from, given)
}

// droppedCells lists the cells of the baseline at path (if any, of the same
// suite) that res does not have: an update replaces the whole baseline, so
// they would be gone without a word.
func droppedCells(path, suiteName string, res *results.File) []string {
	old, err := baseline.Load(path, suiteName)
	if err != nil {
		return nil
	}
	var dropped []string
	for i := range old.Results {
		c := &old.Results[i]
		if res.Find(c.Workload, c.Mode) == nil {
			dropped = append(dropped, c.Key())
		}
	}
	return dropped
}
