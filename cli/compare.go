package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"vbench/baseline"
	"vbench/render"
	"vbench/results"
)

func newCompareCmd() *cobra.Command {
	var format string
	var alpha, minChange float64
	cmd := &cobra.Command{
		Use:   "compare OLD.json NEW.json",
		Short: "Compare two results files cell by cell and give verdicts",
		Long: `Compare gives every cell of NEW a verdict against the same cell of OLD:
regressed or improved when the Mann-Whitney U test is significant (p < alpha)
AND the median moved by more than the minimum change; same otherwise; new when
OLD lacks the cell; failed when it failed in NEW. Overhead multiples (each
profiled mode over none) are compared the same way. Alpha and the minimum
change come from NEW's suite unless given here. A machine fingerprint
mismatch is printed as a warning.

` + exitCodesHelp,
		Example: `  vbench compare baselines/default.json out/results.json
  vbench compare old.json new.json --alpha 0.05 --min-change 3 --format markdown`,
		Args: exactArgs(2, "OLD.json and NEW.json"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !contains(render.Formats, format) {
				return usageErrf("--format %q: want one of %s", format, strings.Join(render.Formats, ", "))
			}
			old, err := results.ReadFile(args[0])
			if err != nil {
				return usageErr(err)
			}
			cur, err := results.ReadFile(args[1])
			if err != nil {
				return usageErr(err)
			}
			if old.Suite.Name != cur.Suite.Name {
				return usageErrf("%s is from suite %q, %s from suite %q: nothing to compare", args[0], old.Suite.Name, args[1], cur.Suite.Name)
			}
			opts := baseline.OptionsOf(cur)
			if cmd.Flags().Changed("alpha") {
				if alpha <= 0 || alpha >= 0.5 {
					return usageErrf("--alpha %g: want a significance level between 0 and 0.5", alpha)
				}
				opts.Alpha = alpha
			}
			if cmd.Flags().Changed("min-change") {
				if minChange < 0 || minChange >= 100 {
					return usageErrf("--min-change %g: want a percentage between 0 and 100", minChange)
				}
				opts.MinChange = minChange / 100
			}
			if opts.Alpha <= 0 {
				return usageErrf("%s records no alpha; pass --alpha", args[1])
			}
			cur.Baseline = args[0]
			cur.Settings.Alpha, cur.Settings.Threshold = opts.Alpha, opts.MinChange
			baseline.Compare(old, cur, opts)
			if err := render.Write(cmd.OutOrStdout(), cur, format); err != nil {
				return withCode(ExitFailed, err)
			}
			return resultCode(cur)
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output format: "+strings.Join(render.Formats, "|"))
	cmd.Flags().Float64Var(&alpha, "alpha", 0, "significance level (default: NEW's suite setting)")
	cmd.Flags().Float64Var(&minChange, "min-change", 0, "minimum change that counts, in percent (default: NEW's suite setting)")
	return cmd
}
