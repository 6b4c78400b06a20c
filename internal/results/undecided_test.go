package results

import (
	"fmt"
	"testing"
)

// A run says it decided too little when more than a quarter of its A/B
// pairs are inconclusive: exactly a quarter is enough; cells judged against
// a baseline, references and failed cells are not pairs.
func TestUndecidedSentence(t *testing.T) {
	file := func(inconclusive, decided int) *File {
		f := &File{}
		add := func(v Verdict, ch *Change) { f.Results = append(f.Results, Cell{Verdict: v, Compare: ch}) }
		for i := 0; i < inconclusive; i++ {
			add(VerdictInconclusive, &Change{Against: "tracing@old"})
		}
		for i := 0; i < decided; i++ {
			add([]Verdict{VerdictSame, VerdictRegressed, VerdictImproved}[i%3], &Change{AgainstWorkload: "base"})
		}
		add(VerdictInconclusive, &Change{}) // against a baseline
		add(VerdictReference, nil)
		add(VerdictFailed, nil)
		return f
	}
	for _, c := range []struct {
		inconclusive, decided int
		want                  string
	}{
		{4, 12, ""},
		{5, 12, "this run cannot show that nothing regressed: 5 of 17 pairs inconclusive"},
		{12, 5, "this run cannot show that nothing regressed: 12 of 17 pairs inconclusive"},
		{0, 0, ""},
		{1, 0, "this run cannot show that nothing regressed: 1 of 1 pairs inconclusive"},
	} {
		if got := file(c.inconclusive, c.decided).UndecidedSentence(); got != c.want {
			t.Errorf("%s: %q, want %q", fmt.Sprint(c.inconclusive, " of ", c.inconclusive+c.decided), got, c.want)
		}
	}
}

// An undecided run also says how far its inconclusive pairs are from a
// verdict: the widest change any could hide, and the rounds the median
// pair would need at its noise for ±min_change (n x (hides/min_change)^2,
// rounded up to 5): here 10 rounds hiding ±10% need 40 at ±5%.
func TestUndecidedSentenceSaysWhatMoreRoundsWouldTake(t *testing.T) {
	f := &File{Settings: Settings{Threshold: 0.05}}
	runs := make([]Run, 10)
	for i := range runs {
		runs[i] = Run{Round: i + 1, ElapsedNs: 1e6}
	}
	for i, h := range []float64{0.10, 0.10, 0.20, 0.10, 0} {
		f.Results = append(f.Results, Cell{Workload: fmt.Sprint("w", i), Verdict: VerdictInconclusive, Samples: runs,
			Compare: &Change{Against: "tracing@old", Hides: h}})
	}
	want := "this run cannot show that nothing regressed: 5 of 5 pairs inconclusive, which could hide changes up to ±20.0%; at this noise ±5% takes ~40 rounds a pair"
	if got := f.UndecidedSentence(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
