package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"vbench/baseline"
	"vbench/internal/modes"
	"vbench/internal/ownfile"
	"vbench/internal/results"
	"vbench/reports/profileview"
	"vbench/runner"
)

// showFlags choose what a profile view shows: vbench show's, and vbench
// report's hidden ones for its old spelling `vbench report PROFILE`.
type showFlags struct {
	output     string
	format     string
	top        int
	depth      int
	minPercent float64
	thread     int
	pid        int
	perThread  bool
	focus      []string
	allFrames  bool
}

// showFlagNames are the flags register adds besides -o and --format.
var showFlagNames = []string{"top", "depth", "min-percent", "thread", "pid", "per-thread", "focus", "all-frames"}

func (f *showFlags) register(fl *pflag.FlagSet) {
	fl.IntVar(&f.top, "top", profileview.DefaultTop, "rows of the top-functions table (at least 1)")
	fl.IntVar(&f.depth, "depth", 0, fmt.Sprintf("levels of calls shown, deeper paths summarised in one line or frame (0: %d for text, %d for svg; at most %d)",
		profileview.DefaultTreeDepth, profileview.DefaultFlameDepth, profileview.MaxTreeDepth))
	fl.Float64Var(&f.minPercent, "min-percent", 0.5, "hide call-tree nodes under this `percent` of their thread (0: show all)")
	fl.IntVar(&f.thread, "thread", 0, "only the thread with this OS `id`")
	fl.IntVar(&f.pid, "pid", 0, "only the process with this `pid` (a profile directory of several processes)")
	fl.BoolVar(&f.perThread, "per-thread", false, "flame graph with one tower per thread instead of merging call paths")
	fl.StringSliceVar(&f.focus, "focus", nil, "show only functions matching these `patterns` (namespace, type, method or assembly, glob '*'), in the tree and flame graph with what they called")
	fl.BoolVar(&f.allFrames, "all-frames", false, "profiles of dotnet test: also show framework and test-runner frames (folded by default)")
}

func newShowCmd() *cobra.Command {
	var f showFlags
	var sampleIndex string
	cmd := &cobra.Command{
		Use:   "show PROFILE",
		Short: "Show a profile: top functions, call tree, flame graph, source view",
		Long: `Show draws a profile (profile.json, or the directory holding it; or another
tool's: EventPipe's nettrace, pprof, speedscope JSON, perf script text,
converted to vbench's profile model) as the top functions and each thread's
call tree (text), or as a flame graph (svg), or in speedscope's format, or,
when it has lines (vbench profile --mode sampling, or --lines), as a source view (html): the hot
files with each line's samples or executions beside its text, heat-coloured,
and a bird's-eye strip of each file's heat; a file not found where the PDB
recorded it (moved, or a path-mapped /_/… build) is noted and its counted
lines still listed.
` + showFormatList() + `
Both stop at --depth levels of calls (deep recursion!) and summarise what lies
below in one "… N more levels" line or frame. A profile directory of several
processes (vbench profile of a process tree, such as dotnet test) shows as
a line per process, the top functions of all of them (with a pid column),
then each process's own view; its flame graph merges them. --pid N keeps
only process N.

A profile of dotnet test (a process tree with a test host) shows the test's
own code: the test host first, and framework and test-runner frames (System,
Microsoft, xunit, NUnit, MSTest, testhost, vstest, Newtonsoft.Json, NuGet,
MSBuild) folded into the test code that called them: their time counts as
their caller's, their callees are their caller's. --all-frames shows every
frame.

--focus PATTERN narrows every view to the functions it
matches: the top table lists only them, the call tree and the flame graph
start at their outermost calls and show what those called (percentages are
of those calls). A pattern is a glob over a function's namespace-qualified
name, type or assembly ('MyLib.*', 'MyApp.Parser.Parse', 'MyLib'); a pattern
without '*' also matches the names under it.

With -o the view follows the file's extension (.txt, .html, .svg,
.speedscope.json); --format overrides it. Outputs are written atomically.
A pprof with several sample types (an instruction profile's instructions
and calls) shows its default one; --sample-index TYPE picks another, as
pprof's -sample_index does. A type that is neither calls nor samples
(instructions) is shown as counts of it.

Results files are rendered by vbench report; two profiles compared by vbench diff.`,
		Example: `  vbench show out/profile --top 20 --min-percent 1
  vbench show out/profile/profile.json -o flame.svg
  vbench show out/profile --depth 20 --min-percent 0
  vbench show out/profile --pid 4242 -o flame.svg
  vbench show out/profile --focus 'MyLib.*' -o mylib.svg
  vbench show out/profile -o source.html        # a profile with lines (sampling's by default)
  vbench show r.profiles/fib/tracing/instructions.pb.gz --sample-index calls`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, err := profileview.ReadInputAs(args[0], runner.ReadNettrace, sampleIndex)
			if err != nil {
				return usageErr(err)
			}
			if in.Kind != profileview.KindProfile {
				return usageErrf("show: %s is a results file: vbench report %s renders it", args[0], args[0])
			}
			return runShow(cmd, in, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "", "write to `FILE` instead of stdout; the extension picks the view (.txt .html .svg .speedscope.json)")
	fl.StringVar(&f.format, "format", "", "`view`: "+profileview.FormatNames())
	fl.StringVar(&sampleIndex, "sample-index", "", "a pprof profile's sample `type` to show (its name, as instructions or calls, or its index, as pprof's -sample_index); default: the file's default type, else calls, samples or time")
	f.register(fl)
	registerCompletion(cmd, "format", completeViews)
	return cmd
}

// runShow draws one profile as f asks: `vbench show`, and `vbench report
// PROFILE`, its old spelling.
func runShow(cmd *cobra.Command, in *profileview.Input, f *showFlags) error {
	if err := checkTop(f.top); err != nil {
		return err
	}
	format, err := pickFormat(f.format, f.output, profileview.Formats, profileview.Formats)
	if err != nil {
		return err
	}
	if f.depth < 0 || f.depth > profileview.MaxTreeDepth {
		return usageErrf("report: --depth %d is outside 0..%d (deeper paths are summarised)", f.depth, profileview.MaxTreeDepth)
	}
	focus, err := focusFlag(cmd, f.focus)
	if err != nil {
		return err
	}
	tree := testView(in.Tree, f.allFrames)
	if tree, err = tree.Focused(focus); err != nil {
		return usageErrf("%s: %v", in.Path, err)
	}
	p := in.Profile
	if tree != in.Tree {
		p = tree.Merge()
	}
	if f.pid != 0 {
		if p, _, err = tree.Find(f.pid); err != nil {
			return usageErr(err)
		}
	}
	if format.NeedsCalls && p.Mode == modes.EngineNull {
		return usageErrf("%s: %v: there is nothing to draw", in.Path, profileview.ErrNoCallData)
	}
	view := profileview.View{
		Tree: tree, Profile: p,
		Text:  profileview.ProfileOptions{Top: f.top, MaxDepth: f.depth, MinPercent: f.minPercent, Thread: f.thread, PID: f.pid},
		Flame: profileview.FlameOptions{PerThread: f.perThread, MaxDepth: f.depth},
	}
	if err := baseline.Guard("-o", f.output); err != nil {
		return usageErr(err)
	}
	if f.output != "" {
		if err := results.CheckWritable(f.output); err != nil {
			return usageErr(err)
		}
	}
	if err := ownfile.Check("-o", f.output, outKind(format.Name)); err != nil {
		return usageErr(err)
	}
	if err := emit(cmd, f.output, func(w io.Writer) error { return format.Draw(w, view) }); err != nil {
		return usageErr(err)
	}
	return nil
}

// showFormatList is the list of views in show's help, each with what it is.
func showFormatList() string {
	var b []byte
	for _, f := range profileview.Formats {
		b = fmt.Appendf(b, "  %-11s%s\n", f.Name, f.About)
	}
	return string(b)
}

// completeViews offers show's views.
func completeViews(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var cands []string
	for _, f := range profileview.Formats {
		cands = append(cands, f.Name+"\t"+f.About)
	}
	return cands, cobra.ShellCompDirectiveNoFileComp
}
