// Package cli is the vbench command tree (cobra): one file per command.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// exitCodeLines says what each exit code means, for the help of the
// commands that can return it: each command lists only its own
// (exitCodesHelp), the root all of them.
var exitCodeLines = map[int]string{
	ExitOK: "0  no regression",
	ExitRegression: `1  a cell regressed (against a baseline, or in an A/B run against its
     OLD twin); or (run, merge) more than a quarter of the A/B pairs are
     inconclusive ("this run cannot show that nothing regressed"), unless
     --fail-on regressed; with --fail-on inconclusive, any inconclusive cell`,
	ExitUsage: "2  usage or configuration error",
	ExitFailed: `3  a workload failed (non-zero exit, crash, timeout, checksum mismatch,
     profiler call counts wrong, a sampler the program blinded)`,
	ExitInterrupted: "130 interrupted (Ctrl-C, SIGTERM); partial results saved with --json",
}

// exitCodesHelp is the "Exit codes:" block of a command's help, listing
// only codes, in the order given; "When several apply" is said only when
// several can.
func exitCodesHelp(codes ...int) string { return exitCodesHelpOK("", codes...) }

// exitCodesHelpOK is exitCodesHelp where exit 0 means ok, not "no
// regression" (a command that judges nothing).
func exitCodesHelpOK(ok string, codes ...int) string {
	s := "Exit codes:"
	for _, c := range codes {
		line := exitCodeLines[c]
		if c == ExitOK && ok != "" {
			line = "0  " + ok
		}
		s += "\n  " + line
	}
	var order []string
	for _, c := range []int{ExitUsage, ExitInterrupted, ExitFailed, ExitRegression} {
		if slices.Contains(codes, c) {
			order = append(order, strconv.Itoa(c))
		}
	}
	if len(order) > 1 {
		s += "\n  When several apply: " + strings.Join(order, ", then ") + "."
	}
	return s
}

// allExitCodes are the codes vbench as a whole (and `vbench run`) returns.
var allExitCodes = []int{ExitOK, ExitRegression, ExitUsage, ExitFailed, ExitInterrupted}

// NewRootCmd builds the whole command tree.
func NewRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "vbench",
		Short: "Measure and guard the overhead of .NET profilers",
		Long: `vbench runs .NET workloads with and without a profiler attached, computes
medians with confidence intervals and overhead multiples, compares them with
stored baselines and exits non-zero on a regression. It ships its own profiler
(tracing, instrumentation, sampling and null engines) as bin/libvbenchprof.so.

` + exitCodesHelp(allExitCodes...) + `
  Each command's --help lists the codes it returns.`,
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
		newShowCmd(),
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
