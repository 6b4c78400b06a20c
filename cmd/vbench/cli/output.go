package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"vbench/baseline"

	"github.com/spf13/cobra"

	"vbench/internal/atomicfile"
	"vbench/internal/ownfile"
	"vbench/internal/results"
	"vbench/reports"
)

// checkFormat refuses a --format of run, compare, merge or baseline update
// that is not one of theirs (reports.ForResults: the results table and
// file, plus the two reports other tools read, benchstat's and CI test
// views'); `vbench report` has the rest.
func checkFormat(format string) error {
	if f := reports.FormatNamed(format); f == nil || f.Results == nil {
		return usageErrf("--format %q: want one of %s", format, formatNames)
	}
	return nil
}

// writeFormat prints res in format.
func writeFormat(w io.Writer, res *results.File, format string) error {
	return reports.WriteResults(w, res, format)
}

// formatNames lists the results commands' formats: "table, markdown, …".
var formatNames = reports.FormatNames(reports.FormatsFor(reports.ForResults))

// formatHelp is the --format help of the results commands, with a note on
// the formats that need one: "json (the results file)".
var formatHelp = func() string {
	var s []string
	for _, f := range reports.FormatsFor(reports.ForResults) {
		if f.Note != "" {
			s = append(s, f.Name+" ("+f.Note+")")
		} else {
			s = append(s, f.Name)
		}
	}
	return "output `format`: " + strings.Join(s, ", ")
}()

// ciFlags are the outputs for CI systems that run and compare share: a JUnit
// file, and the Markdown report appended to the GitHub Actions job summary.
type ciFlags struct {
	junit         string
	noStepSummary bool
	failOn        string // "inconclusive": an inconclusive cell fails the command too; "regressed": only regressions do
}

func (c *ciFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&c.junit, "junit", "", "also write JUnit XML to `FILE`, atomically: one test case per cell, regressions and failed workloads as failures")
	fl.BoolVar(&c.noStepSummary, "no-step-summary", false, "do not append the Markdown report to $GITHUB_STEP_SUMMARY")
	fl.StringVar(&c.failOn, "fail-on", "", failOnHelp)
}

// check refuses, before anything runs, a JUnit file that cannot be written
// or that would replace one of the inputs or outputs named in keep.
func (c *ciFlags) check(keep ...string) error {
	if err := checkFailOn(c.failOn); err != nil {
		return err
	}
	if c.junit == "" {
		return nil
	}
	for _, k := range keep {
		if k != "" && baseline.SamePath(c.junit, k) {
			return usageErrf("--junit %s would overwrite %s", c.junit, k)
		}
	}
	if err := results.CheckWritable(c.junit); err != nil {
		return usageErr(err)
	}
	if err := ownfile.Check("--junit", c.junit, reports.JUnitKind); err != nil {
		return usageErr(err)
	}
	return nil
}

// write saves the JUnit file and appends the job summary (when
// GITHUB_STEP_SUMMARY is set). Both happen whatever the verdicts: a failed or
// interrupted run is when CI needs them most. A summary that cannot be
// appended is a warning; a JUnit file that cannot be written is an error.
func (c *ciFlags) write(cmd *cobra.Command, res *results.File) error {
	var err error
	if c.junit != "" {
		err = atomicfile.Write(c.junit, 0o666, func(w io.Writer) error { return reports.JUnit(w, res) })
	}
	if !c.noStepSummary {
		if serr := reports.AppendStepSummary([]*results.File{res}, reports.Options{}); serr != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "vbench: warning: job summary not written: %v\n", serr)
		}
	}
	return err
}

// failOnHelp is --fail-on's help: what exits 1, and the trade-off.
const failOnHelp = "what else exits 1 besides a regression (which always does). Default: a run (or merge) more than a quarter of whose A/B pairs are `inconclusive` (\"this run cannot show that nothing regressed: 12 of 17 pairs inconclusive\"): a run that decided little would pass a regression as easily as a no-op change. " +
	"inconclusive: any inconclusive cell too (strictest: a noisy machine then fails no-op changes). regressed: regressions only (a busy machine never fails the job, and a regression hidden in an inconclusive cell passes)"

// failOnValues are the values --fail-on takes besides the default "".
var failOnValues = []string{string(results.VerdictInconclusive), string(results.VerdictRegressed)}

// checkFailOn refuses a --fail-on it does not know (run, compare, merge).
func checkFailOn(v string) error {
	if v != "" && !slices.Contains(failOnValues, v) {
		return usageErrf("--fail-on %q: inconclusive (any inconclusive cell fails too) or regressed (only regressions fail); by default a run more than a quarter of whose A/B pairs are inconclusive fails too", v)
	}
	return nil
}

// outcome is the exit code of a command that produced res, after the
// outputs it could not write (errs): interrupted 130 (when the command
// itself was: a run, never a comparison of a partial file) > a workload
// failed or an output was lost 3 > a regression (or, with --fail-on
// inconclusive, an inconclusive cell) 1 > 0.
//
// A run that decided too little (File.UndecidedSentence) exits 1 too when
// ofARun (vbench run, and merge of a run's shards), unless --fail-on
// regressed; compare judges two files someone already has, and only says it.
func outcome(res *results.File, interrupted, ofARun bool, failOn string, errs ...error) error {
	err := errors.Join(errs...)
	worst := results.CIPass
	for v, n := range res.Counts() {
		if n > 0 && v.Fails(failOn == string(results.VerdictInconclusive)) && (worst == results.CIPass || v.CI() == results.CIError) {
			worst = v.CI()
		}
	}
	switch {
	case interrupted:
		return withCode(ExitInterrupted, err)
	case err != nil, worst == results.CIError:
		return withCode(ExitFailed, err)
	case worst != results.CIPass, len(res.GrowthRegressions()) > 0: // a regression (a cell's or a complexity's), or an inconclusive cell under --fail-on inconclusive
		return withCode(ExitRegression, nil)
	case ofARun && failOn != string(results.VerdictRegressed) && res.UndecidedSentence() != "":
		return withCode(ExitRegression, fmt.Errorf("%s (--fail-on regressed passes such runs)", res.UndecidedSentence()))
	}
	return nil
}
