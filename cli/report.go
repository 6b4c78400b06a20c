package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(skeleton): replaced by the real command.
func newReportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "report RESULTS.json|PROFILE [more...] -o FILE",
		Short: "(not implemented yet)",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("report: not implemented yet")
		},
	}
}
