package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"vbench/internal/doctor"
)

func newDoctorCmd() *cobra.Command {
	var lib string
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that this machine can run vbench, and what makes its timings noisy",
		Long: `doctor checks what vbench needs — the .NET runtime (8 or newer) and a profiler
library that really loads into a CoreCLR process — and reports what makes timings
noisy: CPU frequency scaling, turbo boost, load, CPU quotas, a hypervisor.

It exits 2 when something required is missing; warnings alone exit 0.`,
		Example: `  vbench doctor
  vbench doctor --profiler ./bin/libvbenchprof.so`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			checks := doctor.Run(cmd.Context(), doctor.Options{ProfilerLib: lib})
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			warns := 0
			for _, c := range checks {
				fmt.Fprintf(w, "%s\t%s\t%s\n", mark(c.Status), c.Name, c.Detail)
				if c.Advice != "" {
					fmt.Fprintf(w, "\t\t→ %s\n", c.Advice)
				}
				if c.Status == doctor.Warn {
					warns++
				}
			}
			w.Flush()
			if doctor.Failed(checks) {
				return withCode(ExitUsage, fmt.Errorf("doctor: something vbench needs is missing (see ✗ above)"))
			}
			if warns > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "\nReady, with %d source(s) of timing noise (see ! above).\n", warns)
			} else {
				fmt.Fprintln(cmd.OutOrStdout(), "\nReady.")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&lib, "profiler", "", "profiler library to check (default: libvbenchprof.so next to vbench)")
	return cmd
}

func mark(s doctor.Status) string {
	switch s {
	case doctor.OK:
		return "✓"
	case doctor.Info:
		return "·"
	case doctor.Warn:
		return "!"
	}
	return "✗"
}
