package reports

// The complexity lines every output carries: each scaled workload's growth
// class under each mode (and its functions' that grow), and the verdict on
// a series that changed (results.Growth, internal/verdict's complexity).

import (
	"fmt"
	"strings"

	"vbench/internal/results"
)

// maxGrowthFunctions bounds the functions named per scaled group.
const maxGrowthFunctions = 8

// ComplexityLines are the notes on f's growth series: one line of models
// per scaled workload and mode, then one per series whose verdict is not
// same ("complexity regressed: sort/tracing Sort.Insert: n → n² (…)").
func ComplexityLines(f *results.File) []string {
	var groups []string
	models := map[string][]string{}
	funcs := map[string]int{}
	for _, g := range f.Complexity {
		k := g.Workload + "/" + string(g.Mode)
		if models[k] == nil {
			groups = append(groups, k)
		}
		switch {
		case g.Overhead:
			models[k] = append(models[k], fmt.Sprintf("overhead %s (R² %.3f)", g.Model.Class, g.Model.R2))
		case g.Function == "":
			models[k] = append(models[k], fmt.Sprintf("cost %s (R² %.3f)", g.Model.Class, g.Model.R2))
		case funcs[k] < maxGrowthFunctions:
			models[k] = append(models[k], fmt.Sprintf("%s: %s", g.Subject(), g.Model.Class))
			funcs[k]++
		case funcs[k] == maxGrowthFunctions:
			models[k] = append(models[k], "…")
			funcs[k]++
		}
	}
	var out []string
	for _, k := range groups {
		out = append(out, "complexity "+k+": "+strings.Join(models[k], ", "))
	}
	return append(out, ComplexityVerdicts(f)...)
}

// ComplexityVerdicts are the lines of the growth series whose verdict is
// not same: what `vbench report` shows among its warnings.
func ComplexityVerdicts(f *results.File) []string {
	var out []string
	for _, g := range f.Complexity {
		switch g.Verdict {
		case results.VerdictRegressed, results.VerdictImproved, results.VerdictInconclusive:
			out = append(out, fmt.Sprintf("complexity %s: %s", g.Verdict, g.Sentence))
		}
	}
	return out
}

// complexityCases are JUnit's test cases of the growth series with a
// verdict: a regressed one fails.
func complexityCases(f *results.File) (cases []junitCase, failures int) {
	for _, g := range f.Complexity {
		if g.Verdict == "" {
			continue
		}
		tc := junitCase{Classname: f.Suite.Name, Name: "complexity " + g.Name(), SystemOut: g.Sentence}
		if g.Verdict == results.VerdictRegressed {
			tc.Failure = &junitFailure{Type: "complexity", Message: "complexity regressed: " + g.Sentence, Text: g.Sentence}
			failures++
		}
		cases = append(cases, tc)
	}
	return cases, failures
}
