package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(skeleton): replaced by the real command.
func newMergeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "merge A.json B.json... -o OUT.json",
		Short: "(not implemented yet)",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("merge: not implemented yet")
		},
	}
}
