package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(skeleton): replaced by the real command.
func newListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list SUITE.yaml",
		Short: "(not implemented yet)",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("list: not implemented yet")
		},
	}
}
