package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"vbench/baseline"
	"vbench/internal/ownfile"
	"vbench/internal/profdiff"
	"vbench/internal/results"
	"vbench/reports/profileview"
	"vbench/runner"
)

type diffFlags struct {
	format    string
	output    string
	top       int
	processes string
	by        string
}

func newDiffCmd() *cobra.Command {
	f := &diffFlags{}
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Compare two profiles function by function: where a change in time went",
		Long: `Diff compares two profiles of one program (two builds, two inputs) and lists
each function's change, largest contribution to the total change first.

OLD and NEW are each a profile directory as vbench run keeps them
(profiles/<workload>/<mode>: every measured run under runs/), a profile
directory of vbench profile (--out; one run, its processes merged), a
profile.json, a pprof file (profile.pb.gz), or another tool's profile
(EventPipe's nettrace, speedscope JSON, perf script text; one run).
Functions are matched by
name (namespace, type and method), not by assembly, so two builds that name
their assemblies differently compare. --processes keeps, in directories of
several processes (dotnet test), only those whose command line matches.

Tracing and instrumentation profiles compare time: each function's self
(exclusive) and inclusive time, the mean per run, in ns. Self times add up
to the total, so a function's change in self time is its contribution to
the total change. The 95% interval and p of a change are Welch's t over the
runs' per-run figures, so they need two runs a side (a kept directory of a
vbench run has them). Sampling profiles compare samples: each function's
share of its side's samples (those with a managed frame), the change in
percentage points, the interval and p a test of two proportions over the
pooled counts (samples close in time are not independent: read p as a
guide). A tracing profile and a sampling one do not compare. Allocation
profiles (allocations, allocation-sampling) compare bytes and objects by
type, the mean per run: the type whose bytes changed most and the paths it
grew on first ("This change allocates 40MiB more Order a run, from …"),
then every type by its change.

--by path lists call paths instead of functions: each row a path from a
root to a function, its self figure the function's on that path alone, so
a helper several callers share, dearer under one of them, is that caller's
path. Tracing profiles add each row's calls per run (old, new); a change
whose interval holds zero is marked "(not shown)" beside its p.

-o FILE.svg draws a differential flame graph: NEW's call paths as wide as
their inclusive weight in NEW, coloured by the change of their self weight
from OLD (red grew, blue shrank, white unchanged). -o with .txt, .md or
.json writes that format to the file; outputs are written atomically.`,
		Example: `  vbench diff out/profiles/fib/tracing@old out/profiles/fib/tracing
  vbench diff old/profile.json new/profile.json --top 10
  vbench diff old-prof/ new-prof/ --format markdown >> "$GITHUB_STEP_SUMMARY"
  vbench diff old.pb.gz new.pb.gz --format json
  vbench diff out/profiles/app/sampled@old out/profiles/app/sampled --by path
  vbench diff base/ head/ --processes testhost -o diff.svg`,
		Args: exactArgs(2, "OLD NEW"),
		RunE: func(cmd *cobra.Command, args []string) error { return runDiff(cmd, f, args[0], args[1]) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", "", "text | markdown | json (default: text, or -o's extension)")
	fl.StringVarP(&f.output, "output", "o", "", "write to `FILE` instead of stdout: .svg a differential flame graph, .txt, .md or .json that format")
	fl.IntVar(&f.top, "top", 20, "how many functions to list (at least 1)")
	fl.StringVar(&f.by, "by", "function", "function | path: a row per function, or per call path root to function (a helper's growth under one caller is that caller's path)")
	fl.StringVar(&f.processes, "processes", "", "in profile directories of several processes, compare only those whose command line matches this Go `regexp`")
	registerCompletion(cmd, "by", cobra.FixedCompletions([]string{"function", "path"}, cobra.ShellCompDirectiveNoFileComp))
	registerCompletion(cmd, "format", cobra.FixedCompletions([]string{"text", "markdown", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// diffFormats are the formats by name and by -o's extension.
var diffFormats = map[string]func(io.Writer, profileview.DiffView) error{
	"text": profileview.DiffText, "markdown": profileview.DiffMarkdown, "json": profileview.WriteDiffJSON,
}

var diffExts = map[string]string{".txt": "text", ".md": "markdown", ".json": "json", ".svg": "svg"}

func runDiff(cmd *cobra.Command, f *diffFlags, oldPath, newPath string) error {
	if err := checkTop(f.top); err != nil {
		return err
	}
	format := strings.ToLower(f.format)
	if format == "" && f.output != "" {
		format = diffExts[strings.ToLower(filepath.Ext(f.output))]
		if format == "" {
			return usageErrf("-o %s: cannot tell the format from its extension; use .svg, .txt, .md or .json, or --format", f.output)
		}
	}
	if format == "" {
		format = "text"
	}
	if _, ok := diffFormats[format]; !ok && !(format == "svg" && f.output != "") {
		return usageErrf("--format %q: want text, markdown or json (-o FILE.svg draws the flame graph)", f.format)
	}
	if f.by != "function" && f.by != "path" {
		return usageErrf("--by %q: want function or path", f.by)
	}
	var procs *regexp.Regexp
	if f.processes != "" {
		re, err := regexp.Compile(f.processes)
		if err != nil {
			return usageErrf("--processes %q: %v", f.processes, err)
		}
		procs = re
	}
	if f.output != "" {
		if err := baseline.Guard("-o", f.output); err != nil {
			return usageErr(err)
		}
		if err := results.CheckWritable(f.output); err != nil {
			return usageErr(err)
		}
		if err := ownfile.Check("-o", f.output, profileview.DiffKind(format)); err != nil {
			return usageErr(err)
		}
	}
	old, err := profdiff.Read(oldPath, procs, runner.ReadNettrace)
	if err != nil {
		return usageErrf("OLD: %v", err)
	}
	new, err := profdiff.Read(newPath, procs, runner.ReadNettrace)
	if err != nil {
		return usageErrf("NEW: %v", err)
	}
	if old.Allocs != nil || new.Allocs != nil {
		return runAllocDiff(cmd, f, format, old, new)
	}
	d, err := profdiff.Compare(old.Side, new.Side)
	if err != nil {
		return usageErr(err)
	}
	if f.by == "path" {
		if d.ByPath() == nil {
			return usageErrf("--by path: a side was read without its call trees")
		}
		d = d.ByPath()
	}
	render := func(w io.Writer) error {
		if format == "svg" {
			return profileview.DiffFlameGraph(w, old.Paths, new.Paths, d.Unit, profileview.DiffFlameOptions{
				Title: fmt.Sprintf("Differential flame graph · %s → %s", old.About, new.About)})
		}
		return diffFormats[format](w, profileview.DiffView{Diff: d, Old: old.About, New: new.About, Top: f.top})
	}
	return emit(cmd, f.output, render)
}
