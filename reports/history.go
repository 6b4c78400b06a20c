package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"vbench/internal/safetext"

	hist "vbench/internal/history"
	"vbench/internal/numfmt"
	"vbench/internal/results"
)

// The history's views: `vbench history show` as text, Markdown or JSON,
// and `vbench history report` as a page (historyhtml.go).

// HistoryFormats are show's formats.
var HistoryFormats = []string{"text", "markdown", "json"}

// WriteHistory writes a history's change points in format.
func WriteHistory(w io.Writer, name string, a *hist.Analysis, format string) error {
	switch format {
	case "text":
		return historyText(w, name, a)
	case "markdown":
		return historyMarkdown(w, name, a)
	case "json":
		return historyJSON(w, name, a)
	}
	return fmt.Errorf("unknown format %q: want one of %s", format, strings.Join(HistoryFormats, ", "))
}

// SeriesValue prints a series' value in its own unit: a multiple for an
// overhead or a calibrated time, a whole-program figure in its measure's
// ("94.22MiB", "5" collections), a time in its metric's ("412.3ms",
// "1520 req/s"). Every series printed as a duration once: "rss 80.19ms".
func SeriesValue(kind string, metric results.Metric, x float64) string {
	switch m := results.Measure(kind); {
	case kind == hist.KindOverhead || kind == hist.KindCalibrated:
		return numfmt.Multiple(x)
	case m.Valid():
		return numfmt.Quantity(x, m.Unit())
	case !(x > 0):
		return numfmt.Missing
	}
	return metric.OrDefault().Format(x, numfmt.Duration)
}

// ChangeWord says which way a change point went in the series' own terms:
// "slower"/"faster" for a time, "higher"/"lower" for a whole-program
// figure (memory does not get slower).
func ChangeWord(kind string, change float64) string {
	if results.Measure(kind).Valid() {
		if change > 0 {
			return "higher"
		}
		return "lower"
	}
	if change > 0 {
		return "slower"
	}
	return "faster"
}

// ChangeText is a change point's change with its interval and p:
// "+4.6% [+3.9%, +5.3%] (p=0.002)".
func ChangeText(c *hist.Change) string {
	return numfmt.ChangeCIP(1+c.Change, nonZero(c.ChangeLo), nonZero(c.ChangeHi), c.P)
}

// nonZero turns a change bound back into a ratio, 0 (none) staying 0.
func nonZero(change float64) float64 {
	if change == 0 {
		return 0
	}
	return 1 + change
}

func short(commit string) string {
	if len(commit) > 10 {
		return commit[:10]
	}
	return commit
}

func span(a *hist.Analysis) string {
	n := len(a.Entries)
	switch n {
	case 0:
		return "no runs"
	case 1:
		return "1 run (" + short(a.Entries[0].Commit) + ")"
	}
	return fmt.Sprintf("%d runs (%s … %s, %s … %s)", n, short(a.Entries[0].Commit), short(a.Entries[n-1].Commit),
		a.Entries[0].Date.UTC().Format("2006-01-02"), a.Entries[n-1].Date.UTC().Format("2006-01-02"))
}

// changeRow is a change point's cells in show's text and Markdown tables:
// series, index, commits, before → after, change, and whether it is new
// (and slower).
func changeRow(c *hist.Change) []string {
	mark := ""
	if c.New {
		mark = "new"
		if c.Slower() {
			mark = "new, " + ChangeWord(c.Series, c.Change)
		}
		if c.Raw {
			mark += " (raw time: the calibrated series is judged)"
		}
		if c.Calibration {
			mark += " (the calibration's own time: the machine's, not judged)"
		}
	}
	if g := gateMark(*c); g != "" {
		mark = strings.TrimPrefix(mark+", "+g, ", ")
	}
	if e := EnvironmentText(*c); e != "" {
		mark = strings.TrimPrefix(mark+", "+e, ", ")
	}
	return []string{safetext.Line(fmt.Sprintf("%s/%s %s (%s)", c.Workload, c.Mode, c.Series, c.Metric)), fmt.Sprint(c.Index),
		safetext.Line(short(c.CommitBefore) + ".." + short(c.Commit)), SeriesValue(c.Series, c.Metric, c.Before) + " → " + SeriesValue(c.Series, c.Metric, c.After),
		ChangeText(c), mark}
}

// EnvironmentText says what changed beside the code at change point c
// ("": nothing): "the environment changed at run 12: .NET runtime: 10.0.11
// vs 10.0.12".
func EnvironmentText(c hist.Change) string {
	if len(c.Environment) == 0 {
		return ""
	}
	return "the environment changed " + strings.Join(c.Environment, "; ")
}

// gateMark says what CI's gate made of change point c ("": not judged).
func gateMark(c hist.Change) string {
	switch c.Gate {
	case "fails":
		return "fails CI"
	case "failed before":
		return "failed CI at an earlier run"
	case "held":
		return fmt.Sprintf("held: p %.2g, not significant over the run's series", c.GateP)
	case "small":
		return "smaller than the suite's min_change: not failed on"
	}
	return ""
}

// gateText says how CI judges the run: its slower change points as one
// family over the series it judges.
func gateText(a *hist.Analysis) string {
	if a.GateAlpha == 0 {
		return ""
	}
	switch {
	case a.Family == 0 && a.GateShort > 0:
		// Not "judges 0 series": nothing is judged until a series has the runs to show a change.
		return fmt.Sprintf("; CI judges no series yet: a series is judged once it has %d runs", a.GateMinRuns)
	case a.Family == 0:
		return "; CI judges no series: it judges the series the last run measured, and that run measured none (every cell failed, or only the calibration workload)"
	}
	return fmt.Sprintf("; CI judges %d %s as one family at alpha %g (Holm)", a.Family, numfmt.Plural(a.Family, "series", "series"), a.GateAlpha)
}

// BlindLines say what the gate cannot judge yet, a line per kind of blind
// spot: "not yet judgeable: a step in the newest 7 runs of fib/tracing
// time, fib/tracing overhead cannot be found yet (too few runs for any
// order of them to be significant); it can be after 3 more runs".
func BlindLines(a *hist.Analysis) []string {
	type spot struct{ runs, needs int }
	var order []spot
	by := map[spot][]string{}
	judged := 0
	for i, b := range a.Blind {
		if b.Runs == 0 && b.Needs == 0 {
			continue
		}
		judged++
		k := spot{b.Runs, b.Needs}
		if by[k] == nil {
			order = append(order, k)
		}
		by[k] = append(by[k], a.Series[i].Key())
	}
	var out []string
	for _, k := range order {
		which := "of " + strings.Join(by[k], ", ")
		if len(order) == 1 && judged > 1 {
			which = "of every series CI judges"
		}
		out = append(out, fmt.Sprintf("not yet judgeable: a step in the newest %d %s %s cannot be found yet (too few runs for any order of them to be significant); it can be after %d more %s",
			k.runs, numfmt.Plural(k.runs, "run", "runs"), which, k.needs, numfmt.Plural(k.needs, "run", "runs")))
	}
	return out
}

func historyText(w io.Writer, name string, a *hist.Analysis) error {
	sw := safetext.NewWriter(w)
	defer sw.Flush()
	w = sw
	all := a.All()
	fmt.Fprintf(w, "history %s: %s, %d series, %s%s\n", name, span(a), len(a.Series), fmt.Sprint(len(all), " ", numfmt.Plural(len(all), "change point", "change points")), gateText(a))
	for _, l := range BlindLines(a) {
		fmt.Fprintln(w, l)
	}
	if len(all) == 0 {
		_, err := fmt.Fprintln(w, "no series shifted for good in the runs it can judge")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nseries\tindex\tcommits\tbefore → after\tchange\t")
	for _, c := range all {
		fmt.Fprintln(tw, strings.Join(changeRow(&c), "\t"))
	}
	return tw.Flush()
}

func historyMarkdown(w io.Writer, name string, a *hist.Analysis) error {
	all := a.All()
	fmt.Fprintf(w, "### vbench history\n\n`%s`: %s, %d series, %s%s.\n\n", name, span(a), len(a.Series), fmt.Sprint(len(all), " ", numfmt.Plural(len(all), "change point", "change points")), gateText(a))
	for _, l := range BlindLines(a) {
		fmt.Fprintf(w, "- %s\n", mdEscape(l))
	}
	if len(all) == 0 {
		_, err := fmt.Fprintln(w, "\nNo series shifted for good in the runs it can judge.")
		return err
	}
	fmt.Fprintln(w, "| series | index | commits | before → after | change | |\n|---|---:|---|---|---|---|")
	for _, c := range all {
		r := changeRow(&c)
		for i := range r {
			r[i] = mdEscape(r[i])
		}
		r[2] = mdCode(changeRow(&c)[2])
		if r[5] != "" {
			r[5] = "**" + r[5] + "**"
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
	return nil
}

// historyDoc is show's JSON.
type historyDoc struct {
	History      string        `json:"history"`
	Runs         int           `json:"runs"`
	Gate         *gateDoc      `json:"gate,omitempty"`
	Series       []seriesDoc   `json:"series"`
	ChangePoints []hist.Change `json:"change_points"`
}

// gateDoc is how CI judged the last run (Analysis.Gate).
type gateDoc struct {
	Alpha  float64 `json:"alpha"`
	Family int     `json:"family"` // series judged
}

type seriesDoc struct {
	Workload string  `json:"workload"`
	Mode     string  `json:"mode"`
	Series   string  `json:"series"`
	Metric   string  `json:"metric"`
	Runs     int     `json:"runs"`
	Last     float64 `json:"last"` // the newest value
	// Unjudged is what CI cannot judge yet (history.Blind): a step in the
	// newest runs cannot be found, needs more runs make it findable.
	// Absent for series CI does not judge.
	Unjudged *hist.Blind `json:"unjudged,omitempty"`
}

func historyJSON(w io.Writer, name string, a *hist.Analysis) error {
	doc := historyDoc{History: name, Runs: len(a.Entries), ChangePoints: a.All()}
	if a.GateAlpha > 0 {
		doc.Gate = &gateDoc{Alpha: a.GateAlpha, Family: a.Family}
	}
	if doc.ChangePoints == nil {
		doc.ChangePoints = []hist.Change{}
	}
	for i, s := range a.Series {
		d := seriesDoc{Workload: s.Workload, Mode: string(s.Mode), Series: s.Kind, Metric: string(s.Metric), Runs: len(s.Points)}
		if len(s.Points) > 0 {
			d.Last = s.Points[len(s.Points)-1].Value
		}
		if i < len(a.Blind) && (a.Blind[i] != hist.Blind{}) {
			b := a.Blind[i]
			d.Unjudged = &b
		}
		doc.Series = append(doc.Series, d)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
