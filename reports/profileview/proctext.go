package profileview

import (
	"fmt"
	"io"
	"strings"
	"vbench/internal/safetext"

	"vbench/internal/modes"
	"vbench/internal/numfmt"
	"vbench/internal/profile"
	"vbench/reports/shared"
)

// TreeTop writes the top n (at least 1) functions over every process of a
// profile directory: the table TreeText starts with, which `vbench profile`
// prints after the program exits. With several processes it has a pid column.
func TreeTop(w io.Writer, t *profile.Tree, n int) error {
	sw := safetext.NewWriter(w)
	defer sw.Flush()
	w = sw
	if len(t.Processes) == 1 {
		return ProfileTop(w, t.Processes[0], n)
	}
	if t.Mode().Allocates() {
		return ProfileTop(w, t.Merge(), n) // types and paths summed over the processes
	}
	ew := shared.NewWriter(w)
	if t.Mode() == modes.EngineNull {
		io.WriteString(ew, nullNote)
		return ew.Err()
	}
	writeTop(ew, weighOfTree(t), topSources(t), max(n, 1))
	return ew.Err()
}

func topSources(t *profile.Tree) []topSource {
	srcs := make([]topSource, len(t.Processes))
	for i, p := range t.Processes {
		srcs[i] = topSource{p: p, threads: p.Threads}
	}
	return srcs
}

// TreeText writes a profile directory as text. One process's directory (or
// an old single profile) is ProfileText. Several: a line per process, and per
// process that wrote no profile; the top table over all of them (the merged
// view, a pid column telling where each row ran); then each process's own
// report. opts.PID prints only that process; opts.Thread only the process
// and thread with that OS id.
func TreeText(w io.Writer, t *profile.Tree, opts ProfileOptions) error {
	sw := safetext.NewWriter(w)
	defer sw.Flush()
	w = sw
	if opts.PID != 0 {
		p, path, err := t.Find(opts.PID)
		if err != nil {
			return err
		}
		return ProfileText(w, path, p, opts)
	}
	if opts.Thread != 0 && len(t.Processes) > 1 {
		for i, p := range t.Processes {
			for _, th := range p.Threads {
				if th.OSID == opts.Thread {
					return ProfileText(w, t.Paths[i], p, opts)
				}
			}
		}
		return fmt.Errorf("%s: no thread with OS id %d in any of its %d processes", t.Dir, opts.Thread, len(t.Processes))
	}
	if len(t.Processes) == 1 && len(t.Missing) == 0 {
		return ProfileText(w, t.Paths[0], t.Processes[0], opts)
	}
	ew := shared.NewWriter(w)
	fmt.Fprintf(ew, "%s: %s profiles of %d processes", t.Dir, t.Mode(), len(t.Processes))
	if len(t.Missing) > 0 {
		fmt.Fprintf(ew, "; %d more started and wrote none", len(t.Missing))
	}
	fmt.Fprintln(ew)
	if t.Processes[0].FoldedBy != nil {
		fmt.Fprintln(ew, FoldedNote)
	}
	for _, p := range t.Processes {
		threads := threadCount(len(p.Threads))
		if p.FoldedBy != nil && len(p.Threads) == 0 {
			threads = "runner frames only"
		}
		parts := []string{fmt.Sprintf("  pid %d (parent %d)", p.PID, p.ParentPID), ".NET " + p.RuntimeVersion,
			numfmt.Duration(float64(p.DurationNs)), threads, numfmt.Count(len(p.Functions), "function", "functions")}
		if !p.Complete {
			parts = append(parts, "incomplete: "+incompleteWhy(p))
		}
		fmt.Fprintln(ew, strings.Join(append(parts, strings.Join(p.Command, " ")), " · "))
	}
	for _, m := range t.Missing {
		fmt.Fprintf(ew, "  pid %d (parent %d) · started %s and wrote no profile (killed or crashed, or still running) · %s\n",
			m.PID, m.ParentPID, m.Start.UTC().Format("2006-01-02 15:04:05 MST"), m.CommandLine())
	}
	if t.Mode() == modes.EngineNull {
		io.WriteString(ew, nullNote)
		return ew.Err()
	}
	if t.Mode().Allocates() {
		// The processes' allocations summed: types and paths over all of
		// them, then each process's own (--pid N for one).
		m := t.Merge()
		writeAllocs(ew, m, opts.Top)
		writeGC(ew, m.GC)
	}
	top := opts.Top
	if top <= 0 {
		top = DefaultTop
	}
	if !t.Mode().Allocates() {
		writeTop(ew, weighOfTree(t), topSources(t), top)
	}
	for i, p := range t.Processes {
		if p.FoldedBy != nil && len(p.Threads) == 0 {
			fmt.Fprintf(ew, "\n=== process %d: only framework and test-runner frames (--all-frames shows them) ===\n", p.PID)
			continue
		}
		fmt.Fprintf(ew, "\n=== process %d ===\n", p.PID)
		if err := ProfileText(ew, t.Paths[i], p, opts); err != nil {
			return err
		}
	}
	return ew.Err()
}
