package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"vbench/internal/modes"
	"vbench/internal/results"
	"vbench/internal/testbin"
)

// The reference documents say what the tool does: every flag of every
// command is named in them, and so is every built-in mode, engine and
// metric in docs/harness.md, the suite's reference. A flag or a mode added
// without a word in the docs fails here.
func TestDocsNameEveryFlagModeEngineAndMetric(t *testing.T) {
	root := testbin.RepoRoot()
	var docs strings.Builder
	for _, f := range []string{"README.md", "docs/harness.md", "docs/reports.md", "docs/profiler.md", "docs/reliability.md"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(b)
	}
	all := docs.String()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" || f.Name == "version" {
				return
			}
			short := f.Shorthand != "" && strings.Contains(all, "-"+f.Shorthand+" ")
			if !strings.Contains(all, "--"+f.Name) && !short {
				t.Errorf("%s --%s is named in none of the docs", c.CommandPath(), f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRootCmd())
	b, err := os.ReadFile(filepath.Join(root, "docs/harness.md"))
	if err != nil {
		t.Fatal(err)
	}
	harness := string(b)
	var words []string
	for _, m := range modes.Builtins {
		words = append(words, string(m))
	}
	for _, e := range modes.Engines {
		words = append(words, string(e))
	}
	for _, m := range results.Metrics {
		words = append(words, string(m))
	}
	for _, w := range words {
		if !strings.Contains(harness, "`"+w+"`") {
			t.Errorf("docs/harness.md never names `%s`", w)
		}
	}
}
