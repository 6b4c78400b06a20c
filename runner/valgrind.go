package runner

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"vbench/internal/results"
)

// Runs measured in instructions (results.MetricInstructions) execute under
// valgrind's cachegrind without its cache simulation: the cheapest of its
// tools that counts every instruction (callgrind, which also counts calls,
// took 2.5x as long on fibonacci). Every process of the run's tree is
// followed (--trace-children), each writes its own count file into the
// run's directory, and the run's count is their sum: "the whole program",
// as the time metrics' wall and cpu are. -q leaves valgrind's own messages
// on stderr only when something is wrong (an instruction it cannot run, a
// crash under it), where a failed run's message quotes them.

// ValgrindVersion is what the valgrind at path says it is ("valgrind-3.19.0"),
// recorded with a run's counts: another version shows a program another
// CPU, and the JIT and the libraries choose their instructions by it.
func ValgrindVersion(ctx context.Context, path string) (string, error) {
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	v := strings.TrimSpace(string(out))
	if err != nil || v == "" || strings.ContainsAny(v, "\n\r") {
		return "", fmt.Errorf("%s --version said %q (%v)", path, v, err)
	}
	return v, nil
}

// countFilePrefix names valgrind's count files in a run's directory.
const countFilePrefix = "vbench-cg."

// valgrindArgs is what goes before a run's command under a counted metric;
// tool is valgrind's path. The kernel's count (kernel-instructions) needs
// callgrind, whose client requests (kernelmarks.go) start and stop its
// instrumentation; cachegrind has none in Debian's valgrind 3.19. Outside
// the marks nothing is instrumented, so start-up runs faster than under
// cachegrind.
//
// --fair-sched=yes: valgrind runs one thread at a time; by default the next
// is whichever the kernel wakes first, with its ticket lock they take turns
// in order. Kept for that, not for a gain shown: mandelbrot's Parallel.For
// under tracing counted 1.045G-1.072G in 6 runs without it and
// 1.0285G-1.0295G in 3 with it outside the harness, but 1.026G-1.037G and
// 1.027G-1.035G inside it (docs/notebook/measurements.md).
func valgrindArgs(tool, runDir string, metric results.Metric, why bool) []string {
	out := filepath.Join(runDir, countFilePrefix+"%p")
	var own []string // the tool and its options
	switch {
	case why && metric != results.MetricKernelInstructions:
		// A why launch of the whole program: callgrind, which names code
		// without symbols by its address (cachegrind lumps it as "???"),
		// so that the perf map can name the .NET methods, and counts calls.
		own = []string{"--tool=callgrind", "--callgrind-out-file=" + out}
	case metric == results.MetricKernelInstructions:
		own = []string{"--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=" + out}
	default:
		own = []string{"--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=" + out}
	}
	if why {
		// Each instruction's address, so that the perf map names the method
		// a stub or the runtime's on-stack-replacement helper ran on into
		// (instrprof.read): without it the pipeline's Render → Mix calls
		// read as [libcoreclr.so] → Mix and [jitted code] → Mix.
		own = append(own, "--dump-instr=yes")
	}
	return append(append([]string{tool, "-q"}, own...), "--fair-sched=yes", "--trace-children=yes")
}

// countInstructions sums the instructions of every process of a run from
// the count files valgrind wrote into runDir (summaryOf each). A run that wrote none was not counted: valgrind did not run it
// to its end (its stderr says why, and a failed exit was reported first).
func countInstructions(runDir string) (total int64, procs int, err error) {
	files, err := filepath.Glob(filepath.Join(runDir, countFilePrefix+"*"))
	if err != nil {
		return 0, 0, err
	}
	for _, name := range files {
		n, err := summaryOf(name)
		if err != nil {
			return 0, 0, err
		}
		total += n
		procs++
	}
	if procs == 0 {
		return 0, 0, fmt.Errorf("valgrind wrote no instruction count (no %s* file in the run's directory)", countFilePrefix)
	}
	return total, procs, nil
}

// summaryOf reads the count of one count file: cachegrind's "summary:
// <Ir>" line, or callgrind's "totals:" (its "summary:" stays 0 when it
// starts uninstrumented).
func summaryOf(name string) (int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var line string
	for sc.Scan() {
		t := sc.Text()
		if strings.HasPrefix(t, "totals:") || (line == "" && strings.HasPrefix(t, "summary:")) {
			line = t
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%s: %v", filepath.Base(name), err)
	}
	if line == "" {
		return 0, fmt.Errorf("%s: no summary line (valgrind stopped before the process ended)", filepath.Base(name))
	}
	_, rest, _ := strings.Cut(line, ":")
	n, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: %q is not a count", filepath.Base(name), line)
	}
	return n, nil
}

// counted fills a counted run's record: its instructions, and none of the
// figures valgrind makes untrue. A process under valgrind runs ~30-50x
// slower and valgrind's own memory is in its RSS, so its start-up, GC
// pause and peak RSS are not the program's and are not kept; its GC
// counts, allocated bytes and profile size are the program's, and stay.
// Its wall and CPU times stay in the record (what the run cost the
// harness) but no cell of this metric presents them as times.
// c is the run's count, read (count) before the cell's lock is taken.
func counted(r *results.Run, c runCount, metric results.Metric) {
	r.StartupNs, r.GCPauseNs, r.PeakRSS = nil, nil, nil
	if r.Error != "" {
		return
	}
	n, procs, err := c.n, c.procs, c.err
	if err != nil {
		r.Error = err.Error()
		return
	}
	if n == 0 && metric == results.MetricKernelInstructions {
		r.Error = "counted no instructions between kernel marks: the program never called them (benchmarks/common/Harness.cs's Clock does, when " + KernelMarksVar + " names the library; a program that does not is counted whole by metric instructions)"
		return
	}
	r.Instructions, r.Processes = n, procs
}

// runCount is what countInstructions read of a run.
type runCount struct {
	n     int64
	procs int
	err   error
}

// count reads a counted run's count files: outside the cell's lock, so
// that runs finishing in parallel do not parse their files one at a time.
func count(runDir string) runCount {
	n, procs, err := countInstructions(runDir)
	return runCount{n, procs, err}
}

// countingEnv is a counted run's environment: env with what vbench sets to
// hold a .NET program's count still, where the workload, the mode and the
// shell leave it unset (under its DOTNET_ or its COMPlus_ name: the runtime
// reads either, DOTNET_ first).
//
// Tiered compilation off: with it on, a method called often is compiled
// again at tier 1 on a background thread, and the calls made before that
// code is installed run tier 0's. How many did depends on when valgrind
// gave the background thread its turn: a plain 3-stage program's count
// spread ±3 % under none, 151.45M ± 0.004 % with tiering off
// (docs/instructions.md, "Tiered compilation off"). Off, every method runs
// its optimized code from its first call (ReadyToRun code as precompiled):
// the code a long-running process runs, without the race.
//
// The call-counting delay 0, for a workload that turns tiering back on:
// tiering starts counting calls only after 100 ms of quiet (a timer), so
// which code ran at tier 0 depended on how fast the process ran; with the
// delay 0 it depends on call counts alone (TwoWork's four counts spread
// 0.011 % with the delay, 0.002 % without).
//
// Go's asynchronous preemption off, for a profiler written in Go (vbench's):
// the Go runtime preempts a goroutine by a signal (SIGURG) when sysmon, on
// a wall-clock tick, finds it running long, so under valgrind how many come
// depends on the machine's speed; and callgrind (a why launch) aborts on
// one that arrives inside another handler ("Assertion 'sigNum ==
// vgCallgrind_current_state.sig' failed"): every whole-program why launch
// under tracing did, while the profiler wrote its profile.
func countingEnv(env []string) []string {
	for _, kv := range countingDefaults {
		name, value, _ := strings.Cut(kv, "=")
		i := slices.IndexFunc(env, func(e string) bool {
			return strings.HasPrefix(e, name+"=") || strings.HasPrefix(name, "DOTNET_") && strings.HasPrefix(e, "COMPlus_"+strings.TrimPrefix(name, "DOTNET_")+"=")
		})
		switch {
		case i < 0:
			env = append(env, kv)
		case name == "GODEBUG" && !strings.Contains(env[i], "asyncpreemptoff="):
			// GODEBUG holds a list: add to the user's, which keeps theirs
			// (in a copy: env is the caller's).
			env = slices.Clone(env)
			env[i] += "," + value
		}
	}
	return env
}

// countingDefaults are the variables countingEnv sets.
var countingDefaults = []string{results.TieringOff, "DOTNET_TC_CallCountingDelayMs=0", "GODEBUG=asyncpreemptoff=1"}
