package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The exact signed-rank distribution against brute force over every sign
// pattern, for small n.
func TestSignedRankExact(t *testing.T) {
	for n := 1; n <= 10; n++ {
		top := n * (n + 1) / 2
		counts := make([]float64, top+1)
		for mask := 0; mask < 1<<n; mask++ {
			w := 0
			for r := 1; r <= n; r++ {
				if mask&(1<<(r-1)) != 0 {
					w += r
				}
			}
			counts[w]++
		}
		acc := 0.0
		d := signedRankOf(n)
		for w, c := range counts {
			acc += c / float64(int(1)<<n)
			if math.Abs(d.cdf[w]-acc) > 1e-12 {
				t.Fatalf("n=%d: P(W+ <= %d) = %v, brute force %v", n, w, d.cdf[w], acc)
			}
		}
	}
	// Every difference of one sign: the smallest p, 2/2^n.
	if p := SignedRankP([]float64{1, 2, 3, 4, 5}); math.Abs(p-2.0/32) > 1e-12 || p != MinSignedRankP(5) {
		t.Errorf("five positive differences: p = %v, want 2/32", p)
	}
	// Symmetric differences: W+ at its mean, p = 1.
	if p := SignedRankP([]float64{-2, -1, 1, 2}); p != 1 {
		t.Errorf("symmetric differences: p = %v", p)
	}
	// Zeros are dropped; all zeros: nothing to test.
	if p := SignedRankP([]float64{0, 0, 1, 2, 3, 4, 5}); math.Abs(p-2.0/32) > 1e-12 {
		t.Errorf("zeros dropped: p = %v", p)
	}
	if p := SignedRankP([]float64{0, 0}); p != 1 {
		t.Errorf("all zeros: p = %v", p)
	}
}

func TestHodgesLehmannInterval(t *testing.T) {
	// Walsh averages of 1, 2, 3: 1, 1.5, 2, 2, 2.5, 3; median 2.
	if hl := HodgesLehmann([]float64{3, 1, 2}); hl != 2 {
		t.Errorf("HL = %v", hl)
	}
	// n = 10 at 95%: k = 9 (P(W+ <= 8) = 0.0244 <= 0.025 < P(W+ <= 9)):
	// the 9th smallest and 9th largest of the 55 Walsh averages.
	d := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	w := walsh(d)
	lo, hi := SignedRankInterval(d, 0.95)
	if lo != w[8] || hi != w[len(w)-9] {
		t.Errorf("interval [%v, %v], want [%v, %v]", lo, hi, w[8], w[len(w)-9])
	}
	// Too few differences for the confidence: unbounded.
	if lo, hi := SignedRankInterval([]float64{1, 2}, 0.99); !math.IsInf(lo, -1) || !math.IsInf(hi, 1) {
		t.Errorf("two differences at 99%%: [%v, %v]", lo, hi)
	}
	// Coverage: the 95% interval of a shift of 0.3 in noise holds it in
	// about 95% of samples (at least 95%: the exact interval is conservative).
	rng := rand.New(rand.NewPCG(1, 2))
	hits, trials := 0, 4000
	for i := 0; i < trials; i++ {
		x := make([]float64, 15)
		for k := range x {
			x[k] = 0.3 + rng.NormFloat64()
		}
		if lo, hi := SignedRankInterval(x, 0.95); lo <= 0.3 && 0.3 <= hi {
			hits++
		}
	}
	// 95% of 4000 = 3800, binomial sd 13.8: 3 sd below.
	if hits < 3759 {
		t.Errorf("95%% interval covered the shift %d/%d times", hits, trials)
	}
}

func TestJudgePaired(t *testing.T) {
	old := []float64{100, 120, 90, 110, 105, 130, 95, 100, 115, 108}
	new := make([]float64, len(old))
	for i, x := range old {
		new[i] = x * 1.08
	}
	j := JudgePaired(old, new, 0.01)
	if !j.Paired || math.Abs(j.Ratio-1.08) > 1e-9 || math.Abs(j.P-2.0/1024) > 1e-12 || math.Abs(j.Lo-1.08) > 1e-9 {
		t.Errorf("every round 8%% slower: %+v", j)
	}
	// A round-wide episode (round 3 twice as slow on both sides) changes nothing.
	old[3], new[3] = 2*old[3], 2*new[3]
	if k := JudgePaired(old, new, 0.01); math.Abs(k.Ratio-1.08) > 1e-9 || k.P != j.P {
		t.Errorf("an episode moved the paired judgement: %+v", k)
	}
	// Unequal sides or a zero time: the unpaired rule.
	if k := JudgePaired(old, new[:9], 0.01); k.Paired {
		t.Errorf("unequal sides judged paired")
	}
	if k := JudgePaired([]float64{0, 0, 0}, []float64{0, 0, 0}, 0.01); k.Paired {
		t.Errorf("zero times judged paired")
	}
}

func TestLooksAndSpending(t *testing.T) {
	if got := Looks(20, 60); !slices.Equal(got, []int{20, 30, 40, 50, 60}) {
		t.Errorf("Looks(20, 60) = %v", got)
	}
	if got := Looks(10, 10); !slices.Equal(got, []int{10}) {
		t.Errorf("Looks(10, 10) = %v", got)
	}
	if got := Looks(6, 18); !slices.Equal(got, []int{6, 9, 12, 15, 18}) {
		t.Errorf("Looks(6, 18) = %v", got)
	}
	if got := LooksTaken(20, 60, 35); !slices.Equal(got, []int{20, 30, 35}) {
		t.Errorf("LooksTaken(20, 60, 35) = %v", got)
	}
	// The shares of alpha sum to 1 over the looks.
	sum, prev := 0.0, 0.0
	for _, n := range Looks(20, 60) {
		sum += Spent(n, 60) - prev
		prev = Spent(n, 60)
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("shares sum to %v", sum)
	}
	// One look: the p-value itself.
	if p := SequentialP([]int{20}, []float64{0.003}, 20); p != 0.003 {
		t.Errorf("one look: %v", p)
	}
	// Two looks at 20 and 30 of 30: shares 4/9 and 5/9.
	if p := SequentialP([]int{20, 30}, []float64{0.004, 0.01}, 30); math.Abs(p-0.009) > 1e-12 {
		t.Errorf("two looks: %v, want 0.004/(4/9) = 0.009", p)
	}
}

func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
	if got := Holm([]float64{0.5, 0.9}); got[0] != 1 || got[1] != 1 {
		t.Errorf("capped at 1: %v", got)
	}
}

// With ties the p-value is still exact: brute force over every sign
// pattern of the mean ranks agrees.
func TestSignedRankPExactWithTies(t *testing.T) {
	d := []float64{1, -1, 2, 3, 3, -3, 4, 0}
	ranks := []float64{1.5, 1.5, 3, 5, 5, 5, 7} // of |d| without the zero
	signs := []bool{true, false, true, true, true, false, true}
	w := 0.0
	for i, r := range ranks {
		if signs[i] {
			w += r
		}
	}
	total := 28.0
	lo := math.Min(w, total-w)
	hits := 0
	for mask := 0; mask < 1<<len(ranks); mask++ {
		s := 0.0
		for i, r := range ranks {
			if mask&(1<<i) != 0 {
				s += r
			}
		}
		if s <= lo+1e-9 {
			hits++
		}
	}
	want := math.Min(1, 2*float64(hits)/float64(int(1)<<len(ranks)))
	if got := SignedRankP(d); math.Abs(got-want) > 1e-12 {
		t.Errorf("SignedRankP with ties = %v, brute force %v", got, want)
	}
}
