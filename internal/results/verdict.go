package results

import "fmt"

// Verdict is what a cell was judged: one word in a results file, and
// everything an output says of it (its label, its mark in a table, its
// count in a headline) and what it means for CI, from one table here so
// that no output maps verdicts on its own.
type Verdict string

// The verdicts a cell can get.
const (
	VerdictImproved  Verdict = "improved"
	VerdictSame      Verdict = "same"
	VerdictRegressed Verdict = "regressed"
	VerdictFailed    Verdict = "failed" // the workload failed: exit code, crash, timeout, checksum
	VerdictNew       Verdict = "new"    // nothing in the baseline to compare with
	// VerdictInconclusive: compared, but the runs cannot tell "no change
	// that counts" from "changed by the minimum change" (too few runs, or
	// the interval still spans both at the cap). Change.Hides says how
	// large a change it could still hide.
	VerdictInconclusive Verdict = "inconclusive"
	// VerdictNotRun: the cell has no measured run (interrupted before it
	// ran, or not reached); never a pass.
	VerdictNotRun Verdict = "not run"
	// VerdictReference: the OLD side of an A/B pair (--against's twin, a
	// mode another mode is judged `against:`), judged against nothing
	// itself: what its pair's verdict is measured from, not a new cell.
	VerdictReference Verdict = "reference"
)

// Verdicts lists every verdict, worst first: the order summaries count them in.
var Verdicts = []Verdict{VerdictRegressed, VerdictFailed, VerdictInconclusive, VerdictNotRun, VerdictImproved, VerdictSame, VerdictNew, VerdictReference}

// CI is what a verdict means for a CI job: the exit code and the JUnit
// test case state of a cell that has it.
type CI int

const (
	CIPass    CI = iota // exit 0, a passing test case
	CIFail              // a regression: exit 1, a JUnit failure
	CIError             // the workload failed: exit 3, a JUnit failure
	CIUnknown           // decided nothing (inconclusive): a skipped test case; exit 1 only under --fail-on inconclusive
	CISkip              // not measured (not run): a skipped test case, never a pass
)

type verdictWords struct {
	label, mark, emoji string // "Regressed", "▲ regressed", "🔴"
	one, many          string // a headline's count: "1 regression", "2 regressions"
	ci                 CI
}

var words = map[Verdict]verdictWords{
	VerdictRegressed:    {"Regressed", "▲ regressed", "🔴", "regression", "regressions", CIFail},
	VerdictImproved:     {"Improved", "▼ improved", "🟢", "improvement", "improvements", CIPass},
	VerdictFailed:       {"Failed", "✗ failed", "❌", "failure", "failures", CIError},
	VerdictSame:         {"Unchanged", "same", "", "unchanged", "unchanged", CIPass},
	VerdictNew:          {"New", "new", "🆕", "new", "new", CIPass},
	VerdictInconclusive: {"Inconclusive", "? inconclusive", "🟡", "inconclusive", "inconclusive", CIUnknown},
	VerdictNotRun:       {"Not run", "– not run", "⏭️", "not run", "not run", CISkip},
	VerdictReference:    {"Reference", "reference", "", "reference", "references", CIPass},
}

// Valid reports whether v is one of Verdicts.
func (v Verdict) Valid() bool { _, ok := words[v]; return ok }

// Label is the verdict as a heading: "Regressed", "Unchanged".
func (v Verdict) Label() string { return words[v].label }

// Mark is the verdict in a table's column: "▲ regressed", "same"; "" when
// nothing was judged.
func (v Verdict) Mark() string { return words[v].mark }

// Emoji marks a verdict that needs a reader's eye in Markdown; "" for the
// ones that do not (same, reference).
func (v Verdict) Emoji() string { return words[v].emoji }

// Count is n cells of the verdict as a headline says it: "1 regression",
// "3 unchanged".
func (v Verdict) Count(n int) string {
	w := words[v]
	if n == 1 {
		return "1 " + w.one
	}
	return fmt.Sprint(n, " ", w.many)
}

// CI is what the verdict means for a CI job.
func (v Verdict) CI() CI { return words[v].ci }

// Fails reports whether a cell with verdict v fails the command (exit
// non-zero): a regression or a failure always, an inconclusive cell when
// failOnInconclusive (--fail-on inconclusive).
func (v Verdict) Fails(failOnInconclusive bool) bool {
	switch v.CI() {
	case CIFail, CIError:
		return true
	case CIUnknown:
		return failOnInconclusive
	}
	return false
}

// Judged reports whether v is a judgement a cell's runs must back: a
// verdict of a comparison, or the reference side of an A/B pair.
func (v Verdict) Judged() bool {
	switch v {
	case VerdictImproved, VerdictSame, VerdictRegressed, VerdictInconclusive, VerdictReference:
		return true
	}
	return false
}
