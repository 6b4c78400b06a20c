package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(skeleton): replaced by the real command.
func newDoctorCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "(not implemented yet)",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("doctor: not implemented yet")
		},
	}
}
