// Command genfixtures writes the hand-made inputs of the reports tests:
// results files shaped like `vbench run --json` output and profile.json files
// shaped like the profiler's. Nothing in them comes from a real run; the
// numbers are made up to resemble the overheads the Visual Profiler measured
// (J. Vratislav, "Performance Profiling for .NET Platform", master's thesis,
// CTU Prague, 2012, table 7.1: Fibonacci: tracing ×110, sampling ×1.13;
// Mandelbrot: tracing ×1.77, sampling ×1.09), with
// deterministic noise so every summary is consistent with its samples.
//
// Run from the repository root: scripts/go run ./reports/testdata/genfixtures
// The tests never run it; they read the files it wrote, and assert properties
// computed from them.
package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"time"
	"vbench/internal/summary"
	"vbench/internal/verdict"

	"vbench/internal/machine"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/results"
)

const dir = "reports/testdata"

var allModes = modes.Builtins

// workload is one workload's true speed and its profiler multiples.
type workload struct {
	name   string
	noneNs float64
	mult   map[modes.Mode]float64
	rss    float64
}

var workloads = []workload{
	{"fibonacci", 412e6, map[modes.Mode]float64{modes.None: 1, modes.Null: 3.05, modes.Tracing: 110.1, modes.Sampling: 1.13}, 31e6},
	{"mandelbrot", 1.52e9, map[modes.Mode]float64{modes.None: 1, modes.Null: 1.04, modes.Tracing: 1.77, modes.Sampling: 1.09}, 58e6},
	{"exceptions", 231e6, map[modes.Mode]float64{modes.None: 1, modes.Null: 1.38, modes.Tracing: 6.2, modes.Sampling: 1.21}, 36e6},
}

var fp = machine.Fingerprint{
	CPUModel:      "Intel(R) Xeon(R) CPU E5-2673 v4 @ 2.30GHz",
	Cores:         2,
	OS:            "linux/amd64 Debian GNU/Linux 12 (bookworm)",
	Kernel:        "6.1.0-27-cloud-amd64",
	DotnetRuntime: "10.0.0",
	VbenchCommit:  "3f9c2e1a7b5d",
	Governor:      "performance",
	Hostname:      "ci-runner-7",
	GoVersion:     "go1.23.5",
}

// drift changes a cell's true speed in one file of the history.
type drift map[string]float64 // "workload/mode" -> factor

func main() {
	start := time.Date(2025, 6, 2, 9, 14, 0, 0, time.UTC)
	// baseline.json: what the suite measured when the baseline was recorded.
	base := gen(1, start.Add(-72*time.Hour), drift{"mandelbrot/sampling": 1.075}, nil)
	base.Results = dropCell(base.Results, "exceptions", modes.Null) // so that cell is "new"
	write("baseline.json", base)

	// History: three runs a day apart. The last one is the "current" run:
	// fibonacci/tracing regressed 9%, mandelbrot/sampling improved 7%, and
	// exceptions/sampling crashed.
	h1 := gen(2, start, drift{"fibonacci/tracing": 1.01, "mandelbrot/sampling": 1.07}, nil)
	h2 := gen(3, start.Add(24*time.Hour), drift{"fibonacci/tracing": 1.04, "mandelbrot/sampling": 1.04}, nil)
	cur := gen(4, start.Add(48*time.Hour),
		drift{"fibonacci/tracing": 1.09},
		map[string]string{"exceptions/sampling": "exit status 134 (SIGABRT): Fatal error. Internal CLR error. (0x80131506)"})
	h1.Machine.VbenchCommit, h2.Machine.VbenchCommit = "1b2e7c0d9a41", "8d04aa2c6e13"
	for _, f := range []*results.File{h1, h2, cur} {
		compare(f, base, "baselines/default.json")
	}
	cur.Warnings = append(cur.Warnings, "fingerprint: governor differs from the baseline's (performance vs powersave)")
	write("history-1.json", h1)
	write("history-2.json", h2)
	write("results.json", cur)

	writeProfile("profile-tracing.json", tracingProfile())
	writeProfile("profile-sampling.json", samplingProfile())
}

func gen(seed int64, started time.Time, d drift, failures map[string]string) *results.File {
	rng := rand.New(rand.NewSource(seed))
	f := &results.File{
		Schema:  results.SchemaVersion,
		Suite:   results.Suite{Name: "default", Path: "benchmarks/suite.yaml", SHA256: "9a4f1c3e5b7d2f80c6e1a9b3d5f7e2c4a6b8d0f1e3c5a7b9d1f3e5c7a9b1d3f5"},
		Machine: fp,
		Started: started,
		Settings: results.Settings{
			Runs: 10, Warmup: 2, Modes: allModes, Timeout: "10m", Alpha: 0.05, Threshold: 0.05,
		},
	}
	seq := 0
	var elapsed time.Duration
	for _, w := range workloads {
		for _, m := range allModes {
			key := w.name + "/" + string(m)
			truth := w.noneNs * w.mult[m]
			if k, ok := d[key]; ok {
				truth *= k
			}
			c := results.Cell{Workload: w.name, Mode: m}
			for i := 0; i < f.Settings.Warmup+f.Settings.Runs; i++ {
				seq++
				// Right-skewed noise as on a shared machine: mostly ±2%,
				// sometimes a slow run.
				noise := 1 + rng.NormFloat64()*0.012
				if rng.Float64() < 0.08 {
					noise += 0.06 + rng.Float64()*0.05
				}
				e := truth * noise
				r := results.Run{
					Seq:       seq,
					Warmup:    i < f.Settings.Warmup,
					ElapsedNs: int64(e),
					WallNs:    int64(e + 61e6 + rng.Float64()*4e6), // runtime start-up
					UserNs:    int64(e*0.97 + 48e6),
					SysNs:     int64(9e6 + rng.Float64()*3e6 + e*0.01),
					MaxRSS:    int64(w.rss*profRSS(m) + rng.Float64()*2e6),
					Checksum:  fmt.Sprintf("%08x", 0x5eed0000+len(w.name)),
				}
				if _, ok := failures[key]; ok && !r.Warmup && i%3 == 1 {
					r.ExitCode, r.Signal, r.Error = 134, "SIGABRT", "Fatal error. Internal CLR error. (0x80131506)"
					r.ElapsedNs, r.Checksum = 0, ""
				}
				elapsed += time.Duration(r.WallNs)
				c.Samples = append(c.Samples, r)
			}
			c.Failure = failures[key]
			f.Results = append(f.Results, c)
		}
	}
	f.Finished = started.Add(elapsed).Round(time.Second)
	// Summaries, outliers and overheads as vbench run computes them.
	summary.Fill(f)
	return f
}

func profRSS(mode modes.Mode) float64 {
	switch mode {
	case modes.Tracing:
		return 1.6
	case modes.Sampling:
		return 1.2
	case modes.Null:
		return 1.1
	}
	return 1
}

// compare gives verdicts against base as vbench run and compare do.
func compare(f, base *results.File, name string) {
	f.Baseline = name
	verdict.Apply(f, base, verdict.OptionsOf(f))
}

func dropCell(cs []results.Cell, w string, m modes.Mode) []results.Cell {
	var out []results.Cell
	for _, c := range cs {
		if c.Workload != w || c.Mode != m {
			out = append(out, c)
		}
	}
	return out
}

func write(name string, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
		panic(err)
	}
}

func writeProfile(name string, p *profile.Profile) {
	if err := p.Validate(); err != nil {
		panic(fmt.Sprintf("%s: %v", name, err))
	}
	write(name, p)
}

// funcs builds the function table; the tree builders refer to functions by name.
type funcs struct {
	p   *profile.Profile
	ids map[string]int
}

func (fs *funcs) id(name, module string) int {
	if id, ok := fs.ids[name]; ok {
		return id
	}
	id := len(fs.p.Functions)
	asm := module[:len(module)-len(filepath.Ext(module))]
	fs.p.Functions = append(fs.p.Functions, profile.Function{ID: id, Name: name, Module: module, Assembly: asm})
	fs.ids[name] = id
	return id
}

// fibCalls returns how many invocations of Fib(n) happen at each recursion
// depth when Fib(n) is called once: depth 0 is the outer call.
func fibCalls(n int) []int64 {
	var out []int64
	var rec func(n, d int)
	rec = func(n, d int) {
		for len(out) <= d {
			out = append(out, 0)
		}
		out[d]++
		if n >= 2 {
			rec(n-1, d+1)
			rec(n-2, d+1)
		}
	}
	rec(n, 0)
	return out
}

// tracingProfile: the Fibonacci workload under the tracing engine. The main
// thread runs Fib(12) 25 times (exact recursive call counts per depth) and
// prints; a worker thread fills a generic list; the finalizer thread runs once.
func tracingProfile() *profile.Profile {
	p := &profile.Profile{
		Schema: profile.SchemaVersion, Mode: modes.EngineTracing, RuntimeVersion: "10.0.0", PID: 48213,
		Command:    []string{"dotnet", "benchmarks/bin/Fibonacci.dll", "--iterations", "25"},
		Start:      time.Date(2025, 6, 4, 10, 2, 11, 0, time.UTC),
		DurationNs: 2_913_000_000, Complete: true,
		Include: []string{"Fibonacci"},
	}
	fs := &funcs{p: p, ids: map[string]int{}}
	main := fs.id("Fibonacci.Program.Main(string[])", "Fibonacci.dll")
	run := fs.id("Fibonacci.Program.Run(int)", "Fibonacci.dll")
	fib := fs.id("Fibonacci.Program.Fib(int)", "Fibonacci.dll")
	print := fs.id("Fibonacci.Report.Print(long)", "Fibonacci.dll")
	fmtf := fs.id("Fibonacci.Report.Format<long>(long)", "Fibonacci.dll")
	loop := fs.id("Fibonacci.Worker.Loop()", "Fibonacci.dll")
	add := fs.id("Fibonacci.Worker+Buffer<System.Int32>.Add(int)", "Fibonacci.dll")
	grow := fs.id("Fibonacci.Worker+Buffer<System.Int32>.Grow()", "Fibonacci.dll")
	fin := fs.id("Fibonacci.Worker+Handle.Finalize()", "Fibonacci.dll")

	const iters = 25
	perDepth := fibCalls(12)
	// Fib chain: each node's exclusive time is 180ns per call (profiled).
	var chain func(d int) profile.Node
	chain = func(d int) profile.Node {
		n := profile.Node{Fn: fib, Calls: iters * perDepth[d], ExclusiveNs: iters * perDepth[d] * 180}
		n.InclusiveNs = n.ExclusiveNs
		if d+1 < len(perDepth) {
			c := chain(d + 1)
			n.Children = []profile.Node{c}
			n.InclusiveNs += c.InclusiveNs
		}
		return n
	}
	fibRoot := chain(0)
	fmtNode := profile.Node{Fn: fmtf, Calls: iters, InclusiveNs: iters * 41_000, ExclusiveNs: iters * 41_000}
	printNode := profile.Node{Fn: print, Calls: iters, ExclusiveNs: iters * 12_000, Children: []profile.Node{fmtNode}}
	printNode.InclusiveNs = printNode.ExclusiveNs + fmtNode.InclusiveNs
	runNode := profile.Node{Fn: run, Calls: iters, ExclusiveNs: iters * 3_000, Children: []profile.Node{fibRoot, printNode}}
	runNode.InclusiveNs = runNode.ExclusiveNs + fibRoot.InclusiveNs + printNode.InclusiveNs
	mainNode := profile.Node{Fn: main, Calls: 1, ExclusiveNs: 1_250_000, Children: []profile.Node{runNode}}
	mainNode.InclusiveNs = mainNode.ExclusiveNs + runNode.InclusiveNs

	growNode := profile.Node{Fn: grow, Calls: 14, InclusiveNs: 14 * 52_000, ExclusiveNs: 14 * 52_000}
	addNode := profile.Node{Fn: add, Calls: 20_000, ExclusiveNs: 20_000 * 95, Children: []profile.Node{growNode}}
	addNode.InclusiveNs = addNode.ExclusiveNs + growNode.InclusiveNs
	loopNode := profile.Node{Fn: loop, Calls: 1, ExclusiveNs: 3_400_000, Children: []profile.Node{addNode}}
	loopNode.InclusiveNs = loopNode.ExclusiveNs + addNode.InclusiveNs

	finNode := profile.Node{Fn: fin, Calls: 3, InclusiveNs: 3 * 7_000, ExclusiveNs: 3 * 7_000}

	p.Threads = []profile.Thread{
		{OSID: 48213, ManagedID: 1, CPUNs: mainNode.InclusiveNs + 40_000_000, Roots: []profile.Node{mainNode}},
		{OSID: 48219, ManagedID: 4, CPUNs: loopNode.InclusiveNs + 2_000_000, Roots: []profile.Node{loopNode}},
		{OSID: 48216, ManagedID: 2, CPUNs: 900_000, Roots: []profile.Node{finNode}},
	}
	fillFunctions(p)
	return p
}

// samplingProfile: the Mandelbrot workload under the sampling engine, 1ms
// period, two render threads and the main thread.
func samplingProfile() *profile.Profile {
	p := &profile.Profile{
		Schema: profile.SchemaVersion, Mode: modes.EngineSampling, RuntimeVersion: "10.0.0", PID: 51007,
		Command:    []string{"dotnet", "benchmarks/bin/Mandelbrot.dll"},
		Start:      time.Date(2025, 6, 4, 10, 5, 40, 0, time.UTC),
		DurationNs: 1_744_000_000, IntervalNs: 1_000_000, Complete: true,
	}
	fs := &funcs{p: p, ids: map[string]int{}}
	main := fs.id("Mandelbrot.Program.Main(string[])", "Mandelbrot.dll")
	render := fs.id("Mandelbrot.Renderer.Render(int,int)", "Mandelbrot.dll")
	wait := fs.id("System.Threading.Tasks.Task.Wait()", "System.Private.CoreLib.dll")
	worker := fs.id("Mandelbrot.Renderer.<>c__DisplayClass4_0.<Render>b__0(int)", "Mandelbrot.dll")
	row := fs.id("Mandelbrot.Renderer.ComputeRow(int)", "Mandelbrot.dll")
	escape := fs.id("Mandelbrot.Complex.Escape(double,double,int)", "Mandelbrot.dll")
	save := fs.id("Mandelbrot.Image.Save(string)", "Mandelbrot.dll")

	leaf := func(fn int, s int64) profile.Node {
		return profile.Node{Fn: fn, InclusiveSamples: s, ExclusiveSamples: s}
	}
	node := func(fn int, self int64, kids ...profile.Node) profile.Node {
		n := profile.Node{Fn: fn, ExclusiveSamples: self, InclusiveSamples: self, Children: kids}
		for _, k := range kids {
			n.InclusiveSamples += k.InclusiveSamples
		}
		return n
	}
	mainT := node(main, 3, node(render, 2, leaf(wait, 801)), leaf(save, 38))
	w1 := node(worker, 1, node(row, 96, leaf(escape, 702)))
	w2 := node(worker, 0, node(row, 88, leaf(escape, 731)))
	p.Threads = []profile.Thread{
		{OSID: 51007, ManagedID: 1, CPUNs: 61_000_000, Samples: mainT.InclusiveSamples, Roots: []profile.Node{mainT}},
		{OSID: 51013, ManagedID: 5, CPUNs: 812_000_000, Samples: w1.InclusiveSamples, Roots: []profile.Node{w1}},
		{OSID: 51014, ManagedID: 6, CPUNs: 835_000_000, Samples: w2.InclusiveSamples, Roots: []profile.Node{w2}},
	}
	for _, t := range p.Threads {
		p.Samples += t.Samples
	}
	fillFunctions(p)
	return p
}

// fillFunctions derives the flat table from the trees as the profiler does:
// sums over nodes, recursion counted once in inclusive figures, direct callers.
func fillFunctions(p *profile.Profile) {
	callers := map[int]map[string]*profile.Caller{}
	var walk func(n profile.Node, parent string, onStack map[int]bool)
	walk = func(n profile.Node, parent string, onStack map[int]bool) {
		f := &p.Functions[n.Fn]
		f.Calls += n.Calls
		f.ExclusiveNs += n.ExclusiveNs
		f.ExclusiveSamples += n.ExclusiveSamples
		if !onStack[n.Fn] {
			f.InclusiveNs += n.InclusiveNs
			f.InclusiveSamples += n.InclusiveSamples
		}
		if callers[n.Fn] == nil {
			callers[n.Fn] = map[string]*profile.Caller{}
		}
		c := callers[n.Fn][parent]
		if c == nil {
			c = &profile.Caller{Name: parent}
			callers[n.Fn][parent] = c
		}
		c.Calls += n.Calls
		c.Samples += n.InclusiveSamples
		was := onStack[n.Fn]
		onStack[n.Fn] = true
		for _, k := range n.Children {
			walk(k, f.Name, onStack)
		}
		onStack[n.Fn] = was
	}
	for _, t := range p.Threads {
		for _, r := range t.Roots {
			walk(r, profile.RootCaller, map[int]bool{})
		}
	}
	for id, m := range callers {
		for _, c := range m {
			p.Functions[id].Callers = append(p.Functions[id].Callers, *c)
		}
		sort.Slice(p.Functions[id].Callers, func(i, j int) bool {
			return p.Functions[id].Callers[i].Name < p.Functions[id].Callers[j].Name
		})
	}
}
