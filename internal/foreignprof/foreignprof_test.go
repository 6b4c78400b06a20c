package foreignprof

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"vbench/internal/modes"
	"vbench/internal/profile"
)

// inclusive is each function's inclusive samples (or calls, for a calls profile).
func inclusive(p *profile.Profile) map[string]int64 {
	out := map[string]int64{}
	for _, f := range p.Functions {
		out[f.Name] = f.InclusiveSamples + f.Calls
	}
	return out
}

// A pprof as another profiler writes it, through pprof's own package:
// leaf-first locations, an inlined frame (two lines of one location), a
// thread label, CPU time with a period; read as sample counts per stack.
func TestReadPprof(t *testing.T) {
	fMain := &pprof.Function{ID: 1, Name: "App.Program.Main(string[])"}
	fRun := &pprof.Function{ID: 2, Name: "App!App.Outer+Inner.Run"}
	fHot := &pprof.Function{ID: 3, Name: "App.Hot.Step"}
	main := &pprof.Location{ID: 1, Line: []pprof.Line{{Function: fMain}}}
	runHot := &pprof.Location{ID: 2, Line: []pprof.Line{{Function: fHot}, {Function: fRun}}} // Hot.Step inlined into Run
	run := &pprof.Location{ID: 3, Line: []pprof.Line{{Function: fRun}}}
	const period = 1_000_000
	pp := &pprof.Profile{
		SampleType: []*pprof.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &pprof.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: period,
		Function: []*pprof.Function{fMain, fRun, fHot}, Location: []*pprof.Location{main, runHot, run},
		Sample: []*pprof.Sample{
			{Location: []*pprof.Location{runHot, main}, Value: []int64{3 * period}, Label: map[string][]string{"thread": {"7"}}},
			{Location: []*pprof.Location{run, main}, Value: []int64{1 * period}, Label: map[string][]string{"thread": {"8"}}},
		},
	}
	path := filepath.Join(t.TempDir(), "p.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pp.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p, err := Read(modes.FormatPprof, []string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := inclusive(p)
	want := map[string]int64{"App.Program.Main": 4, "App.Outer.Inner.Run": 4, "App.Hot.Step": 3}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: %d samples, want %d (all: %v)", n, got[n], w, got)
		}
	}
	if !p.Sampled() || p.Samples != 4 || len(p.Threads) != 2 {
		t.Errorf("sampled %v, %d samples, %d threads", p.Sampled(), p.Samples, len(p.Threads))
	}
	// Two files of one run (two processes) are one profile.
	if p2, err := Read(modes.FormatPprof, []string{path, path}, nil); err != nil || p2.Samples != 8 {
		t.Errorf("two files: %v, %v", p2, err)
	}
	// Not a pprof: the reader's reason, naming the file.
	bad := filepath.Join(t.TempDir(), "bad.pb.gz")
	os.WriteFile(bad, []byte("not a profile"), 0o644)
	if _, err := Read(modes.FormatPprof, []string{bad}, nil); err == nil || !strings.Contains(err.Error(), bad+": not a readable pprof profile") {
		t.Errorf("bad pprof: %v", err)
	}
}

// speedscope's two profile types: evented (open/close events in time, as
// dotnet-trace writes, one profile per thread) and sampled with counts.
func TestReadSpeedscope(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.speedscope.json")
	os.WriteFile(path, []byte(`{"shared": {"frames": [{"name": "App!App.Program.Main()"}, {"name": "App!App.A.Step(int)"}, {"name": "App!App.B.Step(int)"}]},
 "profiles": [
  {"type": "evented", "name": "Thread (1)", "unit": "milliseconds", "startValue": 0, "endValue": 4, "events": [
    {"type": "O", "frame": 0, "at": 0}, {"type": "O", "frame": 1, "at": 0}, {"type": "C", "frame": 1, "at": 3},
    {"type": "O", "frame": 2, "at": 3}, {"type": "C", "frame": 2, "at": 4}, {"type": "C", "frame": 0, "at": 4}]}]}`), 0o644)
	p, err := Read(modes.FormatSpeedscope, []string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := inclusive(p)
	if got["App.A.Step"] != 3 || got["App.B.Step"] != 1 || got["App.Program.Main"] != 4 {
		t.Errorf("evented: %v", got)
	}
	os.WriteFile(path, []byte(`{"shared": {"frames": [{"name": "A"}]}, "profiles": [{"type": "evented", "unit": "none", "events": [{"type": "C", "frame": 0, "at": 1}]}]}`), 0o644)
	if _, err := Read(modes.FormatSpeedscope, []string{path}, nil); err == nil || !strings.Contains(err.Error(), "closes frame 0, which is not the innermost open one") {
		t.Errorf("unbalanced events: %v", err)
	}
}

// Names as vbench writes them; generics matched without their arguments.
func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"Module!Ns.Type.Method(int32,class System.String)": "Ns.Type.Method",
		"Ns.Outer+Inner.M": "Ns.Outer.Inner.M",
		"Ns.Type..ctor":    "Ns.Type..ctor",
		"":                 "?",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
	if a, b := Plain("System.Collections.Generic.Dictionary`2[System.UInt64,System.__Canon].TryInsert"), Plain("System.Collections.Generic.Dictionary<TKey,TValue>.TryInsert"); a != b {
		t.Errorf("Plain: %q != %q", a, b)
	}
}

// perf script's text as scripts/perf-record.sh writes it, eight samples of
// a real run of the fibonacci benchmark under `perf record -F 1000 -g`
// (testdata/fib.perf.txt): every sample counts as taken, those without a
// managed frame (start-up in the host, the finalizer thread, whose command
// name holds a space) have no stack; managed frames are named from the perf
// map as vbench names functions, native ones between them are left out; the
// span is the first sample's time to the last's.
func TestReadPerfScript(t *testing.T) {
	p, err := Read(modes.FormatPerfScript, []string{filepath.Join("testdata", "fib.perf.txt")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples != 8 || p.DurationNs != 304336000 || !p.Sampled() {
		t.Errorf("samples %d, span %d ns, sampled %v; want 8, 304336000 (22501.741578 - 22501.437242 s), true", p.Samples, p.DurationNs, p.Sampled())
	}
	if len(p.Threads) != 1 || p.Threads[0].OSID != 32532 || p.Threads[0].Samples != 5 {
		t.Errorf("threads %+v, want only the main thread 32532 with the 5 samples that have managed frames", p.Threads)
	}
	in := inclusive(p)
	if in["Vbench.Fibonacci.Program.Main"] != 5 || in["Vbench.Fibonacci.Program.Run"] != 3 || in["Vbench.Fibonacci.Program.Fib"] != 3 || len(in) != 3 {
		t.Errorf("inclusive samples %v, want Main 5, Run 3, Fib 3 (two samples in Main's own native callees) and nothing native", in)
	}
	for _, r := range p.Threads[0].Roots {
		if p.Functions[r.Fn].Name != "Vbench.Fibonacci.Program.Main" {
			t.Errorf("a root %s: stacks must start at Main (perf lists the leaf first)", p.Functions[r.Fn].Name)
		}
	}
}

// What is not perf script's text is refused with the file and line.
func TestReadPerfScriptRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"empty", "", ": no samples (an empty perf script output"},
		{"frame first", "\t 7f00 main (/bin/x)\n", ":1: a frame line outside a sample"},
		{"no time", "dotnet 123\n\t 7f00 main (/bin/x)\n", `:1: "dotnet 123" is no sample header`},
	} {
		path := filepath.Join(dir, c.name+".txt")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(modes.FormatPerfScript, []string{path}, nil); err == nil || !strings.Contains(err.Error(), path+c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// perf script's reader never panics on what a file may hold, and what it
// accepts has a sample for every stack it returns.
func FuzzPerfScript(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "fib.perf.txt"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("dotnet 1 2.5: 1 cpu-clock:\n\t 7f00 int32 [M] N.T::M()[Optimized] (/tmp/perf-1.map)\n\n"))
	f.Add([]byte("x 1/2 3.0:\n\t 0 [unknown] (x)\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "p.txt")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ps, err := perfScriptStacks(path)
		if err != nil {
			return
		}
		var n int64
		for _, s := range ps.stacks {
			if s.Count <= 0 || len(s.Frames) == 0 {
				t.Fatalf("stack %+v: no count or no frames", s)
			}
			n += s.Count
		}
		if n+ps.native != ps.nSamples || ps.spanNs < 0 {
			t.Fatalf("%d stacked + %d native samples, %d in all; span %d", n, ps.native, ps.nSamples, ps.spanNs)
		}
	})
}
