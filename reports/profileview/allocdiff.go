package profileview

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"vbench/internal/numfmt"
	"vbench/internal/profdiff"
	"vbench/reports/shared"
)

// AllocDiffView is what an allocation diff report shows: the diff, what
// each side was read from, and how many types to list.
type AllocDiffView struct {
	Diff     *profdiff.AllocDiff
	Old, New string
	Top      int
}

// allocDiffPaths is how many paths the headline names for the type that
// changed most.
const allocDiffPaths = 3

// signedBytes is a change in bytes: "+40.00MiB", "-512.0B".
func signedBytes(x float64) string {
	if x < 0 {
		return "-" + numfmt.Bytes(-x)
	}
	return "+" + numfmt.Bytes(x)
}

// objects is a per-run mean count of objects: whole when it is one.
func objects(x float64) string {
	if x == math.Trunc(x) {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.1f", x)
}

// AllocHeadline says what changed most, in a sentence: "This change
// allocates 40.00MiB more Vbench.Allocs.Order a run (250000 → 750000
// objects), from: …" with the paths whose allocations of it changed most.
func AllocHeadline(d *profdiff.AllocDiff) string {
	if len(d.Types) == 0 || d.Types[0].Change() == 0 {
		return "No type's allocations changed."
	}
	t := d.Types[0]
	more := "more"
	if t.Change() < 0 {
		more = "less"
	}
	s := fmt.Sprintf("This change allocates %s %s %s a run (%s → %s objects)", numfmt.Bytes(math.Abs(t.Change())), more, t.Type, objects(t.OldCount), objects(t.NewCount))
	var from []string
	for _, p := range d.Paths(t.Type) {
		if len(from) == allocDiffPaths || p.Change() == 0 {
			break
		}
		from = append(from, fmt.Sprintf("%s from %s", signedBytes(p.Change()), pathText(p.Path)))
	}
	if len(from) > 0 {
		s += ", " + strings.Join(from, "; ")
	}
	return s + "."
}

// AllocDiffText writes an allocation diff: the totals, the headline, and
// the types whose bytes changed most with their old and new figures.
func AllocDiffText(w io.Writer, v AllocDiffView) error {
	d := v.Diff
	ew := shared.NewWriter(w)
	est := ""
	if d.Sampled {
		est = " (estimates from allocation samples)"
	}
	fmt.Fprintf(ew, "Allocations per run%s: %s (%s) → %s (%s)\n", est, v.Old, numfmt.Count(d.OldRuns, "run", "runs"), v.New, numfmt.Count(d.NewRuns, "run", "runs"))
	fmt.Fprintf(ew, "total %s → %s (%s), %s → %s objects\n\n", numfmt.Bytes(d.OldBytes), numfmt.Bytes(d.NewBytes), signedBytes(d.NewBytes-d.OldBytes), objects(d.OldCount), objects(d.NewCount))
	fmt.Fprintln(ew, AllocHeadline(d))
	top := v.Top
	if top <= 0 {
		top = 20
	}
	rows := d.Types[:min(top, len(d.Types))]
	fmt.Fprintf(ew, "\nTop %d of %d types by change in bytes allocated a run\n", len(rows), len(d.Types))
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "old bytes\tnew bytes\tchange\told objects\tnew objects\t  type")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t  %s\n", numfmt.Bytes(r.OldBytes), numfmt.Bytes(r.NewBytes), signedBytes(r.Change()), objects(r.OldCount), objects(r.NewCount), r.Type)
	}
	tw.Flush()
	return ew.Err()
}

// AllocDiffJSON is an allocation diff as JSON: the totals, the headline,
// the types by change, and each listed type's paths by change.
type AllocDiffJSON struct {
	Old      string                         `json:"old"`
	New      string                         `json:"new"`
	OldRuns  int                            `json:"old_runs"`
	NewRuns  int                            `json:"new_runs"`
	Sampled  bool                           `json:"sampled,omitempty"`
	OldBytes float64                        `json:"old_bytes"`
	NewBytes float64                        `json:"new_bytes"`
	Headline string                         `json:"headline"`
	Types    []profdiff.AllocRow            `json:"types"`
	Paths    map[string][]profdiff.AllocRow `json:"paths"`
}

// WriteAllocDiffJSON writes the diff's top types and their paths.
func WriteAllocDiffJSON(w io.Writer, v AllocDiffView) error {
	d := v.Diff
	top := v.Top
	if top <= 0 {
		top = 20
	}
	out := AllocDiffJSON{Old: v.Old, New: v.New, OldRuns: d.OldRuns, NewRuns: d.NewRuns, Sampled: d.Sampled,
		OldBytes: d.OldBytes, NewBytes: d.NewBytes, Headline: AllocHeadline(d), Types: d.Types[:min(top, len(d.Types))], Paths: map[string][]profdiff.AllocRow{}}
	for _, t := range out.Types {
		ps := d.Paths(t.Type)
		out.Paths[t.Type] = ps[:min(top, len(ps))]
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
