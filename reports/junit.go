package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"vbench/internal/modes"
	"vbench/internal/numfmt"
	"vbench/internal/results"
)

// JUnit XML, the test-report format CI systems (GitHub, GitLab, Jenkins)
// display: one test case per cell, named workload/mode in a class named after
// the suite; regressions and workload failures are failures.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Hostname   string          `xml:"hostname,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// junitSkipped marks a cell that is neither a pass nor a failure: never
// run, or inconclusive (CI shows it as skipped, with the reason).
type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit writes f's cells as JUnit XML, with the verdicts the file holds.
func JUnit(w io.Writer, f *results.File) error {
	return renderFiles(w, []*results.File{f}, Options{}, (*Matrix).WriteJUnit)
}

// WriteJUnit writes the newest file's cells as JUnit XML, with the matrix's
// verdicts.
func (m *Matrix) WriteJUnit(w io.Writer) error {
	f := m.Current
	s := junitSuite{
		Name:     f.Suite.Name,
		Hostname: f.Machine.Hostname,
		Properties: []junitProperty{
			{"machine", FingerprintLine(f.Machine)},
			{"runs", fmt.Sprint(f.Settings.Runs)},
			{"warmup", fmt.Sprint(f.Settings.Warmup)},
			{"modes", strings.ReplaceAll(modes.List(f.Settings.Modes), " ", "")},
		},
	}
	if !f.Started.IsZero() {
		s.Timestamp = f.Started.UTC().Format("2006-01-02T15:04:05")
	}
	if m.BaselineName != "" {
		s.Properties = append(s.Properties, junitProperty{"baseline", m.BaselineName})
	}
	if f.Shard != nil {
		s.Properties = append(s.Properties, junitProperty{"shard", fmt.Sprintf("%d/%d", f.Shard.Index, f.Shard.Count)})
	}
	if f.Partial {
		// Interrupted: cells may be missing or hold fewer runs.
		s.Properties = append(s.Properties, junitProperty{"partial", "true"})
	}
	if u := f.UndecidedSentence(); u != "" {
		// A run that decided too little fails as a whole (vbench run exits
		// 1 unless --fail-on regressed): one test case says so.
		s.Properties = append(s.Properties, junitProperty{"undecided", u})
		s.Cases = append(s.Cases, junitCase{Classname: f.Suite.Name, Name: "decided",
			Failure: &junitFailure{Type: "undecided", Message: u, Text: u + " (" + ResultsSummary(f) + "): each inconclusive cell's runs cannot tell no change from a change of the minimum change, so a regression among them would pass unseen; rerun with more --runs or --max-runs on a quieter machine"}})
		s.Failures++
		s.Tests++
	}
	var total float64
	for _, c := range m.Cells() {
		secs := cellSeconds(c.Cell)
		total += secs
		tc := junitCase{Classname: f.Suite.Name, Name: c.Key(), Time: seconds(secs)}
		summary := fmt.Sprintf("median %s (%s) over %d runs", Value(c.Metric, c.MedianNs), c.Metric.OrDefault(), c.Runs)
		if c.CILoNs != 0 {
			lo, hi := c.Metric.Interval(c.CILoNs, c.CIHiNs)
			summary += ", 95% CI " + numfmt.Range(Value(c.Metric, lo), Value(c.Metric, hi))
		} else {
			summary += ", too few runs for a 95% CI"
		}
		if c.HasOverhead() {
			summary += "; overhead " + numfmt.MultipleCI(c.Overhead, c.OverheadLo, c.OverheadHi)
		}
		if cost, _ := costTexts(c.Cell, nil); cost != "" {
			summary += "; cost " + cost
		}
		switch c.Verdict.CI() {
		case results.CIFail:
			tc.Failure = &junitFailure{
				Type:    "regression",
				Message: regressionMessage(c, m.BaselineName),
				Text:    c.ChangeText() + "\n" + summary + whyText(c),
			}
		case results.CIError:
			tc.Failure = &junitFailure{
				Type:    "workload-failed",
				Message: fmt.Sprintf("%s failed: %s", c.Key(), c.failureReason()),
				Text:    c.FailureText() + "\n" + runErrors(c.Cell),
			}
		case results.CISkip:
			tc.Skipped = &junitSkipped{Message: c.Key() + " not run: no measured run (the run was interrupted or stopped before it)"}
		case results.CIUnknown:
			tc.Skipped = &junitSkipped{Message: fmt.Sprintf("%s inconclusive against %s: %s", c.Key(), c.Versus(m.BaselineName), c.Compare.Reason)}
			tc.SystemOut = summary
		default: // passes: same, improved, new, a reference
			tc.SystemOut = summary
			if c.Verdict == results.VerdictReference {
				tc.SystemOut += "\nreference: what an A/B pair is judged against; it gets no verdict of its own"
			} else if c.Compare != nil {
				tc.SystemOut += "\n" + string(c.Verdict) + " against " + c.Versus(m.BaselineName) + ": " + c.ChangeText()
			}
		}
		if tc.Failure != nil {
			s.Failures++
		}
		if tc.Skipped != nil {
			s.Skipped++
		}
		s.Tests++
		s.Cases = append(s.Cases, tc)
	}
	cases, failures := complexityCases(f)
	s.Cases, s.Failures, s.Tests = append(s.Cases, cases...), s.Failures+failures, s.Tests+len(cases)
	s.Time = seconds(total)
	doc := junitSuites{Name: "vbench", Tests: s.Tests, Failures: s.Failures, Time: s.Time, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// cellSeconds is how long a cell's launches took, warmups included.
func cellSeconds(c *results.Cell) float64 {
	var ns int64
	for _, r := range c.Samples {
		ns += r.WallNs
	}
	return float64(ns) / 1e9
}

// seconds formats a JUnit time: plain decimal seconds, never an exponent.
func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// runErrors lists the failed runs of a cell, one per line.
func runErrors(c *results.Cell) string {
	var b strings.Builder
	for _, r := range c.Samples {
		if r.Error == "" {
			continue
		}
		fmt.Fprintf(&b, "run #%d: %s", r.Seq, oneLine(r.Error))
		if r.ExitCode != 0 {
			fmt.Fprintf(&b, " (exit code %d", r.ExitCode)
			if r.Signal != "" {
				fmt.Fprintf(&b, ", %s", r.Signal)
			}
			b.WriteString(")")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// whyText is a regressed A/B pair's explain for its failure text, one
// function a line; "" when it has none.
func whyText(c *Cell) string {
	if !Explained(c.Verdict, c.Compare) {
		return ""
	}
	s := "\nwhy (" + ExplainBasisOf(c.Compare) + "):"
	names := ExplainNames(c.Compare.Explain)
	for i, f := range c.Compare.Explain {
		s += "\n  " + names[i] + " " + ContributionText(c.Compare.ExplainUnit, f)
	}
	if u := UnnamedText(c.Compare); u != "" {
		s += "\n  not named: " + u
	}
	if l := LaunchText(c.Compare); l != "" {
		s += "\n  " + l
	}
	return s
}

// regressionMessage names what regressed, each by its metric: the time
// ("fib/tracing regressed: elapsed +8.1% (p=0.002) against tracing@old"),
// the measures that did, and the time's change said to be no regression
// when it was not one ("app/agent regressed: rss +95.37MiB (×1.90);
// elapsed +0.3% (p=0.540) same against none").
func regressionMessage(c *Cell, baselineName string) string {
	metric := string(c.Metric.OrDefault())
	t := metric + " " + numfmt.ChangeP(c.Compare.Ratio, c.Compare.P)
	var parts []string
	if c.TimeMoved() {
		parts = append(parts, t)
	}
	if c.Compare.OverheadVerdict == results.VerdictRegressed {
		parts = append(parts, "overhead "+numfmt.ChangeP(c.Compare.OverheadRatio, c.Compare.OverheadP))
	}
	if r := MeasureRegression(c.Cell); r != "" {
		parts = append(parts, r)
	}
	s := fmt.Sprintf("%s regressed: %s", c.Key(), strings.Join(parts, ", "))
	if !c.TimeMoved() {
		tv := string(c.Compare.TimeVerdict) // same, inconclusive
		if tv == "" {
			tv = "not a regression"
		}
		s += "; " + t + " " + tv
	}
	return s + " against " + c.Versus(baselineName)
}
