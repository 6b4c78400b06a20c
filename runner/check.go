package runner

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"vbench/internal/profile"
	"vbench/internal/results"
	"vbench/internal/suite"
)

// check is everything a finished run must show, in this order: a clean
// exit, exactly one valid VBENCH line, the workload's checksum, and in a
// profiled mode a readable profile of the mode's engine. It sets r.Error to
// the first problem. A measured run's profile then feeds the cell: call
// counts checked, coverage noted, the profile kept.
func (l *launch) check(c *cellState, st step, r *results.Run, out Outcome, profDir string) {
	if msg := out.Failure(c.Timeout); msg != "" {
		r.Error = msg
		return
	}
	rep, msg := vbenchLine(out)
	if msg != "" {
		r.Error = msg
		return
	}
	r.ElapsedNs, r.Checksum = rep.ElapsedNs, rep.Checksum
	if msg := l.checkChecksum(c.Workload, rep.Checksum); msg != "" {
		r.Error = msg
		return
	}
	if profDir == "" {
		return
	}
	p, msg := readProfile(profDir, c.Mode.Engine(), out.Profiler)
	if msg != "" {
		r.Error = msg
		return
	}
	if !st.warmup {
		l.useProfile(c, r.Seq, p, rep, profDir)
	}
}

// vbenchLine is the run's one VBENCH line, read.
func vbenchLine(out Outcome) (Report, string) {
	switch len(out.VBENCH) {
	case 0:
		msg := "printed no VBENCH line (want: VBENCH elapsed_ns=<int> checksum=<string>)"
		if out.Stdout != "" {
			msg += "; last output: " + oneLine(out.Stdout)
		}
		return Report{}, msg
	case 1:
	default:
		return Report{}, fmt.Sprintf("printed %d VBENCH lines; want exactly one", len(out.VBENCH))
	}
	rep, err := ParseLine(out.VBENCH[0])
	if err != nil {
		return Report{}, err.Error()
	}
	return rep, ""
}

// checkChecksum compares a run's checksum with the suite's, or with the
// workload's first run when the suite gives none (which it then becomes).
func (l *launch) checkChecksum(w *suite.Workload, got string) string {
	want, ok := l.expected[w.Name]
	if !ok {
		l.expected[w.Name] = got
		return ""
	}
	if got == want {
		return ""
	}
	src := "the suite"
	if w.Checksum == "" {
		src = "earlier runs"
	}
	return fmt.Sprintf("checksum mismatch: got %q, expected %q (from %s)", got, want, src)
}

// readProfile reads the profile a profiled run left in dir, which must be
// one of engine's.
func readProfile(dir string, engine results.Engine, profilerSaid []string) (*profile.Profile, string) {
	p, err := profile.ReadFile(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, noProfile(profilerSaid)
		}
		return nil, "profiler wrote an unreadable profile: " + err.Error()
	}
	if p.Mode != engine {
		return nil, fmt.Sprintf("profile says mode %q, the run asked for %q", p.Mode, engine)
	}
	return p, ""
}

// noProfile explains a profiled run that left no profile, quoting the
// profiler when it said why: never a silent unprofiled run.
func noProfile(said []string) string {
	quote := strings.Join(said, " / ")
	switch {
	case strings.Contains(quote, "running unprofiled"):
		return "profiler did not initialise, so the run was unprofiled: " + quote
	case quote != "":
		return "profiler wrote no profile: " + quote
	}
	return "profiler did not load or wrote no profile (no " + profile.JSONFile + " in VBENCH_PROFILE_DIR)"
}

// checkCalls compares the profile's call counts (all rows named f, summed)
// with the workload's exact expectations.
func checkCalls(c *cellState, seq int, p *profile.Profile, want map[string]int64) {
	if c.accuracy == nil {
		c.accuracy = &results.Accuracy{}
	}
	got := map[string]int64{}
	for _, fn := range p.Functions {
		got[fn.Name] += fn.Calls
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c.accuracy.Checked++
		if got[n] == want[n] {
			c.accuracy.Exact++
		} else if len(c.accuracy.Mismatches) < 10 {
			c.accuracy.Mismatches = append(c.accuracy.Mismatches, results.CallMismatch{Seq: seq, Function: n, Expected: want[n], Actual: got[n]})
		}
	}
}
