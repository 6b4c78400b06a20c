package reports

import (
	"html/template"

	"vbench/internal/results"
)

// WhyView is what the HTML report shows under a changed A/B pair: its
// explain and, when both sides' kept profiles can still be read, their
// differential flame graph.
type WhyView struct {
	Basis string   // what the figures are (ExplainBasis)
	Lines []string // "Vbench.Split.A.Step +1.20ms (4.50ms → 5.70ms)"
	// Unnamed is what a why in instructions could not name (UnnamedText).
	Unnamed string
	// Launch is how its launches ran otherwise than the runs (LaunchText).
	Launch string
	Flame  template.HTML
}

// A DiffFlame draws the differential flame graph of an A/B pair (old, the
// cell new was judged against) from the profiles the run kept
// (results.Cell.Profile), inline SVG, or "" when they are gone or were
// never kept. Drawing profiles is reports/profileview's, which this package
// does not import: the command that renders the report hands one over.
type DiffFlame func(old, new *results.Cell) template.HTML

// Why is c's WhyView, nil when it has no explain to show.
func (m *Matrix) Why(c *Cell) *WhyView {
	if !Explained(c.Verdict, c.Compare) {
		return nil
	}
	v := &WhyView{Basis: ExplainBasisOf(c.Compare), Unnamed: UnnamedText(c.Compare), Launch: LaunchText(c.Compare)}
	names := ExplainNames(c.Compare.Explain)
	for i, f := range c.Compare.Explain {
		v.Lines = append(v.Lines, names[i]+" "+ContributionText(c.Compare.ExplainUnit, f))
	}
	if ref := m.Current.Reference(c.Cell); ref != nil && m.DiffFlame != nil {
		v.Flame = m.DiffFlame(ref, c.Cell)
	}
	return v
}
