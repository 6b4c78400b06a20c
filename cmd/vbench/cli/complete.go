package cli

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"vbench/internal/modes"
	"vbench/internal/suite"
	"vbench/reports"
)

// Shell completion of flag values (cobra's `vbench __complete`, which the
// scripts of `vbench completion bash|zsh|fish` call). Each candidate is
// "value\tdescription"; the shells show the description beside it.

// completeSuiteModes offers the modes of the suite named first on the line
// (run, baseline update, list SUITE.yaml): the ones it runs, then the other
// modes it knows (built-in or defined), each described.
func completeSuiteModes(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	s := completionSuite(args)
	if s == nil {
		var names []string
		for _, m := range modes.Builtins {
			names = append(names, string(m))
		}
		return completeList(toComplete, names), cobra.ShellCompDirectiveNoFileComp
	}
	var cands []string
	for _, m := range append(slices.Clone(s.Modes), s.KnownModes()...) {
		sp, _ := s.Spec(m)
		c := string(m) + "\t" + sp.Description()
		if !slices.Contains(s.Modes, m) {
			c += " (not in the suite's modes)"
		}
		if !slices.ContainsFunc(cands, func(x string) bool { return strings.HasPrefix(x, string(m)+"\t") }) {
			cands = append(cands, c)
		}
	}
	return completeList(toComplete, cands), cobra.ShellCompDirectiveNoFileComp
}

// completeSuiteWorkloads offers the workloads of the suite named first on
// the line.
func completeSuiteWorkloads(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	s := completionSuite(args)
	if s == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, w := range s.Workloads {
		names = append(names, w.Name)
	}
	return completeList(toComplete, names), cobra.ShellCompDirectiveNoFileComp
}

// completionSuite loads the suite file args[0], or nil when there is none
// or it does not load (completion says nothing rather than an error).
func completionSuite(args []string) *suite.Suite {
	if len(args) == 0 {
		return nil
	}
	s, err := suite.Load(args[0])
	if err != nil {
		return nil
	}
	return s
}

// completeEngines offers profile --mode's engines.
func completeEngines(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var names []string
	for _, e := range modes.Engines {
		names = append(names, string(e))
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// completeFormats offers the formats of reports.Formats that write one of
// the given kinds of output (reports.ForResults, ForReport).
func completeFormats(writes ...func(*reports.Format) bool) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var cands []string
		for _, f := range reports.Formats {
			if !slices.ContainsFunc(writes, func(w func(*reports.Format) bool) bool { return w(f) }) {
				continue
			}
			about := f.Note
			if about == "" {
				about = strings.ReplaceAll(f.About, "\n", " ")
			}
			if about == "" {
				cands = append(cands, f.Name)
			} else {
				cands = append(cands, f.Name+"\t"+about)
			}
		}
		return cands, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeList completes the last item of a comma-separated list flag
// (--modes none,tr<TAB>): each candidate that starts with the last item and
// is not already listed, after the items typed so far. Candidates may carry
// a "\tdescription".
func completeList(toComplete string, cands []string) []string {
	done, last := cutLast(toComplete, ",")
	typed := strings.Split(done, ",")
	var out []string
	for _, c := range cands {
		name, _, _ := strings.Cut(c, "\t")
		if slices.Contains(typed, name) || !strings.HasPrefix(name, last) {
			continue
		}
		if done != "" {
			c = done + "," + c
		}
		out = append(out, c)
	}
	return out
}

// cutLast splits s around the last sep: "a,b,c" → "a,b", "c"; without sep,
// "", s.
func cutLast(s, sep string) (before, after string) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return "", s
	}
	return s[:i], s[i+len(sep):]
}

// registerCompletion registers f for flag name of cmd; a flag that does not
// exist is a programming error.
func registerCompletion(cmd *cobra.Command, name string, f cobra.CompletionFunc) {
	if err := cmd.RegisterFlagCompletionFunc(name, f); err != nil {
		panic(err)
	}
}

// completeResultsFormats offers the results commands' --format values (run,
// compare, merge, baseline update).
var completeResultsFormats = completeFormats(reports.ForResults)
