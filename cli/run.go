package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(skeleton): replaced by the real command.
func newRunCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "run SUITE.yaml",
		Short: "(not implemented yet)",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("run: not implemented yet")
		},
	}
}
