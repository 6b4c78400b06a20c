package cli

import (
	"fmt"
	"syscall"

	"github.com/spf13/cobra"

	"vbench/internal/profile"
)

// What `vbench profile` and `vbench show` share: how a program's
// end is said, and the flags that choose what a profile view shows.

// childEnd says how the profiled program ended, from child.Run's code
// (128+n: killed by signal n).
func childEnd(code int) string {
	switch {
	case code > 128 && code < 128+65:
		return fmt.Sprintf("died of signal %d (%v)", code-128, syscall.Signal(code-128))
	case code != 0:
		return fmt.Sprintf("exited with code %d", code)
	}
	return "exited with code 0"
}

// checkTop refuses a --top that shows no functions (report and profile).
func checkTop(top int) error {
	if top < 1 {
		return usageErrf("--top %d: must be >= 1", top)
	}
	return nil
}

// focusFlag reads --focus (profile, report); a --focus given empty is an
// error, not no focus.
func focusFlag(cmd *cobra.Command, patterns []string) (*profile.Focus, error) {
	if cmd.Flags().Changed("focus") && len(patterns) == 0 {
		patterns = []string{""}
	}
	focus, err := profile.NewFocus(patterns)
	if err != nil {
		return nil, usageErrf("--focus: %v", err)
	}
	return focus, nil
}

// testView is the default view of a dotnet test run's profiles: framework
// and test-runner frames folded, the test host first (profile.Tree.Folded);
// other trees, and every tree with --all-frames, as they are.
func testView(t *profile.Tree, allFrames bool) *profile.Tree {
	if allFrames || !t.TestRun() {
		return t
	}
	return t.Folded(&profile.Focus{Patterns: profile.TestRunnerFrames})
}
