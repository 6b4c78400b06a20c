package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"vbench/buildinfo"
)

// Version returns the vbench commit (with "+dirty" for modified trees) as
// recorded by the go command at build time.
func Version() (commit string, dirty bool) { return buildinfo.Version() }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the vbench commit it was built from",
		Example: "  vbench version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, d := Version()
			if d {
				c += "+dirty"
			}
			fmt.Fprintln(cmd.OutOrStdout(), "vbench", c)
			return nil
		},
	}
}
