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
	"vbench/internal/history"
	"vbench/internal/ownfile"
	"vbench/internal/results"
	"vbench/reports"
	"vbench/reports/profileview"
	"vbench/reports/shared"
	"vbench/runner"
	"vbench/stats"
)

type reportFlags struct {
	output   string
	format   string
	baseline string
	junit    string
	across   bool
	goals    []string
	history  historyFlags // --history FILE: the history's trend page
	// The profile flags, for `vbench report PROFILE`, the old spelling of
	// `vbench show PROFILE`: hidden, kept for one release.
	show showFlags
}

func newReportCmd() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report RESULTS.json [MORE.json...]",
		Short: "Render results: the overhead matrix, charts, trends, benchstat, JUnit",
		Long: `Report renders what runs produced (vbench run --json), in the forms other
tools read: the overhead matrix (a row per workload, a column per mode: each
mode's median as a multiple of the unprofiled none mode's, with its 95%
interval), absolute medians, verdicts and the machine fingerprint:
` + reportFormatList() + `
Several results files are a history, ordered by the start each records (a
warning when the arguments disagree): the newest is reported and
the others feed the trend charts and history table (a history file of
vbench history append draws its change points: vbench history report). With
--across they are runs of one suite on different hours or days, reported as
one table: each cell the median of the runs' overhead multiples with the
lowest and highest, and of their costs per event likewise; --goal
MODE<=MULTIPLE or MODE<OTHER-MODE (repeatable: a mode's multiple at most a
number, or below another mode's on the same workload in the same run) adds a
line per goal naming the runs that missed it, where and by what multiple
(text or markdown). --baseline judges the newest file against a baseline (a
results file of the same suite), as vbench compare does, instead of using the
verdicts stored in it.

A profile is shown by vbench show (top functions, call tree, flame graph,
source view); vbench report PROFILE still shows one, for one release, and
says so.

With -o the format follows the file's extension (.txt, .md, .html, .xml for
JUnit); --format overrides it. Outputs are written atomically.`,
		Example: `  vbench report out/results.json
  vbench report out/results.json --baseline benchmarks/baselines/default.json -o report.html
  vbench report day1.json day2.json day3.json -o trend.html
  vbench report --across peers-03h.json peers-11h.json peers-19h.json --goal 'sampling-1ms<=1.03' --format markdown
  vbench report out/results.json --format markdown >> "$GITHUB_STEP_SUMMARY"
  vbench report old.json --format gobench > old.txt && vbench report new.json --format gobench > new.txt && benchstat old.txt new.txt
  vbench report out/results.json --junit junit.xml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if f.history.path != "" {
				return nil // --history FILE is the input
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.history.path != "" {
				return reportHistory(cmd, args, &f)
			}
			return runReport(cmd, args, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "", "write to `FILE` instead of stdout; the extension picks the format ("+reportExts()+")")
	fl.StringVar(&f.format, "format", "", "output `format`: "+reports.FormatNames(reports.FormatsFor(reports.ForReport)))
	fl.StringVar(&f.baseline, "baseline", "", "judge the newest file against this baseline `FILE` (a results file of the same suite)")
	fl.StringVar(&f.junit, "junit", "", "also write JUnit XML of the newest results file to `FILE`")
	fl.BoolVar(&f.across, "across", false, "the files are runs of one suite on different hours or days; one table of each cell's median multiple and cost over them, with the range")
	fl.StringArrayVar(&f.goals, "goal", nil, "with --across: `MODE<=MULTIPLE` (the largest overhead multiple MODE may show on any workload) or MODE<OTHER-MODE (below OTHER-MODE's multiple on each workload of a run); says which runs missed it (repeatable)")
	fl.StringVar(&f.history.path, "history", "", "draw a history `FILE` (vbench history append) as a page: every cell's series and change points (-o history.html)")
	fl.Float64Var(&f.history.alpha, "alpha", stats.ChangeAlpha, "with --history: significance level of each change point's permutation test")
	f.history.failAlpha = history.GateAlpha
	f.show.register(fl)
	for _, name := range showFlagNames {
		fl.MarkHidden(name)
	}
	registerCompletion(cmd, "format", completeFormats(reports.ForReport))
	return cmd
}

func runReport(cmd *cobra.Command, args []string, f *reportFlags) error {
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
	var inputs []*profileview.Input
	for _, a := range args {
		in, err := profileview.ReadInput(a, runner.ReadNettrace)
		if err != nil {
			return usageErr(err)
		}
		inputs = append(inputs, in)
	}
	if inputs[0].Kind == profileview.KindProfile {
		// The old spelling of vbench show: it still works, and says so.
		if len(inputs) > 1 {
			return usageErrf("report: give one profile at a time (got %d inputs)", len(inputs))
		}
		if f.baseline != "" || f.junit != "" {
			return usageErrf("report: --baseline and --junit apply to results files, and %s is a profile", args[0])
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "vbench: `vbench report PROFILE` is deprecated and goes in a later release: use `vbench show %s`\n", args[0])
		f.show.output, f.show.format = f.output, f.format
		return runShow(cmd, inputs[0], &f.show)
	}
	var files []*results.File
	for i, in := range inputs {
		if in.Kind != profileview.KindResults {
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

// reportHistory is report --history FILE: the history's trend page, which
// `vbench history report` drew before.
func reportHistory(cmd *cobra.Command, args []string, f *reportFlags) error {
	if len(args) > 0 || f.across || f.baseline != "" || f.junit != "" {
		return usageErrf("report: --history FILE draws the history alone: no results files, --across, --baseline or --junit")
	}
	if f.format != "" && f.format != "html" {
		return usageErrf("report: --history writes an HTML page, not %q", f.format)
	}
	path, a, err := f.history.load(nil)
	if err != nil {
		return err
	}
	return writeHistoryPage(cmd, path, a, f.output)
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
	format, err := pickFormat(f.format, f.output, reports.Formats, reports.FormatsFor(reports.ForReport))
	if err != nil {
		return err
	}
	// The command judges; the renderer draws the judged file.
	opts := reports.Options{Names: args, DiffFlame: profileview.PairFlame}
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
		files = slices.Clone(files)
		files[len(files)-1] = verdict.Judged(b, cur, f.baseline)
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
	if err := ownfile.Check("-o", f.output, outKind(format.Name)); err != nil {
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

// reportExts are the extensions -o picks a results format by, the usual
// one of each: ".txt .md .html .xml".
func reportExts() string {
	var exts []string
	for _, f := range reports.Formats {
		if len(f.Exts) > 0 {
			exts = append(exts, f.Exts[0])
		}
	}
	return strings.Join(exts, " ")
}

// pickFormat resolves --format (any case, or an alias of any format of
// all), else -o's extension, else the first (default) of allowed.
func pickFormat[F interface {
	comparable
	Info() *shared.Format
}](format, output string, all, allowed []F) (F, error) {
	var none F
	name := strings.ToLower(format)
	if name == "" && output != "" {
		ft := shared.OfFile(allowed, output)
		if ft == none {
			return none, usageErrf("report: cannot tell the format from %q; use --format (%s)", output, shared.Names(allowed))
		}
		name = ft.Info().Name
	}
	if name == "" {
		return allowed[0], nil
	}
	if a := shared.Named(all, name, true); a != none {
		name = a.Info().Name
	}
	if a := shared.Named(allowed, name, false); a != none {
		return a, nil
	}
	return none, usageErrf("report: format %q does not apply to this input; use one of: %s", name, shared.Names(allowed))
}

// outKind is what -o in format name may replace: a file vbench wrote in
// that format, results or profile view alike (a text report over a
// profile's text is one text file of vbench's over another).
func outKind(name string) ownfile.Kind {
	var is []func([]byte) bool
	if f := reports.FormatNamed(name); f != nil && f.Is != nil {
		is = append(is, f.Is)
	}
	if f := profileview.FormatNamed(name); f != nil && f.Is != nil {
		is = append(is, f.Is)
	}
	return ownfile.Kind{Name: "a " + name + " file vbench wrote", Is: func(b []byte) bool {
		return slices.ContainsFunc(is, func(i func([]byte) bool) bool { return i(b) })
	}}
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
