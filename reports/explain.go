package reports

import (
	"fmt"
	"slices"
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

// ExplainText is the first n entries of ch's explain that are shown to
// differ from no change, in one line: "Vbench.Split.A.Step +1.20ms (4.50ms
// → 5.70ms), …" (self time per run, or CPU time per run from samples), or
// "… +4.5 pts (50.0% → 54.5% of samples)"; an entry on one call path is
// named by it ("Pipeline.Render → Pipeline.Mix +120ms …"). Entries whose
// interval holds zero explain nothing and are left out (the JSON keeps
// them, marked not_shown).
func ExplainText(ch *results.Change, n int) string {
	var parts []string
	names := ExplainNames(ch.Explain)
	for i, c := range ch.Explain {
		if len(parts) == n {
			break
		}
		if c.NotShown {
			continue
		}
		parts = append(parts, names[i]+" "+ContributionText(ch.ExplainUnit, c))
	}
	s := "no function's change is shown to differ from zero"
	if len(parts) > 0 {
		s = strings.Join(parts, ", ")
	}
	if u := UnnamedText(ch); u != "" {
		s += "; " + u
	}
	if l := LaunchText(ch); l != "" {
		s += "; " + l
	}
	return s
}

// LaunchText says how a why in instructions' launches ran otherwise than
// the measured runs (results.Change.ExplainLaunch), "" when only by
// callgrind and the perf map: every output that shows the why says it.
func LaunchText(ch *results.Change) string {
	if ch.ExplainLaunch == results.LaunchNoReadyToRun {
		return NoReadyToRunText
	}
	return ""
}

// An unnamed place beyond the first unnamedShown is named only when it is at
// least unnamedTiny of either launch: a launch's twenty libraries of 30
// instructions each (the dynamic loader's calls) buried the two that
// mattered. The JSON keeps every place.
const (
	unnamedShown = 3
	unnamedTiny  = 0.001
)

// NoReadyToRunText is what a why whose launches ran no precompiled code
// says of it (results.LaunchNoReadyToRun).
const NoReadyToRunText = "named with precompiled code off (DOTNET_ReadyToRun=0 in the why's launches, so that the perf map names the base library's methods; the JIT's own instructions grow by it)"

// UnnamedText says what a why in instructions could not name, "" when it
// named everything: "12.50M instr (39.1% of the launch; +500.0k instr, 25.0%
// of the change) in code no symbol or perf map named: [jitted code]
// 10.50M instr, [libcoreclr.so] 2.000M instr", and why a launch had no
// perf map when that is why.
func UnnamedText(ch *results.Change) string {
	u := ch.ExplainUnnamed
	if u == nil || len(u.Places) == 0 {
		return ""
	}
	instr := func(x float64) string { return results.FormatCount(x) + " instr" }
	old, new := u.Old(), u.New()
	s := fmt.Sprintf("%s (%s of the launch; %s", instr(new), numfmt.Share(new, u.NewTotal), numfmt.SignedBy(new-old, instr))
	if d := u.NewTotal - u.OldTotal; d != 0 {
		s += ", " + numfmt.Percent((new-old)/d) + " of the change"
	}
	s += ") in code no symbol or perf map named: "
	var rest float64 // the places too small to name one by one
	var restN int
	for i, p := range u.Places {
		if i >= unnamedShown && p.New < unnamedTiny*u.NewTotal && p.Old < unnamedTiny*u.OldTotal {
			rest, restN = rest+p.New, restN+1
			continue
		}
		if i > 0 {
			s += ", "
		}
		s += p.Function + " " + instr(p.New)
	}
	if restN > 0 {
		s += fmt.Sprintf(", and %s of %s in all", numfmt.Count(restN, "more place", "more places"), instr(rest))
	}
	if u.NoPerfMap != "" {
		s += "; no perf map: " + u.NoPerfMap
	}
	return s
}

// ExplainNames are the names explain entries are shown by: the function,
// or for an entry on a call path the path's shortest tail (two names at
// least: caller → function) that no other entry's path shares, "… → " in
// front when the path goes further up.
func ExplainNames(es []results.Contribution) []string {
	out := make([]string, len(es))
	for i, c := range es {
		if len(c.Path) < 2 {
			out[i] = c.Function
			continue
		}
		k := 2
		for ; k < len(c.Path); k++ {
			unique := true
			for j, o := range es {
				if j != i && len(o.Path) >= k && slices.Equal(o.Path[len(o.Path)-k:], c.Path[len(c.Path)-k:]) {
					unique = false
					break
				}
			}
			if unique {
				break
			}
		}
		out[i] = strings.Join(c.Path[len(c.Path)-k:], " → ")
		if k < len(c.Path) {
			out[i] = "… → " + out[i]
		}
	}
	return out
}

// ContributionText is one function's change, with its 95% interval where
// known: "+1.20ms [+1.05ms, +1.35ms] (4.50ms → 5.70ms)", its calls per run
// where counted ("; calls/run 20 → 26"), "not shown to differ from 0"
// when its interval holds zero, and the line where it happened when the
// profiles have lines (" — Program.cs:88").
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
		return fmt.Sprintf(" [%s, %s]", numfmt.SignedBy(*c.Lo, format), numfmt.SignedBy(*c.Hi, format))
	}
	var s string
	if unit == "share" {
		pts := func(x float64) string { return fmt.Sprintf("%.1f", 100*x) }
		s = fmt.Sprintf("%s pts%s (%s → %s of samples", numfmt.SignedBy(c.Change, pts), interval(pts),
			numfmt.Percent(c.Old), numfmt.Percent(c.New))
	} else {
		format := numfmt.Duration
		switch unit {
		case results.ExplainAllocatedPerRun:
			format = numfmt.Bytes
		case results.ExplainInstructions:
			format = func(x float64) string { return results.FormatCount(x) + " instr" }
		}
		s = fmt.Sprintf("%s%s (%s → %s", numfmt.SignedBy(c.Change, format), interval(format), format(c.Old), format(c.New))
	}
	switch {
	case c.OldCalls != nil && c.NewCalls != nil && *c.OldCalls == 0 && *c.NewCalls == 0 && unit == results.ExplainInstructions:
		// Callgrind counts a call to the function the call entered: a
		// method reached through a stub (a precode's jump, as from code
		// compiled before the method) ran on under the stub's call. Its
		// "0 calls" would be read as never called.
		s += "; entered by a jump, its calls counted to a stub's"
	case c.OldCalls != nil && c.NewCalls != nil:
		s += fmt.Sprintf("; calls/run %s → %s", numfmt.Calls(*c.OldCalls), numfmt.Calls(*c.NewCalls))
		if o, n := *c.OldCalls, *c.NewCalls; unit == results.ExplainInstructions && o > 0 && n > 0 {
			// What a profiler engineer holds a hook to: its cost a call.
			s += fmt.Sprintf("; %s instr a call", numfmt.SignedBy(c.New/n-c.Old/o, func(x float64) string { return fmt.Sprintf("%.1f", x) }))
		}
	}
	s += ")"
	if c.NotShown {
		s += " not shown to differ from 0"
	}
	return s
}

// ExplainBasis says what an explain's figures are, for a note under a table.
func ExplainBasis(unit string) string {
	return explainBasis(unit)
}

// ExplainBasisOf is the basis of change ch's why: its unit, and what part
// of each run it explains.
func ExplainBasisOf(ch *results.Change) string {
	b := explainBasis(ch.ExplainUnit)
	switch ch.ExplainScope {
	case results.ExplainKernel:
		b += "; the kernel alone (between the program's kernel marks)"
	case results.ExplainWholeProcess:
		b += "; the whole process, start-up included (the program marks no kernel, or its engine does not count one apart)"
	}
	return b
}

func explainBasis(unit string) string {
	if unit == "share" {
		return "share of the samples with a managed frame, all measured runs of each side"
	}
	if unit == results.ExplainPerRequest {
		return "self time per request served (mean over each side's measured runs)"
	}
	if unit == results.ExplainAllocatedPerRun {
		return "bytes allocated per run of each type, on the path that allocated most of its change (mean over each side's measured runs; estimates under allocation-sampling)"
	}
	if unit == results.ExplainInstructions {
		return "each function's own instructions in one launch a side under callgrind (the profiler's functions by symbol, .NET methods by the runtime's perf map; code without either by its file, in brackets)"
	}
	if unit == results.ExplainSampledPerRun {
		return "sampled self time per run: a function's self samples times the interval (a thread's CPU time and its waits under sampling, every thread's wall time under suspend-sampling), mean over each side's measured runs"
	}
	return "self time per run (mean over each side's measured runs)"
}
