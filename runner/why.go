package runner

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"vbench/internal/atomicfile"
	"vbench/internal/attach"
	"vbench/internal/instrprof"
	"vbench/internal/profdiff"
	"vbench/internal/results"
	"vbench/internal/verdict"
)

// Why, in instructions: a counted A/B pair that its runs did not show the
// same gets one more launch a side under callgrind, with the runtime's perf
// map on, whose per-function counts (internal/instrprof) say where the
// instructions went: the profiler's own C and Go functions by their
// symbols, the program's .NET methods through the perf map, the runtime's
// unnamed code by its file; a pair whose launches load nothing runs them
// without precompiled code, which the map cannot name (whyEnv). The
// measured runs stay as they were (writing a
// perf map costs instructions of its own, and the whole-program metric runs
// under cachegrind, which cannot name JIT-compiled code): the why launch is
// not one of them. A pair shown the same gets none, so an A/A run costs
// nothing more.

// InstrProfileFile is a counted cell's instruction profile, kept in its
// profile directory (<profiles>/<workload>/<mode>/) when the run keeps
// profiles: a pprof with sample types instructions and calls.
const InstrProfileFile = "instructions.pb.gz"

// unsettled are the counted pairs whose verdict on their runs is not same
// (regressed, improved, inconclusive), neither side failed.
func (a *adaptive) unsettled() []abPair {
	var out []abPair
	for _, p := range a.pairs {
		if !p.new.Metric.Count() || p.new.failure != "" || p.old.failure != "" {
			continue
		}
		old, new := verdict.Rounds(p.old.runsSoFar(), p.new.runsSoFar())
		if len(old) == 0 {
			continue
		}
		opts := a.opts.ForMetric(p.new.Metric)
		if verdict.JudgePair(old, new, p.new.Runs, p.new.MaxRuns, a.family, opts) != results.VerdictSame {
			out = append(out, p)
		}
	}
	return out
}

// whySteps are the why launches of pairs, one a cell (a reference two
// pairs share is launched once), the reference side first. Pairs that
// share a cell are one group; a group whose every cell loads nothing
// into the runtime runs without precompiled code (whyEnv), so that every
// pair's two launches are alike, shared references included, while a
// profiled pair of the same run keeps its own.
func whySteps(pairs []abPair) []step {
	return whyStepsIn(pairs, os.Environ())
}

// whyStepsIn is whySteps in the environment env.
func whyStepsIn(pairs []abPair, env []string) []step {
	// A cell that loads something keeps precompiled code on for every
	// cell a chain of pairs links it to.
	plain := map[*cellState]bool{}
	for _, p := range pairs {
		plain[p.old], plain[p.new] = loadsNothing(p.old, env), loadsNothing(p.new, env)
	}
	for changed := true; changed; {
		changed = false
		for _, p := range pairs {
			if plain[p.old] != plain[p.new] {
				plain[p.old], plain[p.new], changed = false, false, true
			}
		}
	}
	var out []step
	seen := map[*cellState]bool{}
	for _, p := range pairs {
		for _, c := range []*cellState{p.old, p.new} {
			if !seen[c] {
				seen[c] = true
				out = append(out, step{cell: c, why: true, noR2R: plain[c]})
			}
		}
	}
	return out
}

// loadsNothing reports whether c's launches run the program with nothing
// of anyone's in the runtime and its code as the runtime would pick it:
// a mode with no engine, no environment and no wrapper, and an
// environment (env, the shell's, and the workload's) that sets no
// profiler, no EventPipe session, no preload, no ReadyToRun or perf map
// choice. Whether precompiled code is used is part of what a profiler or
// a session costs (one that rewrites methods as they are compiled would
// see every method), so only such a launch may go without it.
func loadsNothing(c *cellState, env []string) bool {
	if c.Spec.Engine != "" || len(c.Spec.Env) > 0 || len(c.Spec.Wrap) > 0 || c.Spec.Attach != nil {
		return false
	}
	for _, kv := range append(slices.Clone(env), c.Workload.Env...) {
		k, _, _ := strings.Cut(kv, "=")
		u := strings.ToUpper(k)
		if attach.LoadsProfiler(k) || u == "LD_PRELOAD" {
			return false
		}
		for _, p := range []string{"DOTNET_", "COMPLUS_"} {
			if name, ok := strings.CutPrefix(u, p); ok && (name == "READYTORUN" || name == "PERFMAPENABLED" || name == "ENABLEEVENTPIPE") {
				return false
			}
		}
	}
	return true
}

// whyEnv is what a why launch adds to env: the runtime's perf map of its
// JIT-compiled code (3: the map alone, no jitdump), written into the run's
// directory; nothing when env turns the map off (DOTNET_PerfMapEnabled=0:
// the user's word is kept, and the why says what it could not name).
// off says so, "" when the map is on.
//
// A pair's launches that load nothing (noR2R: whySteps) also get
// DOTNET_ReadyToRun=0 (r2rOff). The runtime's perf map leaves out precompiled
// (ReadyToRun) code, which valgrind names by no file either: a program's
// why under none left most of the base library unnamed (a word counter
// calling ToUpperInvariant 80,000 times more: 6.2M instructions of
// "[jitted code]", no method named; JIT-compiled, the change named
// TextInfo.ChangeCaseCommon +8.6M). The launch then also compiles what it
// would have loaded (its libclrjit grows), and is dearer (~6x the
// instructions of a small program's). A launch with a profiler keeps its
// precompiled code (loadsNothing).
func whyEnv(env []string, runDir string, noR2R bool) (add []string, off string, r2rOff bool) {
	if off = perfMapOff(env); off != "" {
		return nil, off, false
	}
	add = []string{"DOTNET_PerfMapEnabled=3", "DOTNET_PerfMapJitDumpPath=" + runDir}
	if noR2R {
		add, r2rOff = append(add, "DOTNET_ReadyToRun=0"), true
	}
	return add, "", r2rOff
}

// perfMapOff is env's setting that turns the perf map off, "" when none
// does: the runtime reads DOTNET_PerfMapEnabled, else COMPlus_'s, and an
// environment's last entry of a name is the one a process gets.
func perfMapOff(env []string) string {
	for _, name := range []string{"DOTNET_PerfMapEnabled", "COMPlus_PerfMapEnabled"} {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], name+"="); ok {
				if strings.TrimSpace(v) == "0" {
					return "its environment sets " + name + "=0"
				}
				return ""
			}
		}
	}
	return ""
}

// keepWhy reads a why launch's instruction profile into its cell, and
// keeps it as the cell's InstrProfileFile when the run keeps profiles. A
// launch that failed leaves the cell's why empty, and says so: its
// measured runs were good, and a why is not a verdict.
//
// mapOff is why the launch wrote no perf map when its environment turned
// it off, r2rOff whether it ran without precompiled code (whyEnv).
func (l *launch) keepWhy(c *cellState, r *results.Run, out Outcome, runDir, mapOff string, r2rOff bool) {
	var p *instrprof.Profile
	var err error
	failure := out.Failure(c.Timeout)
	if failure == "" {
		p, err = instrprof.ReadDir(runDir, countFilePrefix, runDir)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case failure != "":
		c.instrErr = "its launch under callgrind " + failure
	case err != nil:
		c.instrErr = err.Error()
	default:
		c.instr = p
		c.noPerfMap = noPerfMap(p, mapOff)
		c.whyR2ROff = r2rOff
		r.Instructions, r.Processes = p.Total, p.Processes
		if l.env.ProfilesDir != "" {
			dst := filepath.Join(l.env.ProfilesDir, c.Workload.Name, string(c.Mode), InstrProfileFile)
			if err := writePprof(dst, p); err != nil {
				l.env.logf("keeping the instruction profile of %s: %v", c.Key(), err)
			}
		}
	}
	if c.instrErr != "" {
		r.Error = "no instruction profile: " + c.instrErr
	}
}

// noPerfMap is why p's JIT-compiled code was left unnamed for want of a
// perf map: "" when a map was read, or when no JIT-compiled code ran (a
// native program has nothing for a map to name).
func noPerfMap(p *instrprof.Profile, mapOff string) string {
	if p.PerfMaps > 0 || !slices.ContainsFunc(p.Funcs, func(f instrprof.Func) bool { return f.Name == instrprof.JittedCode }) {
		return ""
	}
	if mapOff != "" {
		return mapOff
	}
	return "the runtime wrote none (a runtime that does not write DOTNET_PerfMapEnabled's map, or a process that is not .NET's)"
}

// writePprof writes p's pprof to path, whole or not at all.
func writePprof(path string, p *instrprof.Profile) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		return p.Pprof().Write(w) // gzipped by pprof itself
	})
}

// explainCounted gives a counted pair its why from the two sides' why
// launches: the functions whose instructions changed most, with their
// calls where callgrind counted them. false when a side has no profile.
func explainCounted(c, ref *cellState, dir int) (results.Why, bool) {
	if c.instr == nil || ref.instr == nil {
		return results.Why{}, false
	}
	var old, new profdiff.Side
	if ref.instr.AddTo(&old) != nil || c.instr.AddTo(&new) != nil {
		return results.Why{}, false
	}
	d, err := profdiff.Compare(&old, &new)
	if err != nil {
		return results.Why{}, false
	}
	w := results.Why{Explain: contributions(d, ExplainTop, false, dir), Unit: results.ExplainInstructions, Unnamed: unnamed(ref, c)}
	if c.whyR2ROff && ref.whyR2ROff { // decided for the pair (whySteps)
		w.Launch = results.LaunchNoReadyToRun
	}
	return w, true
}

// unnamed is the code the two sides' why launches could not name, by the
// place it ran from; nil when they named all of it.
func unnamed(ref, c *cellState) *results.Unnamed {
	byPlace := map[string]*results.Contribution{}
	var places []*results.Contribution
	for i, side := range []*instrprof.Profile{ref.instr, c.instr} {
		for _, f := range side.UnnamedFuncs() {
			p := byPlace[f.Name]
			if p == nil {
				p = &results.Contribution{Function: f.Name}
				byPlace[f.Name] = p
				places = append(places, p)
			}
			if i == 0 {
				p.Old += float64(f.Self)
			} else {
				p.New += float64(f.Self)
			}
		}
	}
	if len(places) == 0 {
		return nil
	}
	u := &results.Unnamed{OldTotal: float64(ref.instr.Total), NewTotal: float64(c.instr.Total)}
	sort.SliceStable(places, func(i, j int) bool { return places[i].New > places[j].New })
	for _, p := range places {
		p.Change = p.New - p.Old
		u.Places = append(u.Places, *p)
	}
	switch {
	case ref.noPerfMap == c.noPerfMap:
		u.NoPerfMap = c.noPerfMap
	case ref.noPerfMap == "":
		u.NoPerfMap = "the judged launch: " + c.noPerfMap
	case c.noPerfMap == "":
		u.NoPerfMap = "the reference launch: " + ref.noPerfMap
	default:
		u.NoPerfMap = "the reference launch: " + ref.noPerfMap + "; the judged launch: " + c.noPerfMap
	}
	return u
}
