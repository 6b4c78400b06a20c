//go:build vbenchstudy

// A statistical study (make study): it launches nothing, takes minutes, and
// measures the rule on simulated or recorded data rather than checking a
// behaviour, so `make test` leaves it to `make study`, which CI also runs.

package verdict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"vbench/internal/modes"

	"gonum.org/v1/gonum/stat/distuv"

	"vbench/internal/results"
	"vbench/stats"
)

// The whole rule, simulated: A/A pairs (both sides drawn from one
// distribution) run as a run runs them — 20 rounds planned, adaptive
// rounds at the looks stats.Looks fixes up to 60 while verdict.Undecided
// says so — then judged by Apply, one pair alone and forty in one run (the
// pull-request job's 10 workloads x 4 engine modes). Normal, lognormal and
// bimodal noise, each with round-wide episodes that hit both sides of a
// round. Seeded: the same numbers every time.
//
// Fails when a pair's A/A rate of "regressed" or "improved" exceeds alpha
// beyond its binomial margin, or a 40-pair run's rate of any such verdict
// exceeds the family's alpha beyond its margin.
func TestSimulatedAAErrorControl(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 10,000 pairs")
	}
	opts := Options{Alpha: 0.01, MinChange: 0.05}
	const planned, maxRuns = 20, 60
	const pairTrials, runTrials, pairsPerRun = 2000, 300, 40
	noises := []struct {
		name string
		draw func(rng *rand.Rand) float64 // one run's time, around 1
	}{
		{"normal (CV 5%)", func(rng *rand.Rand) float64 { return 1 + 0.05*rng.NormFloat64() }},
		{"lognormal (σ 0.2)", func(rng *rand.Rand) float64 { return math.Exp(0.2 * rng.NormFloat64()) }},
		{"bimodal (30% of runs 1.3x)", func(rng *rand.Rand) float64 {
			x := 1 + 0.02*rng.NormFloat64()
			if rng.Float64() < 0.3 {
				x *= 1.3
			}
			return x
		}},
	}
	for ni, nz := range noises {
		// simulate runs one A/A pair as the runner would, family pairs in
		// the run, and returns its cells.
		simulate := func(rng *rand.Rand, w string, family int) []results.Cell {
			var old, new []float64
			episode := 1.0
			addRound := func() {
				if rng.Float64() < 0.1 { // a host episode: the next rounds slower
					episode = 1 + 0.4*rng.Float64()
				} else if rng.Float64() < 0.3 {
					episode = 1
				}
				old = append(old, episode*nz.draw(rng))
				new = append(new, episode*nz.draw(rng))
			}
			for len(old) < planned {
				addRound()
			}
			for _, look := range stats.Looks(planned, maxRuns)[1:] {
				if !Undecided(old, new, planned, maxRuns, family, opts) {
					break
				}
				for len(old) < look {
					addRound()
				}
			}
			o := results.Cell{Workload: w, Mode: "tracing@old", PlannedRuns: planned, MaxRuns: maxRuns}
			n := results.Cell{Workload: w, Mode: "tracing", PlannedRuns: planned, MaxRuns: maxRuns}
			for i := range old {
				o.Samples = append(o.Samples, results.Run{Seq: 2 * i, ElapsedNs: int64(1e9 * old[i])})
				n.Samples = append(n.Samples, results.Run{Seq: 2*i + 1, ElapsedNs: int64(1e9 * new[i])})
			}
			return []results.Cell{n, o}
		}
		file := func(cells []results.Cell) *results.File {
			f := &results.File{Settings: results.Settings{Alpha: opts.Alpha, Threshold: opts.MinChange,
				ModeSpecs: []modes.Spec{{Name: "tracing", Engine: modes.EngineTracing, Against: "tracing@old"}, {Name: "tracing@old", Engine: modes.EngineTracing}}},
				Results: cells}
			Apply(f, nil, opts)
			return f
		}
		falseOf := func(f *results.File) int {
			n := 0
			for _, c := range f.Results {
				if c.Verdict == results.VerdictRegressed || c.Verdict == results.VerdictImproved {
					n++
				}
			}
			return n
		}
		var pairAlarms, runAlarms, inconclusive, runsTaken int
		var mu sync.Mutex
		var wg sync.WaitGroup
		for g := 0; g < 2; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := g; i < pairTrials; i += 2 {
					rng := rand.New(rand.NewPCG(uint64(ni), uint64(i)))
					f := file(simulate(rng, "w", 1))
					mu.Lock()
					pairAlarms += falseOf(f)
					runsTaken += len(f.Results[0].Values())
					if f.Results[0].Verdict == results.VerdictInconclusive {
						inconclusive++
					}
					mu.Unlock()
				}
				for i := g; i < runTrials; i += 2 {
					rng := rand.New(rand.NewPCG(uint64(ni), uint64(1_000_000+i)))
					var cells []results.Cell
					for p := 0; p < pairsPerRun; p++ {
						cells = append(cells, simulate(rng, fmt.Sprint("w", p), pairsPerRun)...)
					}
					if falseOf(file(cells)) > 0 {
						mu.Lock()
						runAlarms++
						mu.Unlock()
					}
				}
			}(g)
		}
		wg.Wait()
		t.Logf("%s: a pair alone %d/%d false (%d inconclusive, %.1f runs a side on average); runs of %d pairs with any false verdict %d/%d",
			nz.name, pairAlarms, pairTrials, inconclusive, float64(runsTaken)/pairTrials, pairsPerRun, runAlarms, runTrials)
		if limit := upper(pairTrials, opts.Alpha); pairAlarms > limit {
			t.Errorf("%s: a pair alone judged regressed or improved %d/%d times: above alpha %g beyond its binomial margin (at most %d)", nz.name, pairAlarms, pairTrials, opts.Alpha, limit)
		}
		if limit := upper(runTrials, opts.Alpha); runAlarms > limit {
			t.Errorf("%s: %d/%d runs of %d A/A pairs reported a change: above the family's alpha %g beyond its binomial margin (at most %d)", nz.name, runAlarms, runTrials, pairsPerRun, opts.Alpha, limit)
		}
	}
}

// upper is the largest count Binomial(n, p) reaches with probability
// above 0.001: a count beyond it says the rate exceeds p.
func upper(n int, p float64) int {
	b := distuv.Binomial{N: float64(n), P: p}
	k := 0
	for 1-b.CDF(float64(k)) > 0.001 {
		k++
	}
	return k
}
