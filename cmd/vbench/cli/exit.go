package cli

import (
	"errors"
	"fmt"
)

// Exit codes, documented in README.md and `vbench --help`.
const (
	ExitOK         = 0 // no regression
	ExitRegression = 1 // a cell regressed against the baseline
	ExitUsage      = 2 // usage or configuration error
	ExitFailed     = 3 // a workload failed: non-zero exit, crash, timeout, checksum mismatch
	// ExitInterrupted: SIGINT/SIGTERM stopped a run; partial results were saved.
	ExitInterrupted = 130
)

// exitError carries an exit code up to Main. Commands return it (or wrap it)
// instead of calling os.Exit, so deferred cleanup always runs.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// usageErr marks err as a usage/configuration error (exit 2).
func usageErr(err error) error { return &exitError{ExitUsage, err} }

// usageErrf is usageErr with formatting.
func usageErrf(format string, args ...any) error { return usageErr(fmt.Errorf(format, args...)) }

// withCode returns an error that makes Main exit with code; err may be nil
// when the command already printed what there is to say.
func withCode(code int, err error) error { return &exitError{code, err} }

// exitCode maps an error from a command to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitUsage
}
