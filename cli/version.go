package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version returns the vbench commit (with "+dirty" for modified trees) as
// recorded by the go command at build time.
func Version() (commit string, dirty bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown", false
	}
	commit = "unknown"
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	return commit, dirty
}

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
