package instrprof

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A callgrind file in the form valgrind 3.19 writes it (compressed names,
// a call's inclusive cost on the line after calls=, a recursion's "'2"
// suffix, JIT code named by address in object "???"): each function's own
// instructions, its calls, its callers' edges, and the perf map's names.
const callgrindFile = `# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 7
cmd:  dotnet App.dll --x=1
positions: line
events: Ir
summary: 0

ob=(1) ???
fl=(1) ???
fn=(1) 0x00007f0000001010
0 100
cfn=(2) 0x00007f0000002004
calls=3 0
0 900
cfn=(2)
calls=1 0
0 300
ob=(2) /usr/lib/libcoreclr.so
cfn=(3) 0x0000000000391330
calls=2 0
0 50
ob=(1)
fn=(2)
+1 1000
ob=(2)
fn=(3)
0 40
cob=(3) /opt/libvbenchprof.so
cfn=(4) vb_enter_stub'2
calls=5 0
0 10
ob=(3)
fn=(4)
0 10
ob=(1)
fn=(5) 0x00007f0000009000
0 7

totals: 1157
`

func TestReadCallgrind(t *testing.T) {
	pm, err := ReadPerfMap("testdata/perf-7.map")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Read(strings.NewReader(callgrindFile), pm)
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != 1157 || !p.CountsCalls || p.Processes != 1 {
		t.Errorf("total %d (want 1157, the file's totals), calls %v, processes %d", p.Total, p.CountsCalls, p.Processes)
	}
	want := map[string]Func{
		"App.Program.Main": {Self: 100},
		"App.Work.Mix":     {Self: 1000, Calls: 4},
		"[libcoreclr.so]":  {Self: 40, Calls: 2, Unnamed: true},
		"vb_enter_stub":    {Self: 10, Calls: 5},
		"[jitted code]":    {Self: 7, Unnamed: true},
	}
	for _, f := range p.Funcs {
		w, ok := want[f.Name]
		if !ok {
			t.Errorf("unexpected %+v", f)
			continue
		}
		if f.Self != w.Self || f.Calls != w.Calls || f.Unnamed != w.Unnamed {
			t.Errorf("%s: %+v, want %+v", f.Name, f, w)
		}
		delete(want, f.Name)
	}
	if len(want) > 0 {
		t.Errorf("missing %v", want)
	}
	if p.Unnamed() != 47 {
		t.Errorf("unnamed %d, want 47", p.Unnamed())
	}
	var mix *Edge
	for i, e := range p.Edges {
		if e.Caller == "App.Program.Main" && e.Callee == "App.Work.Mix" {
			mix = &p.Edges[i]
		}
	}
	if mix == nil || mix.Calls != 4 || mix.Inclusive != 1200 {
		t.Errorf("Main → Mix: %+v, want 4 calls, 1200 instructions", mix)
	}
}

// With each instruction's address (--dump-instr=yes), the code a context
// ran is named by where it is, not by where the call entered: a stub that
// jumped on into Render, and the runtime's helper that moved Render's loop
// into its on-stack-replacement body, ran Render's instructions, and
// Render made their calls to Mix.
const callgrindInstrFile = `# callgrind format
version: 1
positions: instr line
events: Ir

ob=(1) ???
fl=(1) ???
fn=(1) 0x00007f0000009000
0x7f0000009000 0 2
0x7f0000004000 0 30
+4 0 10
cfn=(2) 0x00007f0000002000
calls=5 0x7f0000002000 0
* 0 500
+5 0 8
ob=(2) /usr/lib/libcoreclr.so
fn=(3) 0x0000000000391330
0x391330 0 3
0x7f0000004010 0 20
+3 0 4
cob=(1)
cfn=(2)
calls=2 0x7f0000002000 0
* 0 200
ob=(1)
fn=(2)
0x7f0000002000 0 600
-0x1000 0 1
+4096 0 99

totals: 777
`

func TestReadCallgrindByInstruction(t *testing.T) {
	pm, err := ReadPerfMap("testdata/perf-7.map")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Read(strings.NewReader(callgrindInstrFile), pm)
	if err != nil {
		t.Fatal(err)
	}
	self := map[string]int64{}
	for _, f := range p.Funcs {
		self[f.Name] += f.Self
	}
	want := map[string]int64{"[jitted code]": 2, "App.Work.Render": 72, "[libcoreclr.so]": 3, "App.Work.Mix": 699, "App.Program.Main": 1}
	for name, n := range want {
		if self[name] != n {
			t.Errorf("%s: %d instructions, want %d (all: %v)", name, self[name], n, self)
		}
	}
	if p.Total != 777 {
		t.Errorf("total %d", p.Total)
	}
	if len(p.Edges) != 1 || p.Edges[0] != (Edge{Caller: "App.Work.Render", Callee: "App.Work.Mix", Calls: 7, Inclusive: 700}) {
		t.Errorf("edges %+v, want Render → Mix alone, 7 calls, 700 instructions", p.Edges)
	}
}

// A perf map's method is named as vbench's profiles name it; a generic
// type's [T] is not taken for the module.
func TestMethodName(t *testing.T) {
	for in, want := range map[string]string{
		"int32 [Fibonacci] Vbench.Fibonacci.Program::Fib(int32)[Optimized]":                                   "Vbench.Fibonacci.Program.Fib",
		"void [System.Private.CoreLib] System.Collections.Generic.List`1[System.__Canon]::Add(!0)[Optimized]": "System.Collections.Generic.List`1[System.__Canon].Add",
		"stub<1> AllocateTemporaryEntryPoints<PreJit>":                                                        "stub<1> AllocateTemporaryEntryPoints<PreJit>",
	} {
		if got := MethodName(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// A file that is not valgrind's is refused, said.
func TestReadNotCallgrind(t *testing.T) {
	if _, err := Read(strings.NewReader("hello\nworld\n"), nil); err == nil || !strings.Contains(err.Error(), "not a callgrind or cachegrind file") {
		t.Errorf("err %v", err)
	}
	if _, err := ReadDir(t.TempDir(), "vbench-cg.", ""); err == nil {
		t.Error("an empty directory read")
	}
}

// ReadDir counts the processes that had a perf map, and a process without
// one keeps its JIT-compiled code unnamed, where it ran (issue 51: the why
// says what it could not name, and why).
func TestReadDirCountsPerfMaps(t *testing.T) {
	dir := t.TempDir()
	for _, pid := range []string{"7", "8"} {
		if err := os.WriteFile(filepath.Join(dir, "vbench-cg."+pid), []byte(callgrindFile), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := os.ReadFile("testdata/perf-7.map")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "perf-7.map"), m, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ReadDir(dir, "vbench-cg.", dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Processes != 2 || p.PerfMaps != 1 {
		t.Errorf("%d processes, %d perf maps: want 2, 1", p.Processes, p.PerfMaps)
	}
	un := p.UnnamedFuncs()
	if len(un) == 0 || un[0].Name != JittedCode || p.Unnamed() <= un[0].Self-1 {
		t.Errorf("unnamed %+v of %d", un, p.Unnamed())
	}
	if p, err = ReadDir(dir, "vbench-cg.", ""); err != nil || p.PerfMaps != 0 {
		t.Errorf("no map directory: %d perf maps, %v", p.PerfMaps, err)
	}
}
