package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"vbench/internal/verdict"

	"github.com/spf13/cobra"

	"vbench/baseline"
	"vbench/internal/atomicfile"
	"vbench/internal/modes"
	"vbench/internal/ownfile"
	"vbench/internal/results"
	"vbench/reports"
	"vbench/runner"
)

type reportFlags struct {
	output     string
	format     string
	baseline   string
	junit      string
	top        int
	depth      int
	minPercent float64
	thread     int
	pid        int
	perThread  bool
	focus      []string
	allFrames  bool
	across     bool
	goals      []string
}

func newReportCmd() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report RESULTS.json [MORE.json...] | PROFILE",
		Short: "Render results (overhead matrix, charts, benchstat, JUnit) or a profile (call tree, flame graph)",
		Long: `Report renders what a run or a profile produced, in the forms other tools read.

Results files (vbench run --json) render as the overhead matrix (a row per
workload, a column per mode: each mode's median as a multiple of the
unprofiled none mode's, with its 95% interval), absolute medians, verdicts
and the machine fingerprint:
` + reportFormatList() + `
Several results files are a history, ordered by the start each records (a
warning when the arguments disagree): the newest is reported and
the others feed the trend charts and history table. With --across they are
runs of one suite on different hours or days, reported as one table: each
cell the median of the runs' overhead multiples with the lowest and highest,
and of their costs per event likewise; --goal MODE<=MULTIPLE or
MODE<OTHER-MODE (repeatable: a mode's multiple at most a number, or below
another mode's on the same workload in the same run) adds a line per goal
naming the runs that missed it, where and by what multiple (text or
markdown). --baseline recomputes the
verdicts of the newest file against a baseline (a results file of the same
suite) instead of using the verdicts stored in it.

A profile (profile.json, or the directory holding it; or another tool's:
EventPipe's nettrace, pprof, speedscope JSON, perf script text, converted
to vbench's profile model) renders as the top
functions and each thread's call tree (text), or as a flame graph (svg), or,
when it has lines (vbench profile --lines), as a source view (html): the
hot files with each line's samples or executions beside its text,
heat-coloured, and a bird's-eye strip of each file's heat; a file not found
where the PDB recorded it (moved, or a path-mapped /_/… build) is noted and
its counted lines still listed.
Both stop at --depth levels of calls (deep recursion!) and summarise what lies
below in one "… N more levels" line or frame. A profile directory of several
processes (vbench profile of a process tree, such as dotnet test) renders as
a line per process, the top functions of all of them (with a pid column),
then each process's own report; its flame graph merges them. --pid N keeps
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

With -o the format follows the file's extension (.txt, .md, .html, .svg,
.speedscope.json, .xml for JUnit); --format overrides it. Outputs are written atomically.`,
		Example: `  vbench report out/results.json
  vbench report out/results.json --baseline benchmarks/baselines/default.json -o report.html
  vbench report day1.json day2.json day3.json -o trend.html
  vbench report --across peers-03h.json peers-11h.json peers-19h.json --goal 'sampling-1ms<=1.03' --format markdown
  vbench report out/results.json --format markdown >> "$GITHUB_STEP_SUMMARY"
  vbench report old.json --format gobench > old.txt && vbench report new.json --format gobench > new.txt && benchstat old.txt new.txt
  vbench report out/results.json --junit junit.xml
  vbench report out/profile --top 20 --min-percent 1
  vbench report out/profile/profile.json -o flame.svg
  vbench report out/profile --depth 20 --min-percent 0
  vbench report out/profile --pid 4242 -o flame.svg
  vbench report out/profile --focus 'MyLib.*' -o mylib.svg
  vbench report out/profile -o source.html        # a profile taken with --lines`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(cmd, args, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "", "write to `FILE` instead of stdout; the extension picks the format ("+reportExts()+")")
	fl.StringVar(&f.format, "format", "", "output `format`: "+reports.FormatNames(reports.FormatsFor(reports.ForReport))+
		" (results); "+reports.FormatNames(reports.FormatsFor(reports.ForProfile))+" (profiles)")
	fl.StringVar(&f.baseline, "baseline", "", "recompute verdicts against this baseline `FILE` (a results file of the same suite)")
	fl.StringVar(&f.junit, "junit", "", "also write JUnit XML of the newest results file to `FILE`")
	fl.IntVar(&f.top, "top", reports.DefaultTop, "profiles: rows of the top-functions table (at least 1)")
	fl.IntVar(&f.depth, "depth", 0, fmt.Sprintf("profiles: levels of calls shown, deeper paths summarised in one line or frame (0: %d for text, %d for svg; at most %d)",
		reports.DefaultTreeDepth, reports.DefaultFlameDepth, reports.MaxTreeDepth))
	fl.Float64Var(&f.minPercent, "min-percent", 0.5, "profiles: hide call-tree nodes under this `percent` of their thread (0: show all)")
	fl.IntVar(&f.thread, "thread", 0, "profiles: only the thread with this OS `id`")
	fl.IntVar(&f.pid, "pid", 0, "profiles: only the process with this `pid` (a profile directory of several processes)")
	fl.BoolVar(&f.perThread, "per-thread", false, "profiles: flame graph with one tower per thread instead of merging call paths")
	fl.StringSliceVar(&f.focus, "focus", nil, "profiles: show only functions matching these `patterns` (namespace, type, method or assembly, glob '*'), in the tree and flame graph with what they called")
	fl.BoolVar(&f.across, "across", false, "results: the files are runs of one suite on different hours or days; one table of each cell's median multiple and cost over them, with the range")
	fl.StringArrayVar(&f.goals, "goal", nil, "with --across: `MODE<=MULTIPLE` (the largest overhead multiple MODE may show on any workload) or MODE<OTHER-MODE (below OTHER-MODE's multiple on each workload of a run); says which runs missed it (repeatable)")
	fl.BoolVar(&f.allFrames, "all-frames", false, "profiles of dotnet test: also show framework and test-runner frames (folded by default)")
	registerCompletion(cmd, "format", completeFormats(reports.ForReport, reports.ForProfile))
	return cmd
}

func runReport(cmd *cobra.Command, args []string, f *reportFlags) error {
	if err := checkTop(f.top); err != nil {
		return err
	}
	if err := baseline.Guard("-o", f.output); err != nil {
		return usageErr(err)
	}
	if err := baseline.Guard("--junit", f.junit); err != nil {
		return usageErr(err)
	}
	if err := ownfile.Check("--junit", f.junit, reports.JUnitKind); err != nil {
		return usageErr(err)
	}
	// Checked (and a missing directory created) before anything is read or
	// rendered, as for every other output.
	for _, out := range []string{f.output, f.junit} {
		if out == "" {
			continue
		}
		if err := results.CheckWritable(out); err != nil {
			return usageErr(err)
		}
	}
	var inputs []*reports.Input
	for _, a := range args {
		in, err := reports.ReadInput(a, runner.ReadNettrace)
		if err != nil {
			return usageErr(err)
		}
		inputs = append(inputs, in)
	}
	if inputs[0].Kind == reports.KindProfile {
		if len(inputs) > 1 {
			return usageErrf("report: give one profile at a time (got %d inputs)", len(inputs))
		}
		if f.baseline != "" || f.junit != "" {
			return usageErrf("report: --baseline and --junit apply to results files, and %s is a profile", args[0])
		}
		return reportProfile(cmd, inputs[0], f)
	}
	var files []*results.File
	for i, in := range inputs {
		if in.Kind != reports.KindResults {
			return usageErrf("report: %s is a profile; it cannot be mixed with results files", args[i])
		}
		if err := in.Results.CheckMeasured(args[i], results.JudgedCell); err != nil {
			return usageErr(err)
		}
		files = append(files, in.Results)
	}
	if f.across || len(f.goals) > 0 {
		// Runs of different hours, in any order: ordered by start, no warning.
		return reportAcross(cmd, orderByStart(args, files), files, f)
	}
	args = byStart(cmd, args, files)
	return reportResults(cmd, args, files, f)
}

// reportAcross is report --across: several runs of one suite as one table
// of medians with their ranges, and the goals each run missed.
func reportAcross(cmd *cobra.Command, args []string, files []*results.File, f *reportFlags) error {
	if !f.across {
		return usageErrf("report: --goal applies with --across (several runs of one suite)")
	}
	if f.baseline != "" || f.junit != "" {
		return usageErrf("report: --across reports runs side by side; --baseline and --junit apply to one run")
	}
	var goals []reports.Goal
	for _, s := range f.goals {
		g, err := reports.ParseGoal(s)
		if err != nil {
			return usageErr(err)
		}
		goals = append(goals, g)
	}
	format := f.format
	if format == "" && strings.HasSuffix(f.output, ".md") {
		format = "markdown"
	}
	if format != "" && format != "text" && format != "markdown" {
		return usageErrf("report: --across writes text or markdown, not %q", format)
	}
	a, err := reports.NewAcross(files, args)
	if err != nil {
		return usageErr(err)
	}
	if format == "" {
		format = "text"
	}
	if err := ownfile.Check("-o", f.output, reports.AcrossKind(format)); err != nil {
		return usageErr(err)
	}
	return emit(cmd, f.output, func(w io.Writer) error { return a.Write(w, goals, format) })
}

// byStart orders results files (and their names, returned) by the start
// each records, oldest first, as a history is read: the newest run is the
// one that started last, whatever the arguments' order, which earlier
// decided it (vbench report new.json old.json reported old.json as the
// newest). A warning says so when the arguments were in another order.
// Files that record no start keep their place after those that do.
func byStart(cmd *cobra.Command, args []string, files []*results.File) []string {
	names := orderByStart(args, files)
	if slices.Equal(names, args) {
		return args
	}
	var when []string
	for i, f := range files {
		when = append(when, fmt.Sprintf("%s (started %s)", names[i], f.Started.UTC().Format(time.RFC3339)))
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "vbench: warning: the results files were not given oldest first; ordered by the start each records: %s; the newest reported is %s\n",
		strings.Join(when, ", "), names[len(names)-1])
	return names
}

// orderByStart reorders files (in place) by the start each records, oldest
// first, files that record none after those that do, and returns their
// names (args) in the new order.
func orderByStart(args []string, files []*results.File) []string {
	idx := make([]int, len(files))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := files[idx[a]].Started, files[idx[b]].Started
		if x.IsZero() || y.IsZero() {
			return !x.IsZero() && y.IsZero()
		}
		return x.Before(y)
	})
	if sort.IntsAreSorted(idx) {
		return args
	}
	sorted, names := make([]*results.File, len(files)), make([]string, len(files))
	for i, j := range idx {
		sorted[i], names[i] = files[j], args[j]
	}
	copy(files, sorted)
	return names
}

func reportResults(cmd *cobra.Command, args []string, files []*results.File, f *reportFlags) error {
	format, err := pickFormat(f, reports.ForReport)
	if err != nil {
		return err
	}
	opts := reports.Options{Names: args}
	if f.baseline != "" {
		b, err := results.ReadFile(f.baseline)
		if err != nil {
			return usageErrf("baseline: %w", err)
		}
		if err := b.CheckMeasured(f.baseline, results.AnyCell); err != nil {
			return usageErrf("baseline: %w", err)
		}
		cur := files[len(files)-1]
		if err := verdict.CheckMetrics(f.baseline, b, args[len(args)-1], verdict.MetricsOf(cur)); err != nil {
			return usageErr(err)
		}
		opts.Baseline, opts.BaselineName = b, f.baseline
	}
	m, err := reports.NewMatrix(files, opts)
	if err != nil {
		return usageErr(err)
	}
	if format.OneFile && len(files) > 1 {
		return usageErrf("report: %s writes one results file; give one (benchstat compares files: benchstat old.txt new.txt)", format.Name)
	}
	if format.Name == "html" { // links to what `vbench run --json` kept beside the newest file
		page := "."
		if f.output != "" {
			page = filepath.Dir(f.output)
		}
		pageAbs, err1 := filepath.Abs(page)
		kept, err2 := filepath.Abs(ProfilesDirFor(args[len(args)-1]))
		if err1 == nil && err2 == nil {
			m.Kept = reports.FindKept(m, kept, pageAbs)
		}
	}
	if err := ownfile.Check("-o", f.output, format.Kind()); err != nil {
		return usageErr(err)
	}
	render := func(w io.Writer) error { return format.Report(m, w) }
	if f.junit != "" {
		if err := atomicfile.Write(f.junit, 0o666, m.WriteJUnit); err != nil {
			return err
		}
	}
	return emit(cmd, f.output, render)
}

func reportProfile(cmd *cobra.Command, in *reports.Input, f *reportFlags) error {
	format, err := pickFormat(f, reports.ForProfile)
	if err != nil {
		return err
	}
	if f.depth < 0 || f.depth > reports.MaxTreeDepth {
		return usageErrf("report: --depth %d is outside 0..%d (deeper paths are summarised)", f.depth, reports.MaxTreeDepth)
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
		return usageErrf("%s: %v: there is nothing to draw", in.Path, reports.ErrNoCallData)
	}
	view := reports.ProfileView{
		Tree: tree, Profile: p,
		Text:  reports.ProfileOptions{Top: f.top, MaxDepth: f.depth, MinPercent: f.minPercent, Thread: f.thread, PID: f.pid},
		Flame: reports.FlameOptions{PerThread: f.perThread, MaxDepth: f.depth},
	}
	if err := ownfile.Check("-o", f.output, format.Kind()); err != nil {
		return usageErr(err)
	}
	render := func(w io.Writer) error { return format.Profile(w, view) }
	if err := emit(cmd, f.output, render); err != nil {
		return usageErr(err)
	}
	return nil
}

// pickFormat resolves --format (any case, or an alias), else -o's
// extension, else the first (default) format of those that write this
// input kind (writes: reports.ForReport or reports.ForProfile).
func pickFormat(f *reportFlags, writes func(*reports.Format) bool) (*reports.Format, error) {
	allowed := reports.FormatsFor(writes)
	name := strings.ToLower(f.format)
	if name == "" && f.output != "" {
		ft := reports.FormatOfFile(f.output)
		if ft == nil {
			return nil, usageErrf("report: cannot tell the format from %q; use --format (%s)", f.output, reports.FormatNames(allowed))
		}
		name = ft.Name
	}
	if name == "" {
		return allowed[0], nil
	}
	for _, a := range reports.Formats {
		if a.Called(name) {
			name = a.Name
		}
	}
	for _, a := range allowed {
		if a.Name == name {
			return a, nil
		}
	}
	return nil, usageErrf("report: format %q does not apply to this input; use one of: %s", name, reports.FormatNames(allowed))
}

// reportFormatList is the list of results formats in report's help, each
// with what it is.
func reportFormatList() string {
	var b strings.Builder
	for _, f := range reports.FormatsFor(reports.ForReport) {
		for i, line := range strings.Split(f.About, "\n") {
			name := ""
			if i == 0 {
				name = f.Name
			}
			fmt.Fprintf(&b, "  %-11s%s\n", name, line)
		}
	}
	return b.String()
}

// reportExts are the extensions -o picks a format by, the usual one of each:
// ".txt .md .html .svg .xml".
func reportExts() string {
	var exts []string
	for _, f := range reports.Formats {
		if len(f.Exts) > 0 {
			exts = append(exts, f.Exts[0])
		}
	}
	return strings.Join(exts, " ")
}

// emit writes render's output to stdout, or atomically to path.
func emit(cmd *cobra.Command, path string, render func(io.Writer) error) error {
	if path == "" {
		return render(cmd.OutOrStdout())
	}
	if err := atomicfile.Write(path, 0o666, render); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "vbench: wrote %s\n", path)
	return nil
}
