package verdict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"vbench/internal/modes"
	"vbench/internal/summary"

	"vbench/internal/results"
	"vbench/stats"
)

// One test's verdict: significant (adjusted p < alpha) and not shown, by
// the 1-alpha interval, to be smaller than the minimum change; same when
// the interval lies within it; inconclusive otherwise.
func TestVerdictOf(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		j        stats.Judgement
		p        float64 // adjusted
		overhead bool
		want     results.Verdict
	}{
		{stats.Judgement{Ratio: 1.04, DecideLo: 1.03, DecideHi: 1.06}, 0.001, false, results.VerdictRegressed}, // could be 6%: counts
		{stats.Judgement{Ratio: 1.04, DecideLo: 1.035, DecideHi: 1.049}, 0.001, false, results.VerdictSame},    // shown under 5%
		{stats.Judgement{Ratio: 1.20, DecideLo: 0.99, DecideHi: 1.40}, 0.02, false, results.VerdictInconclusive},
		{stats.Judgement{Ratio: 1.00, DecideLo: 0.97, DecideHi: 1.03}, 0.3, false, results.VerdictSame}, // no change that counts
		{stats.Judgement{Ratio: 0.96, DecideLo: 0.94, DecideHi: 0.97}, 0.001, false, results.VerdictImproved},
		{stats.Judgement{Ratio: 0.96, DecideLo: 0.955, DecideHi: 0.97}, 0.001, false, results.VerdictSame},
		{stats.Judgement{Ratio: 1.00, DecideLo: 0.95, DecideHi: 1.04}, 0.5, false, results.VerdictInconclusive}, // could be -5%
		// Too few runs for an interval: significance and direction decide,
		// and without significance nothing is settled.
		{stats.Judgement{Ratio: 1.01, DecideLo: nan, DecideHi: nan}, 0.001, false, results.VerdictRegressed},
		{stats.Judgement{Ratio: 1.00, DecideLo: nan, DecideHi: nan}, 1, false, results.VerdictInconclusive},
		// An overhead test can regress a cell, never leave it inconclusive.
		{stats.Judgement{Ratio: 1.20, DecideLo: 0.99, DecideHi: 1.40}, 0.02, true, results.VerdictSame},
	} {
		tt := &test{cell: &results.Cell{Compare: &results.Change{}}, j: c.j, p: c.p, overhead: c.overhead}
		if got := verdictOf(tt, Options{Alpha: 0.01, MinChange: 0.05}); got != c.want {
			t.Errorf("%+v p=%g: %s, want %s", c.j, c.p, got, c.want)
		}
	}
}

// An A/B pair in a run: every round 8% slower is regressed once enough
// rounds are in; fewer rounds leave it inconclusive, saying what it could
// hide; a cell with no run is "not run", never new or same.
func TestApplyAB(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	run := func(n int, factor float64) *results.File {
		f := &results.File{Settings: results.Settings{Alpha: 0.01, Threshold: 0.05,
			ModeSpecs: []modes.Spec{{Name: "tracing", Engine: modes.EngineTracing, Against: "tracing@old"}, {Name: "tracing@old", Engine: modes.EngineTracing}}}}
		old, new := results.Cell{Workload: "w", Mode: "tracing@old", PlannedRuns: n, MaxRuns: n}, results.Cell{Workload: "w", Mode: "tracing", PlannedRuns: n, MaxRuns: n}
		for i := 0; i < n; i++ {
			round := 1e8 * (1 + 0.3*rng.Float64()) // a round-wide disturbance both sides share
			old.Samples = append(old.Samples, results.Run{Seq: 2 * i, ElapsedNs: int64(round * (1 + 0.01*rng.NormFloat64()))})
			new.Samples = append(new.Samples, results.Run{Seq: 2*i + 1, ElapsedNs: int64(factor * round * (1 + 0.01*rng.NormFloat64()))})
		}
		f.Results = []results.Cell{new, old, {Workload: "x", Mode: "tracing", Samples: []results.Run{}}}
		summary.Fill(f)
		Apply(f, nil, OptionsOf(f))
		return f
	}
	f := run(20, 1.08)
	c := f.Find("w", "tracing")
	if c.Verdict != results.VerdictRegressed || !c.Compare.Paired || math.Abs(c.Compare.Ratio-1.08) > 0.01 || c.Compare.Family != 1 {
		t.Errorf("20 rounds 8%% slower: %s %+v", c.Verdict, c.Compare)
	}
	// The OLD twin is what the pair is judged against: reference, never
	// "new", which read as if it were the new build.
	if v := f.Find("w", "tracing@old").Verdict; v != results.VerdictReference {
		t.Errorf("the OLD twin: %s, want reference", v)
	}
	if v := f.Find("x", "tracing").Verdict; v != results.VerdictNotRun {
		t.Errorf("a cell without runs: %s, want not run", v)
	}
	// Three rounds: the signed-rank test cannot reach 0.01 (2/2^3 = 0.25).
	f = run(3, 1.08)
	c = f.Find("w", "tracing")
	if got := results.TooFewRuns(c.Compare.Reason); got != "too few runs (3 vs 3) to reach p < 0.01 over 1 test" {
		t.Errorf("TooFewRuns(%q) = %q", c.Compare.Reason, got)
	}
	c = f.Find("w", "tracing")
	if c.Verdict != results.VerdictInconclusive || !strings.Contains(c.Compare.Reason, "too few runs (3 vs 3)") {
		t.Errorf("3 rounds: %s (%s)", c.Verdict, c.Compare.Reason)
	}
}

// The run is the unit of a verdict: one pair with p = 0.004 regresses
// alone, and not among twenty pairs with nothing to show (Holm: 0.004 x 20).
func TestApplyFamily(t *testing.T) {
	f := &results.File{Settings: results.Settings{Alpha: 0.01, Threshold: 0.05}}
	f.Settings.ModeSpecs = []modes.Spec{{Name: "tracing", Engine: modes.EngineTracing, Against: "tracing@old"}, {Name: "tracing@old", Engine: modes.EngineTracing}}
	// 9 rounds, 8 slower and one 1% faster: W+ = 44 of 45, p = 4/512.
	pair := func(w string, slower bool) []results.Cell {
		old, new := results.Cell{Workload: w, Mode: "tracing@old"}, results.Cell{Workload: w, Mode: "tracing"}
		for i := 0; i < 9; i++ {
			x := 1e8 * (1 + 0.1*float64(i))
			y := x
			if slower {
				y = x * (1.10 + 0.001*float64(i))
				if i == 0 {
					y = x * 0.99
				}
			} else {
				y = x * (1 + 0.001*float64(i%3-1))
			}
			old.Samples = append(old.Samples, results.Run{Seq: 2 * i, ElapsedNs: int64(x)})
			new.Samples = append(new.Samples, results.Run{Seq: 2*i + 1, ElapsedNs: int64(y)})
		}
		return []results.Cell{new, old}
	}
	f.Results = pair("slow", true)
	Apply(f, nil, OptionsOf(f))
	if c := f.Find("slow", "tracing"); c.Verdict != results.VerdictRegressed || math.Abs(c.Compare.P-4.0/512) > 1e-12 {
		t.Fatalf("alone: %s p=%v (%s)", c.Verdict, c.Compare.P, c.Compare.Reason)
	}
	for i := 0; i < 19; i++ {
		f.Results = append(f.Results, pair(string(rune('a'+i)), false)...)
	}
	Apply(f, nil, OptionsOf(f))
	c := f.Find("slow", "tracing")
	if c.Verdict == results.VerdictRegressed || c.Compare.Family != 20 || math.Abs(c.Compare.PAdjusted-20*4.0/512) > 1e-12 {
		t.Errorf("among 20 pairs: %s, adjusted p %v over %d (%s)", c.Verdict, c.Compare.PAdjusted, c.Compare.Family, c.Compare.Reason)
	}
	if !strings.Contains(c.Compare.Reason, "adjusted p=0.156 over 20 tests") {
		t.Errorf("reason does not show the adjustment: %s", c.Compare.Reason)
	}
}

// Undecided: a pair that more rounds could still change gets them; one
// that is significant for the family, or shown within ±min_change, or at
// its cap, does not.
func TestUndecided(t *testing.T) {
	opts := Options{Alpha: 0.01, MinChange: 0.05}
	rounds := func(n int, factor, jitter float64) (old, new []float64) {
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		for i := 0; i < n; i++ {
			old = append(old, 100*(1+jitter*rng.NormFloat64()))
			new = append(new, factor*100*(1+jitter*rng.NormFloat64()))
		}
		return
	}
	o, n := rounds(20, 1.10, 0.01)
	if Undecided(o, n, 20, 60, 40, opts) {
		t.Error("20 rounds all 10% slower: decided (regressed)")
	}
	o, n = rounds(20, 1.00, 0.005)
	if Undecided(o, n, 20, 60, 40, opts) {
		t.Error("20 rounds within 1%: decided (same)")
	}
	o, n = rounds(20, 1.00, 0.10)
	if !Undecided(o, n, 20, 60, 40, opts) {
		t.Error("20 rounds of 10% noise: undecided")
	}
	o, n = rounds(60, 1.00, 0.30)
	if Undecided(o, n, 20, 60, 40, opts) {
		t.Error("at its cap: no more rounds")
	}
}

// noisy draws n run times the way a shared machine gives them: a floor with
// 1% jitter, and in a third of the runs a delay of up to 60% (another
// process took the core).
func noisy(rng *rand.Rand, n int, scale float64) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		x := scale * (1 + 0.01*rng.NormFloat64())
		if rng.IntN(3) == 0 {
			x *= 1 + 0.6*rng.Float64()
		}
		xs[i] = x
	}
	return xs
}

// An A/B pair's runs are paired by the round they ran in: a run of one
// side in a round the other missed (an interruption; a shared OLD cell
// that stopped earlier) is left out, never paired with another round's.
func TestRoundsPairByRound(t *testing.T) {
	runs := func(rounds ...int) *results.Cell {
		c := &results.Cell{}
		for _, r := range rounds {
			c.Samples = append(c.Samples, results.Run{Round: r, ElapsedNs: int64(100 * r)})
		}
		return c
	}
	old, new := Rounds(runs(1, 2, 3, 5), runs(1, 2, 4, 5))
	if fmt.Sprint(old, new) != "[100 200 500] [100 200 500]" {
		t.Errorf("paired %v with %v", old, new)
	}
	// Files without rounds: the k-th runs, as many as both sides have.
	old, new = Rounds(runs(0, 0, 0), runs(0, 0))
	if len(old) != 2 || len(new) != 2 {
		t.Errorf("without rounds: %v, %v", old, new)
	}
}
