package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"vbench/internal/machine"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the vbench commit it was built from",
		Example: "  vbench version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, d := machine.Version()
			if d {
				c += "+dirty"
			}
			fmt.Fprintln(cmd.OutOrStdout(), "vbench", c)
			return nil
		},
	}
}
