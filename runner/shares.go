package runner

import (
	"fmt"
	"math"
	"sort"

	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/stats"
)

// ShareLevel is the probability with which a correct sampler's measured
// share lies in the interval a share check accepts: 99%.
const ShareLevel = 0.99

// ShareDesignEffect is how many samples count as one independent draw in a
// share check, set for the suspending sampler (suspend-sampling), which
// takes wall-clock samples of every thread, so a
// thread that did not run between two ticks (preempted on a busy machine)
// shows the same stack again: samples come in clusters, and their shares
// vary more from run to run than a binomial of as many draws. Measured on
// the 2-core VM under a load of 7-9 (docs/records.md, "Sampled shares"): a
// dispersion (Pearson chi-square over runs per degree of freedom) of 0.65
// to 1.6, and 2.35 with three threads on the two cores at 1 ms. Four
// covers that with room: the check's interval is twice the binomial's width.
const ShareDesignEffect = 4

// shareTally is what a sampling cell keeps of its measured runs' profiles
// for the share checks: counts only, summed over runs.
type shareTally struct {
	started  bool               // a measured run was counted
	expected map[string]float64 // the workload's declaration, from its first measured run
	hits     map[string]int64   // samples whose stack holds the function
	samples  int64              // samples whose stack holds any declared function
}

// stackCounts counts, over every thread of p, the samples whose stack holds
// each function of names (hits), any of them (samples), and two different
// ones (overlap; a partition has none). A stack holding a function several
// times (recursion) counts once: the outermost frame's inclusive samples are
// all the samples through it. Functions are matched by name, every row of a
// name together, as call counts are.
func stackCounts(p *profile.Profile, names map[string]float64) (hits map[string]int64, samples, overlap int64, pair [2]string) {
	hits = map[string]int64{}
	onPath := map[string]int{} // declared functions on the walk's current path, and how many frames of each
	var distinct []string      // the declared functions on the path, outermost first
	for _, t := range p.Threads {
		profile.Walk(t.Roots, func(n *profile.Node, _ int) bool {
			name := p.Functions[n.Fn].Name
			if _, ok := names[name]; !ok {
				return true
			}
			if onPath[name] == 0 {
				hits[name] += n.InclusiveSamples
				switch len(distinct) {
				case 0:
					samples += n.InclusiveSamples
				case 1:
					overlap += n.InclusiveSamples
					if pair[0] == "" && n.InclusiveSamples > 0 {
						pair = [2]string{distinct[0], name}
					}
				}
				distinct = append(distinct, name)
			}
			onPath[name]++
			return true
		}, func(n *profile.Node, _ int) {
			name := p.Functions[n.Fn].Name
			if _, ok := names[name]; !ok {
				return
			}
			if onPath[name]--; onPath[name] == 0 {
				distinct = distinct[:len(distinct)-1]
			}
		})
	}
	return hits, samples, overlap, pair
}

// add counts one measured run's profile against the workload's declared
// shares; it returns why the run cannot be counted ("" when it was): the
// workload declared other shares than in its first run, or stacks hold two
// of the declared functions (they are not a partition of the work).
func (s *shareTally) add(p *profile.Profile, declared map[string]float64) string {
	if !s.started {
		s.started, s.expected, s.hits = true, declared, map[string]int64{}
	} else if !sameShares(s.expected, declared) {
		return fmt.Sprintf("the VBENCH line's shares changed between runs: %s, then %s", orNone(s.expected), orNone(declared))
	}
	if len(declared) == 0 {
		return ""
	}
	hits, samples, overlap, pair := stackCounts(p, declared)
	if overlap > 0 {
		return fmt.Sprintf("%d of the %d samples in the declared shares' functions have both %s and %s on the stack: the share.* functions must not call one another (they partition the sampled work)",
			overlap, samples, pair[0], pair[1])
	}
	for n, k := range hits {
		s.hits[n] += k
	}
	s.samples += samples
	return ""
}

func sameShares(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for n, x := range a {
		if y, ok := b[n]; !ok || x != y {
			return false
		}
	}
	return true
}

func orNone(shares map[string]float64) string {
	if len(shares) == 0 {
		return "none"
	}
	return sharesList(shares)
}

// checks are the cell's share checks, by function name; nil when the
// workload declares no shares.
func (s *shareTally) checks() []results.ShareCheck {
	if len(s.expected) == 0 {
		return nil
	}
	names := make([]string, 0, len(s.expected))
	for n := range s.expected {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]results.ShareCheck, 0, len(names))
	for _, n := range names {
		c := results.ShareCheck{Function: n, Expected: s.expected[n], Hits: s.hits[n], Samples: s.samples}
		if c.Samples > 0 {
			c.Effective = max(1, int64(math.Round(float64(c.Samples)/ShareDesignEffect)))
			lo, hi := stats.BinomialRange(c.Effective, c.Expected, ShareLevel)
			c.Measured = float64(c.Hits) / float64(c.Samples)
			c.Lo, c.Hi = float64(lo)/float64(c.Effective), float64(hi)/float64(c.Effective)
			c.Pass = c.Lo <= c.Measured && c.Measured <= c.Hi
		}
		out = append(out, c)
	}
	return out
}

// firstFailing is the first of checks that did not pass (nil when all
// did) and how many did not: what a cell's failure message names.
func firstFailing[T any](checks []T, pass func(*T) bool) (first *T, failed int) {
	for i := range checks {
		if !pass(&checks[i]) {
			failed++
			if first == nil {
				first = &checks[i]
			}
		}
	}
	return first, failed
}

// sharesFailure is why a cell's share checks fail it ("" when they pass):
// the first failing check, in words, and how many failed.
func sharesFailure(workload string, checks []results.ShareCheck) string {
	first, failed := firstFailing(checks, func(c *results.ShareCheck) bool { return c.Pass })
	if first == nil {
		return ""
	}
	if first.Samples == 0 {
		return fmt.Sprintf("sampled shares unmeasured: workload %s declares shares of %d functions, and no sample's stack held any of them (function %s: expected share %s, 0 samples)",
			workload, len(checks), first.Function, shareText(first.Expected))
	}
	return fmt.Sprintf("sampled shares wrong in %d of %d checks: workload %s, function %s: expected share %s, measured %s (%d of %d samples, counted as %d independent draws; a correct sampler measures %s to %s 99%% of the time)",
		failed, len(checks), workload, first.Function, shareText(first.Expected), shareText(first.Measured), first.Hits, first.Samples, first.Effective, shareText(first.Lo), shareText(first.Hi))
}

// shareText is a share in a message: 0.25, 0.333.
func shareText(x float64) string { return fmt.Sprintf("%.3g", x) }

// ShareChecks is the share check of one profile against declared shares,
// as a sampling cell's runs are checked (ShareLevel, ShareDesignEffect):
// for a profile taken outside a suite (an attach). A reason ("") when the
// profile cannot be counted, as add says.
func ShareChecks(p *profile.Profile, declared map[string]float64) ([]results.ShareCheck, string) {
	var s shareTally
	if why := s.add(p, declared); why != "" {
		return nil, why
	}
	return s.checks(), ""
}
