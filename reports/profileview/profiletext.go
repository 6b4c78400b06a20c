package profileview

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"vbench/internal/safetext"

	"vbench/internal/modes"
	"vbench/internal/numfmt"
	"vbench/internal/profile"
	"vbench/reports/shared"
)

// ErrNoCallData is returned for null-mode profiles: the null engine runs the
// hooks and records nothing, so there is no tree to print or draw.
var ErrNoCallData = errors.New("null-mode profile: the null engine records no calls, so there is no call tree")

// Depth limits of the printed call tree. Each level indents by three
// characters, so a recursion 100,000 deep printed whole would be 15 GB of
// indentation: deeper paths are summarised in one "… more levels" line.
const (
	DefaultTreeDepth = 100
	MaxTreeDepth     = 1000
)

// DefaultTop is how many rows the top-functions table of a profile report has.
const DefaultTop = 15

// ProfileOptions shape the textual profile report.
type ProfileOptions struct {
	Top        int     // rows of the top-functions table; 0: DefaultTop
	MaxDepth   int     // deepest tree level printed (1 = roots only); 0: DefaultTreeDepth; at most MaxTreeDepth
	MinPercent float64 // hide tree nodes under this percentage of their thread
	Thread     int     // print only this thread (OS id); 0 means all
	PID        int     // a profile directory of several processes: print only this one; 0 means all
}

// weigh reads a node's or function's weight in a profile's unit: time for
// tracing profiles, samples for sampling ones, and what another tool's
// pprof counts when it was read by a sample type of its own (typ, in
// per: an instruction profile's instructions, counts).
type weigh struct {
	sampling bool
	typ, per string
}

func weighOf(p *profile.Profile) weigh { return weigh{p.Mode.Samples(), p.SampleType, p.SampleUnit} }

// weighOfTree is weighOf a process tree's profiles (one reader made them all).
func weighOfTree(t *profile.Tree) weigh {
	if len(t.Processes) > 0 {
		return weighOf(t.Processes[0])
	}
	return weigh{sampling: t.Mode().Samples()}
}

func (w weigh) incl(n *profile.Node) int64 {
	if w.sampling {
		return n.InclusiveSamples
	}
	return n.InclusiveNs
}

func (w weigh) excl(n *profile.Node) int64 {
	if w.sampling {
		return n.ExclusiveSamples
	}
	return n.ExclusiveNs
}

func (w weigh) fmt(v int64) string {
	switch {
	case w.typ != "" && w.per == "nanoseconds", !w.sampling:
		return numfmt.Duration(float64(v))
	case w.typ != "" && w.per == "bytes":
		return numfmt.Bytes(float64(v))
	}
	return fmt.Sprint(v)
}

func (w weigh) unit() string {
	if w.typ != "" {
		return w.typ
	}
	if w.sampling {
		return "samples"
	}
	return "wall-clock time" // a thread's waits and the time others took its core count too
}

// noun is what a thread's total counts: "samples", "traced", or the
// pprof's sample type.
func (w weigh) noun() string {
	if w.typ != "" {
		return w.typ
	}
	if w.sampling {
		return "samples"
	}
	return "traced"
}

// threadTotal is a thread's weight: the sum of its roots' inclusive weights.
func (w weigh) threadTotal(t *profile.Thread) int64 {
	var sum int64
	for i := range t.Roots {
		sum += w.incl(&t.Roots[i])
	}
	return sum
}

// pct is part's percentage of whole, 0 of nothing: what --min-percent is compared with.
func pct(part, whole int64) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

// share prints part's share of whole: "73.6%".
func share(part, whole int64) string { return numfmt.Share(float64(part), float64(whole)) }

// profileKind is what a profile measures: its engine, or the sample type
// another tool's pprof was read by ("instructions").
func profileKind(p *profile.Profile) string {
	if p.Kind != "" {
		return p.Kind
	}
	if p.SampleType != "" {
		return p.SampleType
	}
	return string(p.Mode)
}

// ProfileHeader describes a profile in two lines: what was profiled and how.
func ProfileHeader(w io.Writer, name string, p *profile.Profile) {
	fmt.Fprintf(w, "%s: %s profile", name, profileKind(p))
	if p.PID > 0 { // another tool's pprof may not say (callgrind's: pid 0)
		fmt.Fprintf(w, " of pid %d", p.PID)
	}
	if len(p.Command) > 0 {
		fmt.Fprintf(w, " (%s)", safetext.Line(strings.Join(p.Command, " ")))
	}
	fmt.Fprintln(w)
	parts := []string{".NET " + p.RuntimeVersion}
	if !p.Start.IsZero() {
		parts = append(parts, "started "+p.Start.UTC().Format("2006-01-02 15:04:05 MST"))
	}
	if p.DurationNs > 0 {
		parts = append(parts, numfmt.Duration(float64(p.DurationNs)))
	}
	if p.Mode.Samples() && p.IntervalNs > 0 {
		what := "samples" // sampling: one per thread per interval of its CPU time (or per wait)
		if p.Mode == modes.EngineSuspendSampling {
			what = "ticks" // each one snapshot of every thread: the threads' samples below
		}
		parts = append(parts, fmt.Sprintf("%d %s every %s", p.Samples, what, numfmt.Duration(float64(p.IntervalNs))))
		if p.WaitSamples > 0 {
			parts[len(parts)-1] += fmt.Sprintf(" (%d of them threads waiting)", p.WaitSamples)
		}
	}
	parts = append(parts, numfmt.Count(len(p.Threads), "thread", "threads"), numfmt.Count(len(p.Functions), "function", "functions"))
	if len(p.Include) > 0 {
		parts = append(parts, "include "+strings.Join(p.Include, ","))
	}
	if len(p.Exclude) > 0 {
		parts = append(parts, "exclude "+strings.Join(p.Exclude, ","))
	}
	fmt.Fprintln(w, strings.Join(parts, " · "))
	if p.FoldedBy != nil {
		fmt.Fprintln(w, FoldedNote)
	}
	if p.Focus != nil {
		fmt.Fprintf(w, "focus %s: only the calls of matching functions and what they called; percentages are of those calls\n", p.Focus)
	}
	if !p.Complete {
		fmt.Fprintln(w, "warning: "+IncompleteNote(p))
	}
}

// FoldedNote says what a dotnet test profile's default view left out.
const FoldedNote = "a test run: framework and test-runner frames (System, Microsoft, xunit, NUnit, MSTest, testhost, vstest, …) folded into the test code that called them (--all-frames shows them)"

// ProfileText writes the top functions and each thread's call tree as
// indented text:
//
//	└─ Fibonacci.Program.Main(string[])  calls=1  incl=4.742ms (100.0%)  excl=1.250ms
//	   └─ Fibonacci.Program.Run(int)  calls=25  incl=3.492ms (73.6%)  excl=75.00µs
func ProfileText(w io.Writer, name string, p *profile.Profile, opts ProfileOptions) error {
	sw := safetext.NewWriter(w)
	defer sw.Flush()
	w = sw
	if p.Allocations != nil {
		return allocText(w, name, p, opts)
	}
	ew := shared.NewWriter(w)
	ProfileHeader(ew, name, p)
	if p.Mode == modes.EngineNull {
		io.WriteString(ew, nullNote)
		return ew.Err()
	}
	wt := weighOf(p)
	threads := p.Threads
	if opts.Thread != 0 {
		threads = nil
		for _, t := range p.Threads {
			if t.OSID == opts.Thread {
				threads = append(threads, t)
			}
		}
		if len(threads) == 0 && p.Focus != nil {
			return fmt.Errorf("%s: no thread with OS id %d calls a function matching --focus %s", name, opts.Thread, p.Focus)
		}
		if len(threads) == 0 {
			return fmt.Errorf("%s: no thread with OS id %d", name, opts.Thread)
		}
	}
	top := opts.Top
	if top <= 0 {
		top = DefaultTop
	}
	srcs := []topSource{{p: p, threads: threads}}
	writeTop(ew, wt, srcs, top)
	if allFlat(srcs) {
		return ew.Err() // a tree of one-frame stacks is the top table again
	}
	for i := range threads {
		writeTree(ew, p, wt, &threads[i], opts)
	}
	return ew.Err()
}

// ProfileTop writes the top n (at least 1) functions of all of p's threads:
// the table ProfileText starts with (`vbench show PROFILE`), which
// `vbench profile` prints after the program exits (for several processes,
// TreeTop).
func ProfileTop(w io.Writer, p *profile.Profile, n int) error {
	sw := safetext.NewWriter(w)
	defer sw.Flush()
	w = sw
	ew := shared.NewWriter(w)
	if p.Allocations != nil {
		writeAllocs(ew, p, max(n, 1))
		writeGC(ew, p.GC)
		return ew.Err()
	}
	if p.Mode == modes.EngineNull {
		io.WriteString(ew, nullNote)
		return ew.Err()
	}
	writeTop(ew, weighOf(p), []topSource{{p: p, threads: p.Threads}}, max(n, 1))
	return ew.Err()
}

// nullNote stands in for a null profile's tables: it has nothing to show.
const nullNote = "\nThis is a null-mode profile: the null engine runs the enter/leave hooks and records nothing,\n" +
	"so there are no functions or calls to show. Profile in tracing, instrumentation or sampling mode for a call tree.\n"

// topSource is one process's threads that a top table covers.
type topSource struct {
	p       *profile.Profile
	threads []profile.Thread
}

// funcRow is one function of one process summed over the chosen threads.
type funcRow struct {
	pid        int
	name       string
	calls      int64
	excl, incl int64
	hidden     bool // outside the focus
}

// writeTop prints the functions with the most exclusive weight, like
// `pprof -top`. Inclusive figures count a recursion once (its outermost
// frame); shares are of the threads' total. With several processes, each
// process's functions are rows of their own, ranked together, with a pid
// column: the same function in two processes is two rows.
func writeTop(w io.Writer, wt weigh, srcs []topSource, n int) {
	var total int64
	var rows []funcRow
	var focus *profile.Focus
	threads := 0
	for _, src := range srcs {
		p := src.p
		focus = p.Focus
		threads += len(src.threads)
		for i := range src.threads {
			total += wt.threadTotal(&src.threads[i])
		}
		base := len(rows)
		for i, f := range p.Functions {
			// A focused view's rows are its matching functions only; their
			// callees (in the walk below) are in the call tree.
			rows = append(rows, funcRow{pid: p.PID, name: safetext.Line(f.Name), hidden: p.Focus != nil && !p.Focus.Matches(&p.Functions[i])})
		}
		open := make([]int, len(p.Functions)) // frames of each function on the current path
		for ti := range src.threads {
			profile.Walk(src.threads[ti].Roots, func(n *profile.Node, _ int) bool {
				r := &rows[base+n.Fn]
				r.calls += n.Calls
				r.excl += wt.excl(n)
				if open[n.Fn] == 0 {
					r.incl += wt.incl(n)
				}
				open[n.Fn]++
				return true
			}, func(n *profile.Node, _ int) { open[n.Fn]-- })
		}
	}
	rows = slices.DeleteFunc(rows, func(r funcRow) bool { return r.hidden })
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].excl != rows[j].excl {
			return rows[i].excl > rows[j].excl
		}
		return rows[i].incl > rows[j].incl
	})
	for len(rows) > 0 && rows[len(rows)-1].incl == 0 && rows[len(rows)-1].calls == 0 {
		rows = rows[:len(rows)-1]
	}
	on := threadCount(threads)
	if len(srcs) > 1 {
		on += fmt.Sprintf(" of %d processes", len(srcs))
	}
	matching := ""
	if focus != nil {
		matching = " matching --focus " + focus.String()
	}
	if len(rows) == 0 {
		fmt.Fprintf(w, "\nNo functions%s with recorded %s on %s.\n", matching, wt.unit(), on)
		return
	}
	shown := min(n, len(rows))
	// What the profile does not hold is not printed as a figure: a flat
	// profile (one frame a stack: callgrind's self counts) has no inclusive
	// weight, and a profile read by its calls alone has no time.
	flat, callsOnly := allFlat(srcs), !wt.sampling && total == 0
	if callsOnly {
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].calls > rows[j].calls })
		fmt.Fprintf(w, "\nTop %d of %d functions%s by calls (the profile holds no times; on %s)\n", shown, len(rows), matching, on)
	} else {
		fmt.Fprintf(w, "\nTop %d of %d functions%s by exclusive %s (total %s on %s)\n", shown, len(rows), matching, wt.unit(), wt.fmt(total), on)
	}
	if flat {
		fmt.Fprintln(w, "Self only: the profile has no call paths (each stack one frame), so nothing inclusive is known.")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := ""
	if !callsOnly {
		head = "excl\texcl%\t"
		if !flat {
			head += "incl\tincl%\t"
		}
	}
	if !wt.sampling {
		head += "calls\t"
	}
	if len(srcs) > 1 {
		head += "pid\t"
	}
	fmt.Fprintln(tw, head+"  function")
	for _, r := range rows[:shown] {
		line := ""
		if !callsOnly {
			line = wt.fmt(r.excl) + "\t" + share(r.excl, total) + "\t"
			if !flat {
				line += wt.fmt(r.incl) + "\t" + share(r.incl, total) + "\t"
			}
		}
		if !wt.sampling {
			line += fmt.Sprintf("%d\t", r.calls)
		}
		if len(srcs) > 1 {
			line += fmt.Sprintf("%d\t", r.pid)
		}
		// The name is the last column and left-aligned: no tab after it.
		fmt.Fprintln(tw, line+"  "+r.name)
	}
	tw.Flush()
}

// allFlat reports whether srcs have stacks and every one is one frame deep.
// A focused view is not: its roots are the matching calls, which may call
// nothing while the profile has paths.
func allFlat(srcs []topSource) bool {
	roots := 0
	for _, src := range srcs {
		if src.p.Focus != nil {
			return false
		}
		for _, t := range src.threads {
			for _, r := range t.Roots {
				if len(r.Children) > 0 {
					return false
				}
				roots++
			}
		}
	}
	return roots > 0
}

func threadCount(n int) string { return numfmt.Count(n, "thread", "threads") }

// writeTree prints one thread's call tree with box-drawing branches, down to
// the depth limit (its recursion is bounded by it).
func writeTree(w io.Writer, p *profile.Profile, wt weigh, t *profile.Thread, opts ProfileOptions) {
	maxDepth := opts.MaxDepth
	if maxDepth <= 0 {
		maxDepth = DefaultTreeDepth
	}
	maxDepth = min(maxDepth, MaxTreeDepth)
	total := wt.threadTotal(t)
	fmt.Fprintf(w, "\nThread %d", t.OSID)
	if t.ManagedID != 0 {
		fmt.Fprintf(w, " (managed %d)", t.ManagedID)
	}
	fmt.Fprintf(w, " · cpu %s · %s %s\n", numfmt.OrMissing(float64(t.CPUNs), numfmt.Duration), wt.fmt(total), wt.noun())
	if len(t.Roots) == 0 {
		fmt.Fprintln(w, "(no profiled frames)")
		return
	}
	var rec func(nodes []profile.Node, prefix string, depth int)
	rec = func(nodes []profile.Node, prefix string, depth int) {
		// Children below the cut-off are summed into one line, so every
		// figure printed still adds up.
		var shown []*profile.Node
		var hidden int
		var hiddenW int64
		for i := range nodes {
			n := &nodes[i]
			if opts.MinPercent > 0 && pct(wt.incl(n), total) < opts.MinPercent {
				hidden++
				hiddenW += wt.incl(n)
				continue
			}
			shown = append(shown, n)
		}
		for i, n := range shown {
			last := i == len(shown)-1 && hidden == 0
			branch, indent := "├─ ", "│  "
			if last {
				branch, indent = "└─ ", "   "
			}
			fmt.Fprintf(w, "%s%s%s\n", prefix, branch, nodeLine(p, wt, n, total))
			if len(n.Children) == 0 {
				continue
			}
			if depth+1 >= maxDepth {
				fmt.Fprintf(w, "%s%s└─ … %d more levels below the depth limit of %d: %d callee paths (%s)\n", prefix, indent,
					profile.Depth(n.Children), maxDepth, profile.Count(n.Children), wt.fmt(wt.incl(n)-wt.excl(n)))
				continue
			}
			rec(n.Children, prefix+indent, depth+1)
		}
		if hidden > 0 {
			// The threshold as the user gave it (--min-percent 0.25: "0.25%").
			fmt.Fprintf(w, "%s└─ … %d more under %g%% (%s together)\n", prefix, hidden, opts.MinPercent, wt.fmt(hiddenW))
		}
	}
	rec(t.Roots, "", 0)
}

// nodeLine is one tree line: "Ns.Type.Method  calls=25  incl=3.493ms (73.6%)  excl=75.00µs".
func nodeLine(p *profile.Profile, wt weigh, n *profile.Node, total int64) string {
	name := safetext.Line(p.Functions[n.Fn].Name)
	if wt.sampling {
		return fmt.Sprintf("%s  %s=%s (%s)  self=%s", name, wt.noun(), wt.fmt(wt.incl(n)), share(wt.incl(n), total), wt.fmt(wt.excl(n)))
	}
	return fmt.Sprintf("%s  calls=%d  incl=%s (%s)  excl=%s", name, n.Calls, wt.fmt(wt.incl(n)), share(wt.incl(n), total), wt.fmt(wt.excl(n)))
}
