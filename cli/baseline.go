package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(skeleton): replaced by the real command.
func newBaselineCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "baseline",
		Short: "(not implemented yet)",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("baseline: not implemented yet")
		},
	}
}
