package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"vbench/internal/attach"
	"vbench/internal/lines"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
)

// The line tests' program (profiler/testdata/lines), a program the profiler
// was not written against: Work.Split's two loops split its work 3:1 on the
// lines marked HOT and COLD; Work.Half's line HALF runs exactly n/2 times.
// It is built in variants (a copy of the project per variant, so builds
// never share obj/): its portable PDB beside it, embedded with a path map,
// without symbols, and with another build's PDB beside it.

var (
	lineBuildsMu sync.Mutex
	lineBuilds   = map[string]*lineBuild{}
)

type lineBuild struct {
	once sync.Once
	dll  string
	err  error
	out  []byte
}

// lineProgram builds variant name with the extra msbuild properties and
// returns its dll; prepend lines are added above the source (to make
// another build whose lines differ).
func lineProgram(t *testing.T, name string, prepend string, props ...string) string {
	t.Helper()
	return testProject(t, "lines", "Lines.csproj", "LineSplit.dll", name, prepend, props...)
}

// testProject builds variant name of the project in profiler/testdata/<dir>
// (its csproj and Program.cs) and returns the dll.
func testProject(t *testing.T, dir, csproj, dllName, name string, prepend string, props ...string) string {
	t.Helper()
	name = dir + "-" + name
	dotnet := testbin.Dotnet(t)
	lineBuildsMu.Lock()
	b := lineBuilds[name]
	if b == nil {
		b = &lineBuild{}
		lineBuilds[name] = b
	}
	lineBuildsMu.Unlock()
	b.once.Do(func() {
		tmp, err := os.MkdirTemp("", "vbench-"+name+"-")
		if b.err = err; err != nil {
			return
		}
		src := filepath.Join(testbin.RepoRoot(), "profiler", "testdata", dir)
		for _, f := range []string{csproj, "Program.cs"} {
			data, err := os.ReadFile(filepath.Join(src, f))
			if b.err = err; err != nil {
				return
			}
			if f == "Program.cs" {
				data = append([]byte(prepend), data...)
			}
			if b.err = os.WriteFile(filepath.Join(tmp, f), data, 0o644); b.err != nil {
				return
			}
		}
		args := append([]string{"build", filepath.Join(tmp, csproj), "-c", "Release", "-nologo", "-v", "quiet",
			"--disable-build-servers", "-nodeReuse:false", "-o", filepath.Join(tmp, "out")}, props...)
		cmd := exec.Command(dotnet, args...)
		cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1")
		b.out, b.err = cmd.CombinedOutput()
		b.dll = filepath.Join(tmp, "out", dllName)
	})
	if b.err != nil {
		t.Fatalf("building the test program (%s): %v\n%s", name, b.err, b.out)
	}
	return b.dll
}

// markerLine is the line of Program.cs marked "// MARK".
func markerLine(t *testing.T, mark string) int {
	return testbin.MarkedLine(t, "profiler/testdata/lines/Program.cs", mark)
}

// profileLines runs dll under engine with lines on and resolves its lines
// as vbench profile does.
func profileLines(t *testing.T, engine modes.Engine, dll string, extra []string, args ...string) *profile.Profile {
	t.Helper()
	p, err := profile.ReadFile(runLines(t, engine, dll, extra, args...))
	if err != nil {
		t.Fatal(err)
	}
	if err := lines.Resolve(context.Background(), p); err != nil {
		t.Fatalf("resolving lines: %v", err)
	}
	return p
}

// runLines runs dll under engine with lines on and returns its profile's
// directory, its lines not yet resolved.
func runLines(t *testing.T, engine modes.Engine, dll string, extra []string, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	env := attach.Env(lib(t), attach.Options{Engine: engine, ProfileDir: dir, Settings: modes.ProfilerSettings{Lines: true}})
	cmd := exec.Command(testbin.Dotnet(t), append([]string{dll}, args...)...)
	cmd.Env = append(append(attach.ScrubEnv(os.Environ()), env...), extra...)
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s under %s: %v\n%s", dll, engine, err, se.String())
	}
	pdir := testapp.ProcessDir(t, dir)
	if _, err := profile.ReadFile(pdir); err != nil {
		t.Fatalf("reading the profile: %v\nstderr:\n%s", err, se.String())
	}
	return pdir
}

// One helper run maps a sampled and an instrumented profile (vbench profile
// maps every process of a run at once) as a helper run for each does.
func TestResolveAllAsEach(t *testing.T) {
	dll := lineProgram(t, "portable", "")
	sdir := runLines(t, modes.EngineSampling, dll, []string{modes.EnvVar("interval") + "=1ms"}, "300")
	cdir := runLines(t, modes.EngineInstrumentation, dll, nil, "50", "1001")
	read := func(dir string) *profile.Profile {
		p, err := profile.ReadFile(dir)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	sampled, counted, s2, c2 := read(sdir), read(cdir), read(sdir), read(cdir)
	ctx := context.Background()
	for _, p := range []*profile.Profile{sampled, counted} {
		if err := lines.Resolve(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := lines.ResolveAll(ctx, s2, c2); err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]*profile.Profile{{sampled, s2}, {counted, c2}} {
		if len(pair[0].Executions) == 0 && lineSamples(fnLines(t, pair[0], "LineSplit.Work.Split"), markerLine(t, "HOT")) == 0 {
			t.Errorf("%s: no lines resolved: %+v", pair[0].Mode, fnLines(t, pair[0], "LineSplit.Work.Split").Lines)
		}
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s: one helper for both resolved otherwise than one for each:\n%+v\n%+v", pair[0].Mode, pair[0].Functions, pair[1].Functions)
		}
	}
}

func fnLines(t *testing.T, p *profile.Profile, name string) *profile.Function {
	t.Helper()
	f := p.Function(name)
	if f == nil {
		t.Fatalf("no function %s in the profile", name)
	}
	return f
}

func lineSamples(f *profile.Function, line int) int64 {
	for _, l := range f.Lines {
		if l.Line == line && l.File == "" {
			return l.Samples
		}
	}
	return 0
}

// TestSamplingLinesSplit: the 1 ms sampler's line samples within Split
// split 3:1 between its two loops' lines (0.75 ± 0.08), and go tool pprof
// -list shows the source with the samples beside the hot line.
func TestSamplingLinesSplit(t *testing.T) {
	dll := lineProgram(t, "portable", "")
	p := profileLines(t, modes.EngineSampling, dll, []string{modes.EnvVar("interval") + "=1ms"}, "1500")
	f := fnLines(t, p, "LineSplit.Work.Split")
	hot, cold := lineSamples(f, markerLine(t, "HOT")), lineSamples(f, markerLine(t, "COLD"))
	share := float64(hot) / float64(hot+cold)
	t.Logf("Split: %d samples, HOT %d, COLD %d: %.3f; lines %+v", f.ExclusiveSamples, hot, cold, share, f.Lines)
	if hot+cold < 200 || math.Abs(share-0.75) > 0.08 {
		t.Errorf("HOT's share of HOT+COLD %.3f (%d, %d), want 0.75 ± 0.08 on at least 200 samples", share, hot, cold)
	}
	if filepath.Join(filepath.Dir(filepath.Dir(dll)), "Program.cs") != f.File || f.Line <= 0 || f.Line >= markerLine(t, "HOT") {
		t.Errorf("Split's file and first line: %q:%d", f.File, f.Line)
	}
	for _, w := range p.Warnings {
		if strings.HasPrefix(w, "lines:") {
			t.Errorf("unexpected note: %s", w)
		}
	}

	// pprof -list, from the Go toolchain that runs this test.
	pb := filepath.Join(t.TempDir(), "profile.pb.gz")
	var buf bytes.Buffer
	if err := p.WritePprof(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "pprof", "-list", `Work\.Split`, pb).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -list: %v\n%s", err, out)
	}
	// The hot line's row: flat and cum beside the source text.
	row := regexp.MustCompile(`(?m)^\s+([\d.]+)(?:ms|s)\s+[\d.]+(?:ms|s)\s+` + strconv.Itoa(markerLine(t, "HOT")) + `:.*// HOT$`)
	m := row.FindSubmatch(out)
	if m == nil || strings.Trim(string(m[1]), "0.") == "" {
		t.Errorf("pprof -list shows no samples beside the HOT line:\n%s", out)
	}
}

// Embedded PDBs work, and a path-mapped (deterministic) build's functions
// show the paths its PDB recorded.
func TestLinesEmbeddedPathMapped(t *testing.T) {
	src := filepath.Join(os.TempDir()) // the copies live under the temp dir; map it all
	dll := lineProgram(t, "embedded", "", "-p:DebugType=embedded", "-p:PathMap="+src+"=/_/")
	if _, err := os.Stat(strings.TrimSuffix(dll, ".dll") + ".pdb"); err == nil {
		t.Fatalf("an embedded build wrote a .pdb beside %s", dll)
	}
	p := profileLines(t, modes.EngineSampling, dll, []string{modes.EnvVar("interval") + "=1ms"}, "500")
	f := fnLines(t, p, "LineSplit.Work.Split")
	if !strings.HasPrefix(f.File, "/_/") || !strings.HasSuffix(f.File, "/Program.cs") {
		t.Errorf("Split's file %q, want the mapped path /_/…/Program.cs", f.File)
	}
	if lineSamples(f, markerLine(t, "HOT")) == 0 {
		t.Errorf("no samples on the HOT line: %+v", f.Lines)
	}
}

// A PDB from another build (its lines shifted by two) beside the module is
// detected and ignored with a note: no line of it is used.
func TestLinesMismatchedPDBIgnored(t *testing.T) {
	good := lineProgram(t, "portable", "")
	other := lineProgram(t, "shifted", "// another build\n// of the same program\n")
	dir := t.TempDir()
	for _, f := range []string{"LineSplit.dll", "LineSplit.runtimeconfig.json", "LineSplit.deps.json"} {
		copyFile(t, filepath.Join(filepath.Dir(good), f), filepath.Join(dir, f))
	}
	copyFile(t, strings.TrimSuffix(other, ".dll")+".pdb", filepath.Join(dir, "LineSplit.pdb"))
	p := profileLines(t, modes.EngineSampling, filepath.Join(dir, "LineSplit.dll"), []string{modes.EnvVar("interval") + "=1ms"}, "500")
	f := fnLines(t, p, "LineSplit.Work.Split")
	if f.File != "" || len(f.Lines) != 0 || f.ExclusiveSamples == 0 {
		t.Errorf("Split with a mismatched PDB: file %q, lines %+v, %d samples; want method-level results only", f.File, f.Lines, f.ExclusiveSamples)
	}
	if !hasNote(p, "does not match LineSplit.dll") {
		t.Errorf("no note of the mismatch in the warnings: %q", p.Warnings)
	}
}

// A program built without symbols still profiles, method-level, with a note.
func TestLinesWithoutPDB(t *testing.T) {
	dll := lineProgram(t, "nopdb", "", "-p:DebugType=none")
	p := profileLines(t, modes.EngineSampling, dll, []string{modes.EnvVar("interval") + "=1ms"}, "500")
	f := fnLines(t, p, "LineSplit.Work.Split")
	if f.ExclusiveSamples == 0 || f.File != "" || len(f.Lines) != 0 {
		t.Errorf("Split without a PDB: %d samples, file %q, lines %+v", f.ExclusiveSamples, f.File, f.Lines)
	}
	if !hasNote(p, "built without debug symbols") {
		t.Errorf("no note of the missing PDB in the warnings: %q", p.Warnings)
	}
}

func hasNote(p *profile.Profile, s string) bool {
	n := 0
	for _, w := range p.Warnings {
		if strings.HasPrefix(w, "lines: ") && strings.Contains(w, s) {
			n++
		}
	}
	return n == 1
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Instrumentation with lines counts every line's executions exactly: HALF
// runs n/2 times (n odd here: (n+1)/2), Split's two loop lines as often as
// their conditions are tested.
func TestInstrumentationLineExecutions(t *testing.T) {
	dll := lineProgram(t, "portable", "")
	const n = 100001
	p := profileLines(t, modes.EngineInstrumentation, dll, nil, "100", strconv.Itoa(n))
	half := fnLines(t, p, "LineSplit.Work.Half")
	var got int64 = -1
	for _, l := range half.Lines {
		if l.Line == markerLine(t, "HALF") {
			got = l.Executions
		}
	}
	if got != (n+1)/2 {
		t.Errorf("line HALF executed %d times, want %d; Half's lines %+v", got, (n+1)/2, half.Lines)
	}
	// Every one of Half's lines ran: the for line n+1 times (its condition).
	if half.Calls != 1 || len(half.Lines) < 3 {
		t.Errorf("Half: %d calls, lines %+v", half.Calls, half.Lines)
	}

	// The pprof file carries them as sample type executions, per line:
	// pprof's own reader sums HALF's, and go tool pprof -list shows them
	// beside the line.
	pp, err := p.Pprof()
	if err != nil {
		t.Fatal(err)
	}
	idx := -1
	for i, st := range pp.SampleType {
		if st.Type == "executions" && st.Unit == "count" {
			idx = i
		}
	}
	if idx < 0 {
		t.Fatalf("no sample type executions in the pprof profile: %v", pp.SampleType)
	}
	var onHalf int64
	for _, s := range pp.Sample {
		if l := s.Location[0].Line; len(l) == 1 && l[0].Function.Name == "LineSplit.Work.Half" && l[0].Line == int64(markerLine(t, "HALF")) {
			onHalf += s.Value[idx]
		}
	}
	if onHalf != (n+1)/2 {
		t.Errorf("pprof: %d executions on line HALF, want %d", onHalf, (n+1)/2)
	}
	pb := filepath.Join(t.TempDir(), "profile.pb.gz")
	if err := os.WriteFile(pb, mustPprof(t, p), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "pprof", "-sample_index=executions", "-list", `Work\.Half`, pb).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -list: %v\n%s", err, out)
	}
	row := regexp.MustCompile(`(?m)^\s+` + strconv.Itoa((n+1)/2) + `\s+` + strconv.Itoa((n+1)/2) + `\s+` + strconv.Itoa(markerLine(t, "HALF")) + `:.*// HALF$`)
	if !row.Match(out) {
		t.Errorf("pprof -sample_index=executions -list shows no %d executions beside the HALF line:\n%s", (n+1)/2, out)
	}
}

func mustPprof(t *testing.T, p *profile.Profile) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := p.WritePprof(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSamplingCallerLines: a caller's frame sits on the line of its call.
// CallSites' Main calls Walk on the line marked WALK and then Tally on the
// next (TALLY), Walk doing 39 times Tally's work, each under a loop run
// on-stack-replaced (default tiering). go tool pprof -list Main must put
// at least 90 % of Main's samples on WALK's line and some on TALLY's, none
// on Main's first line; profile.json's nodes carry the call lines. Expected
// on WALK: 97.5 % of the calls' samples, less Main's own (the JIT compiling
// its callees, the output: ~20 samples of ~1500), about 0.96; 0.90 is more
// than 10 standard errors (0.005 at 1500 samples) below. Before, every
// caller frame sat on its function's first line (a real statement: the
// units line here), 0 on WALK's.
func TestSamplingCallerLines(t *testing.T) {
	dll := testProject(t, "calllines", "CallLines.csproj", "CallSites.dll", "portable", "")
	p := profileLines(t, modes.EngineSampling, dll, []string{modes.EnvVar("interval") + "=1ms"}, "1500")
	line := func(mark string) int { return testbin.MarkedLine(t, "profiler/testdata/calllines/Program.cs", mark) }
	walk, tally := line("WALK"), line("TALLY")

	// profile.json: the Walk node under Main carries Main's WALK line.
	var walkNode *profile.Node
	for _, th := range p.Threads {
		profile.Walk(th.Roots, func(n *profile.Node, d int) bool {
			if p.Functions[n.Fn].Name == "CallSites.Program.Walk" && walkNode == nil {
				walkNode = n
			}
			return true
		}, nil)
	}
	if walkNode == nil {
		t.Fatal("no Walk node in the profile")
	}
	if f, l, ok := walkNode.CallLines, 0, false; len(f) > 0 {
		for _, c := range f {
			if c.Line == walk && c.Samples > 0 {
				l, ok = c.Line, true
			}
		}
		if !ok {
			t.Errorf("Walk's call lines %+v, want Main's line %d (%d)", f, walk, l)
		}
	} else {
		t.Errorf("Walk's node has no call lines (%d samples)", walkNode.InclusiveSamples)
	}

	pb := filepath.Join(t.TempDir(), "profile.pb.gz")
	var buf bytes.Buffer
	if err := p.WritePprof(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "pprof", "-sample_index=samples", "-list", `CallSites\.Program\.Main`, pb).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -list: %v\n%s", err, out)
	}
	total := regexp.MustCompile(`(?m)^\s+(\S+)\s+(\S+)\s+\(flat, cum\)`).FindSubmatch(out)
	if total == nil {
		t.Fatalf("no ROUTINE total in pprof -list:\n%s", out)
	}
	cumAt := func(n int) float64 {
		m := regexp.MustCompile(`(?m)^\s+(\S+)\s+(\S+)\s+` + strconv.Itoa(n) + `:`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("no row for line %d in pprof -list:\n%s", n, out)
		}
		return count(t, string(m[2]))
	}
	all := count(t, string(total[2]))
	w, ta, first := cumAt(walk), cumAt(tally), cumAt(walk-1)
	t.Logf("Main: %.0f samples, WALK line %.0f (%.3f), TALLY line %.0f, the line before WALK %.0f", all, w, w/all, ta, first)
	if all < 500 || w/all < 0.9 || ta == 0 || first != 0 {
		t.Errorf("pprof -list Main: %.0f samples, %.0f on WALK's line %d (%.3f, want >= 0.90), %.0f on TALLY's %d (want > 0), %.0f on the line before, %d (want 0):\n%s",
			all, w, walk, w/all, ta, tally, first, walk-1, out)
	}
}

// count reads a pprof -list figure: "." is 0.
func count(t *testing.T, s string) float64 {
	t.Helper()
	if s == "." {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("pprof figure %q: %v", s, err)
	}
	return v
}
