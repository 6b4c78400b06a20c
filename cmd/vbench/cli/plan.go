package cli

import (
	"errors"
	"strings"

	"vbench/runner"
)

// planErr is an error of runner.NewPlan as a usage error, with an option
// the suite cannot satisfy called by its flag: Options.Modes is --modes.
func planErr(err error) error {
	var oe *runner.OptionError
	if errors.As(err, &oe) {
		return usageErr(errors.New(oe.Explain("--" + strings.ToLower(oe.Option))))
	}
	return usageErr(err)
}
