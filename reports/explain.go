package reports

import (
	"fmt"
	"math"
	"strings"

	"vbench/internal/numfmt"
	"vbench/internal/results"
)

// An A/B pair's explain (results.Change.Explain): the functions whose self
// figures changed most between its two sides' profiles. Every output that
// shows a changed pair shows its first ExplainShown under it.

// ExplainShown is how many of a pair's explain functions a table line shows.
const ExplainShown = 3

// Explained reports whether a cell's explain is shown: a changed A/B pair
// (regressed or improved) that has one.
func Explained(verdict results.Verdict, ch *results.Change) bool {
	return ch != nil && len(ch.Explain) > 0 && (verdict == results.VerdictRegressed || verdict == results.VerdictImproved)
}

// ExplainText is the first n functions of ch's explain in one line:
// "Vbench.Split.A.Step +1.20ms (4.50ms → 5.70ms), …" (self time per run,
// or CPU time per run from samples), or "… +4.5 pts (50.0% → 54.5% of
// samples)".
func ExplainText(ch *results.Change, n int) string {
	var parts []string
	for i, c := range ch.Explain {
		if i == n {
			break
		}
		parts = append(parts, c.Function+" "+ContributionText(ch.ExplainUnit, c))
	}
	return strings.Join(parts, ", ")
}

// ContributionText is one function's change, with its 95% interval where
// known, and the line where it happened when the profiles have lines:
// "+1.20ms [+1.05ms, +1.35ms] (4.50ms → 5.70ms) — Program.cs:88".
func ContributionText(unit string, c results.Contribution) string {
	if c.Line != "" {
		return contributionFigures(unit, c) + " — " + c.Line
	}
	return contributionFigures(unit, c)
}

func contributionFigures(unit string, c results.Contribution) string {
	interval := func(format func(float64) string) string {
		if c.Lo == nil || c.Hi == nil {
			return ""
		}
		return fmt.Sprintf(" [%s, %s]", signed(*c.Lo, format), signed(*c.Hi, format))
	}
	if unit == "share" {
		pts := func(x float64) string { return fmt.Sprintf("%.1f", 100*x) }
		return fmt.Sprintf("%s pts%s (%s → %s of samples)", signed(c.Change, pts), interval(pts),
			numfmt.Percent(c.Old), numfmt.Percent(c.New))
	}
	return fmt.Sprintf("%s%s (%s → %s)", signed(c.Change, numfmt.Duration), interval(numfmt.Duration), numfmt.Duration(c.Old), numfmt.Duration(c.New))
}

// ExplainBasis says what an explain's figures are, for a note under a table.
func ExplainBasis(unit string) string {
	if unit == "share" {
		return "share of the samples with a managed frame, all measured runs of each side"
	}
	if unit == results.ExplainPerRequest {
		return "self time per request served (mean over each side's measured runs)"
	}
	if unit == results.ExplainSampledPerRun {
		return "sampled self time per run: a function's self samples times the interval (CPU time under cpu-sampling, every thread's wall time under sampling), mean over each side's measured runs"
	}
	return "self time per run (mean over each side's measured runs)"
}

// signed prints x with its sign ("+", "−") before format's text of |x|.
func signed(x float64, format func(float64) string) string {
	if x < 0 {
		return "−" + format(math.Abs(x))
	}
	return "+" + format(x)
}
