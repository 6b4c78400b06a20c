package reports

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"vbench/internal/modes"
	"vbench/internal/numfmt"
	"vbench/internal/results"
	"vbench/reports/shared"
	"vbench/stats"
)

// Across is the overhead matrix of several runs of one suite, made on
// different hours or days (vbench report --across): each cell the median
// of the runs' overhead multiples with the lowest and highest beside it,
// and the cost per event likewise. One run's table shows its own day; on a
// shared machine a suite's multiples move by 10-20% between invocations,
// so a figure quoted in a README should be the median of several, with
// its range, and say which runs missed a goal (Goal).
type Across struct {
	Suite     string
	Files     []*results.File // oldest first
	Names     []string        // their labels, in the same order
	Workloads []string        // rows, in the order of the first file that has them
	Modes     []modes.Mode    // columns: every profiled mode some file ran
	cells     map[cellKey]*AcrossCell
}

// AcrossCell is one (workload, mode) over the runs: per run its multiple
// (NaN where the run had no such cell, or it failed) and its cost per
// event in ns (NaN where it had none).
type AcrossCell struct {
	Multiples []float64
	Costs     []float64
	Event     string // "call" or "sample": what Costs are per
}

// Goal is what a mode's overhead multiple must not exceed on any workload
// of a run: a number ("sampling-1ms<=1.03"), or another mode's multiple on
// the same workload in the same run ("sampling-1ms<eventpipe": below the
// profiler it is to beat; "<=" allows a tie). A run that lacks the other
// mode's cell is not judged there.
type Goal struct {
	Mode   modes.Mode
	Max    float64
	Than   modes.Mode // the other mode, instead of Max
	Strict bool       // "<": below, not equal
}

// ParseGoal reads a goal as written on the command line: MODE<=MULTIPLE (or
// MODE=MULTIPLE), MODE<OTHER or MODE<=OTHER.
func ParseGoal(s string) (Goal, error) {
	bad := fmt.Errorf("goal %q: want MODE<=MULTIPLE (e.g. sampling-1ms<=1.03) or MODE<OTHER-MODE (e.g. sampling-1ms<eventpipe)", s)
	var name, val string
	var ok, strict bool
	for _, op := range []string{"<=", "<", "="} {
		if name, val, ok = strings.Cut(s, op); ok {
			strict = op == "<"
			break
		}
	}
	name, val = strings.TrimSpace(name), strings.TrimSpace(val)
	if !ok || name == "" || val == "" {
		return Goal{}, bad
	}
	x, err := strconv.ParseFloat(strings.TrimPrefix(val, "x"), 64)
	switch {
	case err == nil && x > 0 && !strict:
		return Goal{Mode: modes.Mode(name), Max: x}, nil
	case err == nil || strings.ContainsAny(val, "<=") || val == name:
		return Goal{}, bad
	}
	return Goal{Mode: modes.Mode(name), Than: modes.Mode(val), Strict: strict}, nil
}

// String is the goal as its line heads it: "sampling-1ms ≤ ×1.03",
// "sampling-1ms < eventpipe".
func (g Goal) String() string {
	switch {
	case g.Than == "":
		return fmt.Sprintf("%s ≤ %s", g.Mode, numfmt.Multiple(g.Max))
	case g.Strict:
		return fmt.Sprintf("%s < %s", g.Mode, g.Than)
	}
	return fmt.Sprintf("%s ≤ %s", g.Mode, g.Than)
}

// NewAcross builds the table from files, in the order given (the caller
// orders them by start, as a history is read), which must all be runs of
// one suite (the same name): a table across suites would put unlike cells
// side by side.
func NewAcross(files []*results.File, names []string) (*Across, error) {
	if len(files) < 2 {
		return nil, fmt.Errorf("--across needs at least two results files of one suite, got %d", len(files))
	}
	a := &Across{Suite: files[0].Suite.Name, Files: files, Names: names, cells: map[cellKey]*AcrossCell{}}
	for i, f := range files {
		if f.Suite.Name != a.Suite {
			return nil, fmt.Errorf("%s is a run of suite %q, %s of %q: --across compares runs of one suite", names[i], f.Suite.Name, names[0], a.Suite)
		}
	}
	for k, f := range a.Files {
		for j := range f.Results {
			c := &f.Results[j]
			if c.Mode == modes.None {
				continue
			}
			if !slices.Contains(a.Workloads, c.Workload) {
				a.Workloads = append(a.Workloads, c.Workload)
			}
			if !slices.Contains(a.Modes, c.Mode) {
				a.Modes = append(a.Modes, c.Mode)
			}
			key := cellKey{c.Workload, c.Mode}
			ac := a.cells[key]
			if ac == nil {
				ac = &AcrossCell{Multiples: nans(len(a.Files)), Costs: nans(len(a.Files))}
				a.cells[key] = ac
			}
			if c.Failed() || !(c.Overhead > 0) {
				continue
			}
			ac.Multiples[k] = c.Overhead
			switch {
			case c.CostPerCallNs != 0:
				ac.Costs[k], ac.Event = c.CostPerCallNs, "call"
			case c.CostPerSampleNs != 0:
				ac.Costs[k], ac.Event = c.CostPerSampleNs, "sample"
			}
		}
	}
	if len(a.Modes) == 0 {
		return nil, fmt.Errorf("%s: no profiled cell with an overhead multiple (a suite needs a none mode for multiples)", strings.Join(a.Names, ", "))
	}
	return a, nil
}

func nans(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = math.NaN()
	}
	return x
}

// Cell is the (workload, mode) cell, nil when no run had it.
func (a *Across) Cell(workload string, mode modes.Mode) *AcrossCell {
	return a.cells[cellKey{workload, mode}]
}

// spread is the median of xs' numbers (NaNs left out) and their lowest and
// highest, with how many there were.
func spread(xs []float64) (med, lo, hi float64, n int) {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN(), math.NaN(), math.NaN(), 0
	}
	return stats.Median(v), slices.Min(v), slices.Max(v), len(v)
}

// Text is the cell as the table shows it: "×1.03 [1.01-1.08]" then, when
// the runs measured it, "24.1 µs/sample [13.0-33.2]"; "(2 of 3 runs)"
// when some run lacked it; "" for none.
func (c *AcrossCell) Text(runs int) string {
	if c == nil {
		return ""
	}
	med, lo, hi, n := spread(c.Multiples)
	if n == 0 {
		return numfmt.Missing
	}
	s := numfmt.MultipleCI(med, lo, hi)
	if cm, clo, chi, cn := spread(c.Costs); cn > 0 {
		s += "; " + numfmt.PerEvent(cm, clo, chi, c.Event, false)
	}
	if n < runs {
		s += fmt.Sprintf(" (%d of %d runs)", n, runs)
	}
	return s
}

// Misses are the runs (by index) in which goal g was missed: the mode's
// multiple above g.Max (or not below g.Than's) on some workload, with those
// workloads and multiples in words ("mandelbrot ×1.081", "fibonacci ×1.092
// against ×1.080").
func (a *Across) Misses(g Goal) map[int][]string {
	out := map[int][]string{}
	for k := range a.Files {
		for _, wl := range a.Workloads {
			x, y, ok := a.pair(g, wl, k)
			if !ok {
				continue
			}
			// Three decimals: a miss by less than the table's rounding
			// (×1.0304 against 1.03) must not read as ×1.03.
			switch {
			case g.Than == "":
				if x > g.Max {
					out[k] = append(out[k], fmt.Sprintf("%s ×%.3f", wl, x))
				}
			case x > y || g.Strict && x == y:
				// As many decimals as tell the two apart: ×1.0204
				// against ×1.0198 must not read as a tie.
				d := 3
				for d < 6 && fmt.Sprintf("%.*f", d, x) == fmt.Sprintf("%.*f", d, y) {
					d++
				}
				out[k] = append(out[k], fmt.Sprintf("%s ×%.*f against ×%.*f", wl, d, x, d, y))
			}
		}
	}
	return out
}

// pair is what goal g judges on workload wl in run k: the mode's multiple
// and, for a goal against another mode, that mode's; not ok when the run
// lacks either.
func (a *Across) pair(g Goal, wl string, k int) (x, y float64, ok bool) {
	c := a.Cell(wl, g.Mode)
	if c == nil || math.IsNaN(c.Multiples[k]) {
		return 0, 0, false
	}
	if g.Than == "" {
		return c.Multiples[k], 0, true
	}
	o := a.Cell(wl, g.Than)
	if o == nil || math.IsNaN(o.Multiples[k]) {
		return 0, 0, false
	}
	return c.Multiples[k], o.Multiples[k], true
}

// runLabel names run k: its start (UTC, to the minute) and its label.
func (a *Across) runLabel(k int) string {
	return fmt.Sprintf("run %d (%s, %s)", k+1, a.Files[k].Started.UTC().Format("2006-01-02 15:04 MST"), a.Names[k])
}

// GoalLines say, per goal, which runs missed it and where, or that every
// run met it; a goal on a mode no run had says so.
func (a *Across) GoalLines(goals []Goal) []string {
	var out []string
	for _, g := range goals {
		head := "goal " + g.String() + ": "
		if !slices.Contains(a.Modes, g.Mode) {
			out = append(out, head+"no run has mode "+string(g.Mode))
			continue
		}
		if g.Than != "" && !slices.Contains(a.Modes, g.Than) {
			out = append(out, head+"no run has mode "+string(g.Than))
			continue
		}
		misses, judged := a.Misses(g), a.judged(g)
		of := ""
		if judged < len(a.Files) {
			of = fmt.Sprintf(" (of %d; the others lack a mode)", len(a.Files))
		}
		if len(misses) == 0 {
			out = append(out, head+fmt.Sprintf("met in all %d runs", judged)+of)
			continue
		}
		var parts []string
		for k := range a.Files {
			if m := misses[k]; m != nil {
				parts = append(parts, fmt.Sprintf("run %d: %s", k+1, strings.Join(m, ", ")))
			}
		}
		out = append(out, head+fmt.Sprintf("missed in %d of %d runs%s: ", len(misses), judged, of)+strings.Join(parts, "; "))
	}
	return out
}

// judged is how many runs goal g could be judged in: those with a multiple
// of its mode (and of the other mode, on the same workload) somewhere.
func (a *Across) judged(g Goal) int {
	n := 0
	for k := range a.Files {
		for _, wl := range a.Workloads {
			if _, _, ok := a.pair(g, wl, k); ok {
				n++
				break
			}
		}
	}
	return n
}

// Write renders the table, its runs and the goals' lines, as Markdown
// tables (format "markdown") or the same with a plain heading ("text").
func (a *Across) Write(w io.Writer, goals []Goal, format string) error {
	e := shared.NewWriter(w)
	title := fmt.Sprintf("%s: %d runs, each cell the median of the runs' overhead multiples [lowest, highest] and of their costs per event", a.Suite, len(a.Files))
	if format == "markdown" {
		fmt.Fprintf(e, "### %s\n\n", title)
	} else {
		fmt.Fprintf(e, "%s\n\n", title)
	}
	header := []string{"workload"}
	for _, m := range a.Modes {
		header = append(header, string(m))
	}
	var rows [][]string
	for _, wl := range a.Workloads {
		row := []string{wl}
		for _, m := range a.Modes {
			row = append(row, a.Cell(wl, m).Text(len(a.Files)))
		}
		rows = append(rows, row)
	}
	e.Table(header, rows)
	fmt.Fprintln(e)
	for k := range a.Files {
		fmt.Fprintf(e, "- %s\n", a.runLabel(k)+": "+a.Files[k].Finished.Sub(a.Files[k].Started).Round(time.Second).String())
	}
	if lines := a.GoalLines(goals); len(lines) > 0 {
		fmt.Fprintln(e)
		for _, l := range lines {
			fmt.Fprintf(e, "- %s\n", l)
		}
	}
	return e.Err()
}
