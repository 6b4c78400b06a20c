package reports

import (
	"bytes"
	"html/template"
	"strings"

	"vbench/internal/profdiff"
	"vbench/internal/verdict"
)

// WhyView is what the HTML report shows under a changed A/B pair: its
// explain and, when both sides' kept profiles can still be read, their
// differential flame graph.
type WhyView struct {
	Basis string   // what the figures are (ExplainBasis)
	Lines []string // "Vbench.Split.A.Step +1.20ms (4.50ms → 5.70ms)"
	Flame template.HTML
}

// Why is c's WhyView, nil when it has no explain to show.
func (m *Matrix) Why(c *Cell) *WhyView {
	if !Explained(c.Verdict, c.Compare) {
		return nil
	}
	v := &WhyView{Basis: ExplainBasisOf(c.Compare)}
	names := ExplainNames(c.Compare.Explain)
	for i, f := range c.Compare.Explain {
		v.Lines = append(v.Lines, names[i]+" "+ContributionText(c.Compare.ExplainUnit, f))
	}
	v.Flame = diffFlameOf(m, c)
	return v
}

// diffFlameOf draws the differential flame graph of c's pair from the
// profiles the run kept (results.Cell.Profile, every measured run), or ""
// when they are gone or were never kept (the report then shows the list
// alone).
func diffFlameOf(m *Matrix, c *Cell) template.HTML {
	ref := verdict.Reference(m.Current, c.Cell)
	if ref == nil || ref.Profile == "" || c.Profile == "" {
		return ""
	}
	old, err := profdiff.Read(ref.Profile, nil, nil)
	if err != nil {
		return ""
	}
	new, err := profdiff.Read(c.Profile, nil, nil)
	if err != nil || old.Side.Unit != new.Side.Unit {
		return ""
	}
	var b bytes.Buffer
	if err := DiffFlameGraph(&b, old.Paths, new.Paths, new.Side.Unit, DiffFlameOptions{Title: c.Key() + " against " + ref.Key()}); err != nil {
		return ""
	}
	svg := b.String()
	if i := strings.Index(svg, "<svg"); i > 0 { // inline: no XML declaration
		svg = svg[i:]
	}
	return template.HTML(svg) // our own SVG, every name in it escaped
}
