// Package cli is the vbench command tree (cobra): one file per command.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

const exitCodesHelp = `Exit codes:
  0  no regression
  1  a cell regressed (against a baseline, or in an A/B run against its
     OLD twin); with --fail-on inconclusive, also an inconclusive cell
  2  usage or configuration error
  3  a workload failed (non-zero exit, crash, timeout, checksum mismatch,
     profiler call counts wrong)
  130 interrupted (Ctrl-C, SIGTERM); partial results saved with --json
  When several apply: 2, then 130, then 3, then 1.`

// NewRootCmd builds the whole command tree.
func NewRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "vbench",
		Short: "Measure and guard the overhead of .NET profilers",
		Long: `vbench runs .NET workloads with and without a profiler attached, computes
medians with confidence intervals and overhead multiples, compares them with
stored baselines and exits non-zero on a regression. It ships its own profiler
(tracing, instrumentation, sampling and null engines) as bin/libvbenchprof.so.

` + exitCodesHelp,
		Example: `  vbench run benchmarks/suite.yaml
  vbench run benchmarks/quick.yaml --runs 5 --baseline benchmarks/baselines/quick.json
  vbench profile --mode tracing -- dotnet app.dll
  vbench report results.json -o report.html`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
	}
	// `vbench --version` says what `vbench version` says.
	root.SetVersionTemplate("vbench {{.Version}}\n")
	root.AddCommand(
		newRunCmd(),
		newListCmd(),
		newCompareCmd(),
		newBaselineCmd(),
		newHistoryCmd(),
		newMergeCmd(),
		newProfileCmd(),
		newReportCmd(),
		newDiffCmd(),
		newDoctorCmd(),
		newVersionCmd(),
	)
	return root
}

// Main runs the command line args and returns the exit code.
func Main(args []string) int {
	return run(args, os.Stdout, os.Stderr)
}

func run(args []string, stdout, stderr io.Writer) int {
	root := NewRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrf("%v\nSee '%s --help'.", err, c.CommandPath())
	})
	err := root.Execute()
	if err != nil {
		// An exitError without a message means the command already said why.
		var ee *exitError
		if !errors.As(err, &ee) || ee.err != nil {
			fmt.Fprintln(stderr, "vbench:", err)
		}
	}
	return exitCode(err)
}
