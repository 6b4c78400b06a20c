package runner

import (
	"testing"

	"vbench/internal/profdiff"
)

// A why leads with a change shown to differ from zero: a larger one whose
// interval holds zero goes after it (the JSON keeps it, marked). Under
// load a why's first entry was once such a one, which scripts and tests
// read as the why's lead.
func TestContributionsLeadWithAShownChange(t *testing.T) {
	var old, new profdiff.Side
	add := func(s *profdiff.Side, noisy, steady int64) {
		fns := map[string]profdiff.Weight{"Noisy": {Self: noisy, Incl: noisy}, "Steady": {Self: steady, Incl: steady}}
		if err := s.AddRun(profdiff.Nanoseconds, noisy+steady, fns); err != nil {
			t.Fatal(err)
		}
	}
	// Noisy moves by +400 on median with a spread of thousands; Steady
	// by +100 every run.
	for i, n := range []int64{1000, 9000, 2000, 8000, 1500, 8500} {
		add(&old, n, 1000+int64(i))
	}
	for i, n := range []int64{9500, 1200, 8800, 1800, 9000, 2100} {
		add(&new, n, 1100+int64(i))
	}
	d, err := profdiff.Compare(&old, &new)
	if err != nil {
		t.Fatal(err)
	}
	got := Contributions(d, 5, false)
	if len(got) != 2 || got[0].Function != "Steady" || got[0].NotShown || got[1].Function != "Noisy" || !got[1].NotShown {
		t.Errorf("contributions %+v, want Steady shown, then Noisy not shown", got)
	}
}
