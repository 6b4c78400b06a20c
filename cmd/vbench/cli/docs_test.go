package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
// metric in docs/suite.md, the suite's reference. A flag or a mode added
// without a word in the docs fails here.
func TestDocsNameEveryFlagModeEngineAndMetric(t *testing.T) {
	root := testbin.RepoRoot()
	var docs strings.Builder
	for _, f := range referenceDocs(t) {
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
	b, err := os.ReadFile(filepath.Join(root, "docs/suite.md"))
	if err != nil {
		t.Fatal(err)
	}
	suite := string(b)
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
		if !strings.Contains(suite, "`"+w+"`") {
			t.Errorf("docs/suite.md never names `%s`", w)
		}
	}
}

// A list of the built-in modes (or of the engines) in the docs names all
// of them: the --modes row of the commands' reference, "The built-in modes are definitions
// too" and "Order" once left instrumentation out. A list is any run of
// three or more built-in names separated by commas (and "and"/"or"); it
// must name every built-in mode but none (a list of engines has no none).
// A command's --modes choosing some is no such list.
func TestDocsListEveryBuiltinMode(t *testing.T) {
	root := testbin.RepoRoot()
	var names []string
	for _, m := range modes.Builtins {
		names = append(names, regexp.QuoteMeta(string(m)))
	}
	// Engines without a built-in mode of their own (cpu-sampling) may sit in
	// a list of engines; they neither break it nor are required in it.
	for _, e := range modes.Engines {
		if !slices.Contains(modes.Builtins, modes.Mode(e)) {
			names = append([]string{regexp.QuoteMeta(string(e))}, names...)
		}
	}
	name := "[`\"]?(?:" + strings.Join(names, "|") + ")[`\"]?"
	list := regexp.MustCompile(name + `(?:(?:,\s*|,?\s+(?:and|or)\s+)` + name + `){2,}`)
	word := regexp.MustCompile(strings.Join(names, "|"))
	for _, f := range referenceDocs(t) {
		// reliability.md's catalogue quotes the short lists this test once
		// caught; timeline.md's "none, tracing and tracing with the
		// timeline" is three modes of one suite, not the built-ins.
		if f == "docs/reliability.md" || f == "docs/timeline.md" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range list.FindAllStringIndex(string(b), -1) {
			l := string(b[at[0]:at[1]])
			if before := string(b[:at[0]]); strings.HasSuffix(before, "--modes ") || strings.HasSuffix(before, "modes: [") {
				continue // a command or a suite choosing some modes, not a list of them
			}
			got := word.FindAllString(l, -1)
			for _, m := range modes.Builtins {
				if m != modes.None && !slices.Contains(got, string(m)) {
					t.Errorf("%s: %q lists the built-in modes without %s", f, l, m)
				}
			}
		}
	}
}

// referenceDocs are the README and the reference pages (docs/*.md, not the
// notebook), relative to the repository's root.
func referenceDocs(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(testbin.RepoRoot(), "docs", "*.md"))
	if err != nil || len(pages) < 5 {
		t.Fatalf("docs/*.md: %v (%d pages)", err, len(pages))
	}
	out := []string{"README.md"}
	for _, p := range pages {
		out = append(out, filepath.Join("docs", filepath.Base(p)))
	}
	return out
}
