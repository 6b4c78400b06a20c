package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(skeleton): replaced by the real command.
func newCompareCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "compare OLD.json NEW.json",
		Short: "(not implemented yet)",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("compare: not implemented yet")
		},
	}
}
