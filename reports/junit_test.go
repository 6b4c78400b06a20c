package reports

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"vbench/internal/results"
)

// A generic reading of JUnit XML, as CI systems parse it.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Time     string `xml:"time,attr"`
		Cases    []struct {
			Classname string `xml:"classname,attr"`
			Name      string `xml:"name,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitOneCasePerCell(t *testing.T) {
	f := readResults(t, "results.json")
	var b bytes.Buffer
	if err := JUnit(&b, f); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "<?xml") {
		t.Error("no XML declaration")
	}
	var doc junitDoc
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d test suites, want 1", len(doc.Suites))
	}
	s := doc.Suites[0]
	if s.Name != f.Suite.Name || len(s.Cases) != len(f.Results) || s.Tests != len(f.Results) || doc.Tests != len(f.Results) {
		t.Fatalf("suite %q with %d cases (tests=%d/%d), want %q with %d", s.Name, len(s.Cases), s.Tests, doc.Tests, f.Suite.Name, len(f.Results))
	}
	wantFail := 0
	for i, c := range f.Results {
		tc := s.Cases[i]
		if tc.Classname != f.Suite.Name || tc.Name != c.Key() {
			t.Errorf("case %d: %s.%s, want %s.%s/%s", i, tc.Classname, tc.Name, f.Suite.Name, c.Workload, c.Mode)
		}
		if strings.ContainsAny(tc.Time, "eE") {
			t.Errorf("%s: time %q in exponent form", tc.Name, tc.Time)
		}
		switch c.Verdict {
		case results.VerdictRegressed:
			wantFail++
			if tc.Failure == nil || tc.Failure.Type != "regression" ||
				tc.Failure.Message != "fibonacci/tracing regressed: elapsed +9.3% (p<0.001) against baselines/default.json" ||
				!strings.HasPrefix(tc.Failure.Text, "45.44s → 49.65s (medians); change +9.3% [+5.5%, +10.5%] in fast-half means (p<0.001); overhead ×111 → ×121\n"+
					"median 49.65s (elapsed) over 10 runs, 95% CI [49.40s, 50.58s]; overhead ×121 [120, 122]") {
				t.Errorf("%s: regression failure %+v", tc.Name, tc.Failure)
			}
		case results.VerdictFailed:
			wantFail++
			if tc.Failure == nil || tc.Failure.Type != "workload-failed" || !strings.Contains(tc.Failure.Message, "Internal CLR error") ||
				strings.Count(tc.Failure.Text, "run #") != f.Results[i].Attempts()-c.Runs {
				t.Errorf("%s: workload failure %+v", tc.Name, tc.Failure)
			}
		default:
			if tc.Failure != nil {
				t.Errorf("%s (%s): unexpected failure %+v", tc.Name, c.Verdict, tc.Failure)
			}
		}
	}
	if s.Failures != wantFail || doc.Failures != wantFail || wantFail != 2 {
		t.Errorf("failures: suite %d, document %d, want %d (one regression, one failed workload)", s.Failures, doc.Failures, wantFail)
	}
}
