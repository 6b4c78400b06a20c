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
			fmt.Fprintln(cmd.OutOrStdout(), "vbench", versionString())
			return nil
		},
	}
}

// versionString is the commit vbench was built from, "+dirty" when the
// tree had changes.
func versionString() string {
	c, d := machine.Version()
	if d {
		c += "+dirty"
	}
	return c
}
