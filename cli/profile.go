package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(skeleton): replaced by the real command.
func newProfileCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "profile [flags] -- COMMAND [ARGS...]",
		Short: "(not implemented yet)",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("profile: not implemented yet")
		},
	}
}
