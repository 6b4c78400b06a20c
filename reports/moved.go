package reports

import (
	"strings"

	"vbench/internal/results"
)

// What moved a cell to its verdict: its time (named by its metric), its
// overhead, or a judged whole-program figure. "regressed: rss, gc_count"
// read the same whether the time had moved or not, and a time change that
// was not significant was highlighted as the regression.

// Moved names what moved the cell to its verdict (regressed or improved),
// in the order time, overhead, figures: "elapsed", "overhead", "rss".
// Files of older vbench did not record the time's own verdict: their time
// counts as moved when nothing else did.
func (c *Cell) Moved() []string {
	v := c.Verdict
	if v != results.VerdictRegressed && v != results.VerdictImproved {
		return nil
	}
	var out []string
	if c.TimeMoved() {
		out = append(out, string(c.Metric.OrDefault()))
	}
	if c.Compare != nil && c.Compare.OverheadVerdict == v {
		out = append(out, "overhead")
	}
	for _, m := range results.Measures {
		if ms := c.Metrics[m]; ms != nil && ms.Verdict == v {
			out = append(out, string(m))
		}
	}
	if len(out) == 0 { // an older file's verdict with nothing recorded as its cause
		out = append(out, string(c.Metric.OrDefault()))
	}
	return out
}

// TimeMoved reports whether the cell's time change is what its verdict
// says (significant, and in its direction): only then is it highlighted.
func (c *Cell) TimeMoved() bool {
	v := c.Verdict
	if c.Compare == nil || (v != results.VerdictRegressed && v != results.VerdictImproved) {
		return false
	}
	if c.Compare.TimeVerdict != "" {
		return c.Compare.TimeVerdict == v
	}
	if c.Compare.OverheadVerdict != "" {
		return false
	}
	for _, m := range results.Measures {
		if ms := c.Metrics[m]; ms != nil && ms.Verdict == v {
			return false
		}
	}
	return true
}

// VerdictWhat is the verdict naming what moved it: "regressed: elapsed",
// "regressed: rss, gc_count", "improved: elapsed"; other verdicts as they
// are.
func (c *Cell) VerdictWhat() string {
	if ms := c.Moved(); len(ms) > 0 {
		return string(c.Verdict) + ": " + strings.Join(ms, ", ")
	}
	return string(c.Verdict)
}
