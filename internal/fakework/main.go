// Command fakework is a tiny real workload for the harness's tests. It prints
// a VBENCH line whose elapsed_ns follows the distribution its flags describe,
// so statistical verdicts are deterministic without timing anything, and it
// can fail in every way a real workload can: non-zero exit, SIGSEGV, a hang
// with a child process, a wrong checksum, no VBENCH line. When run under a
// profiled mode (VBENCH_MODE and VBENCH_PROFILE_DIR set by vbench) it writes
// the profile.json a profiler would (in its own <pid>/ directory, with
// started.json), with the call counts it is told to.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"vbench/internal/modes"
	"vbench/internal/profile"
)

func main() {
	elapsed := flag.Int64("elapsed", 1_000_000, "base elapsed_ns to report")
	spread := flag.Float64("spread", 0, "relative noise: elapsed is multiplied by exp(spread * N(0,1))")
	cpuNs := flag.Int64("cpu-ns", 0, "also report cpu_ns: this times -scale and the mode's -overhead (the work; -spread, the machine's noise, leaves it alone)")
	scale := flag.Float64("scale", 1, "work scale: multiplies elapsed")
	overhead := flag.String("overhead", "", "mode=factor,... multiplies elapsed under VBENCH_MODE")
	libFactor := flag.String("lib-factor", "", "text=factor,... multiplies elapsed and cpu when the profiler library's path (VBENCH_PROFILER_BUILD, else CORECLR_PROFILER_PATH) contains text: another build's speed")
	checksum := flag.String("checksum", "ok", "checksum to print")
	exit := flag.Int("exit", 0, "exit status")
	segv := flag.Bool("segv", false, "kill itself with SIGSEGV")
	hang := flag.Bool("hang", false, "start a child process and sleep forever")
	pidfile := flag.String("pidfile", "", "with -hang: write the child's and own pid here")
	sleep := flag.Duration("sleep", 0, "really sleep this long before reporting")
	calls := flag.String("calls", "", "Function=N,... expected call counts for the VBENCH line")
	profCalls := flag.String("profile-calls", "", "Function=N,... call counts written to the profile (default: -calls)")
	profFuncs := flag.String("profile-funcs", "", "Function=EXCL_NS:INCL_SAMPLES,... functions written to the profile with these times and samples (both modes)")
	noProfile := flag.Bool("no-profile", false, "write no profile even when profiled")
	rawProfile := flag.String("raw-profile", "", "when profiled, write exactly this as profile.json (a corrupt profile)")
	noVbench := flag.Bool("no-vbench", false, "print no VBENCH line")
	envFile := flag.String("write-env", "", "write the environment to this file")
	touchEnv := flag.String("touch-env", "", "write a file at the path environment variable NAME holds (a mode's {rundir} output)")
	spin := flag.Duration("spin", 0, "really burn this much CPU before reporting")
	counter := flag.String("counter", "", "file counting launches (with -fail-at)")
	failAt := flag.Int("fail-at", 0, "with -counter: exit 7 on this launch (1-based)")
	hangAt := flag.Int("hang-at", 0, "with -counter: behave as -hang on this launch (1-based)")
	touch := flag.Int("touch-mib", 0, "hold this many MiB resident before reporting (a peak RSS to measure)")
	flag.Parse()

	if *envFile != "" {
		os.WriteFile(*envFile, []byte(strings.Join(os.Environ(), "\n")+"\n"), 0o644)
	}
	if *touchEnv != "" {
		if p := os.Getenv(*touchEnv); p != "" {
			if err := os.WriteFile(p, []byte("fakework was here\n"), 0o644); err != nil {
				panic(err)
			}
		}
	}
	if *counter != "" {
		b, _ := os.ReadFile(*counter)
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		n++
		os.WriteFile(*counter, []byte(strconv.Itoa(n)), 0o644)
		if n == *failAt {
			fmt.Fprintf(os.Stderr, "fakework: failing on launch %d as told\n", n)
			os.Exit(7)
		}
		if n == *hangAt {
			*hang = true
		}
	}
	if *hang {
		child := exec.Command(os.Args[0], "-sleep", "1h")
		if err := child.Start(); err != nil {
			panic(err)
		}
		if *pidfile != "" {
			os.WriteFile(*pidfile, []byte(fmt.Sprintf("%d %d\n", os.Getpid(), child.Process.Pid)), 0o644)
		}
		fmt.Println("fakework: hanging")
		time.Sleep(time.Hour)
	}
	if *sleep > 0 {
		time.Sleep(*sleep)
	}
	if *touch > 0 {
		b := make([]byte, *touch<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		runtime.KeepAlive(b)
	}
	if *spin > 0 {
		burn(*spin)
	}
	if *segv {
		fmt.Fprintln(os.Stderr, "fakework: about to crash")
		// The Go runtime turns a SIGSEGV into exit status 2; become a shell
		// (same process) that dies of the signal as a crashing program does.
		err := syscall.Exec("/bin/sh", []string{"sh", "-c", "kill -SEGV $$"}, os.Environ())
		panic(err)
	}
	if *exit != 0 {
		fmt.Fprintf(os.Stderr, "fakework: exiting with %d as told\n", *exit)
		os.Exit(*exit)
	}

	mode := os.Getenv("VBENCH_MODE")
	e := float64(*elapsed) * *scale
	cpu := float64(*cpuNs) * *scale
	// A mode defined in a suite says which it is through its env.
	key := mode
	if m := os.Getenv("FAKEWORK_MODE"); m != "" {
		key = m
	}
	if f, ok := parseMap(*overhead)[key]; ok {
		e *= float64(f) / 1000
		cpu *= float64(f) / 1000
	}
	// vbench run loads a private copy of the library; the build's own path
	// is in VBENCH_PROFILER_BUILD.
	lib := os.Getenv("CORECLR_PROFILER_PATH")
	if build := os.Getenv("VBENCH_PROFILER_BUILD"); build != "" {
		lib = build
	}
	if lib != "" {
		for text, f := range parseMap(*libFactor) {
			if strings.Contains(lib, text) {
				e *= float64(f) / 1000
				cpu *= float64(f) / 1000
			}
		}
	}
	if *spread > 0 {
		e *= math.Exp(*spread * rand.NormFloat64())
	}
	if dir := os.Getenv("VBENCH_PROFILE_DIR"); dir != "" && mode != "" && *rawProfile != "" {
		if err := os.WriteFile(filepath.Join(processDir(dir, modes.Engine(mode)), profile.JSONFile), []byte(*rawProfile), 0o644); err != nil {
			panic(err)
		}
	} else if dir != "" && mode != "" && !*noProfile {
		pc := *profCalls
		if pc == "" {
			pc = *calls
		}
		writeProfile(dir, modes.Engine(mode), parseCounts(pc), *profFuncs)
	}
	if *noVbench {
		fmt.Println("fakework: done, but no VBENCH line")
		return
	}
	line := fmt.Sprintf("VBENCH elapsed_ns=%d checksum=%s", int64(math.Round(e)), *checksum)
	if *cpuNs > 0 {
		line += fmt.Sprintf(" cpu_ns=%d", int64(math.Round(cpu)))
	}
	for name, n := range parseCounts(*calls) {
		line += fmt.Sprintf(" calls.%s=%d", name, n)
	}
	fmt.Println("fakework: some output first")
	fmt.Println(line)
}

// parseMap reads mode=factor pairs; factors are kept in thousandths.
func parseMap(s string) map[string]int64 {
	m := map[string]int64{}
	for k, v := range parsePairs(s) {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			panic(err)
		}
		m[k] = int64(math.Round(f * 1000))
	}
	return m
}

// parseCounts reads Function=N pairs.
func parseCounts(s string) map[string]int64 {
	m := map[string]int64{}
	for k, v := range parsePairs(s) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			panic(err)
		}
		m[k] = n
	}
	return m
}

func parsePairs(s string) map[string]string {
	m := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// processDir makes this process's directory under the profile directory
// and its started.json, as the profiler does when it starts.
func processDir(dir string, mode modes.Engine) string {
	pd, err := profile.NewProcessDir(dir, os.Getpid())
	if err != nil {
		panic(err)
	}
	if err := profile.WriteStarted(pd, profile.Process{PID: os.Getpid(), ParentPID: os.Getppid(), Command: os.Args, Mode: mode, Start: time.Now()}); err != nil {
		panic(err)
	}
	return pd
}

func writeProfile(dir string, mode modes.Engine, calls map[string]int64, funcs string) {
	dir = processDir(dir, mode)
	p := profile.Profile{Schema: profile.SchemaVersion, Mode: mode, PID: os.Getpid(), ParentPID: os.Getppid(), Command: os.Args, Start: time.Now(), End: time.Now(),
		Complete: true, Functions: []profile.Function{}, Threads: []profile.Thread{}}
	for name, n := range calls {
		p.Functions = append(p.Functions, profile.Function{ID: len(p.Functions), Name: name, Calls: n, Callers: []profile.Caller{}})
	}
	for name, v := range parsePairs(funcs) {
		ns, samples, _ := strings.Cut(v, ":")
		excl, err := strconv.ParseInt(ns, 10, 64)
		if err != nil {
			panic(err)
		}
		incl, err := strconv.ParseInt(samples, 10, 64)
		if err != nil {
			panic(err)
		}
		p.Functions = append(p.Functions, profile.Function{ID: len(p.Functions), Name: name, Calls: 1, InclusiveNs: excl, ExclusiveNs: excl,
			InclusiveSamples: incl, ExclusiveSamples: incl, Callers: []profile.Caller{}})
	}
	b, err := json.Marshal(&p)
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join(dir, profile.JSONFile), b, 0o644); err != nil {
		panic(err)
	}
}

// burn keeps a CPU busy for d of its own CPU time (not wall time: a shared
// machine would stretch it).
func burn(d time.Duration) {
	var ru syscall.Rusage
	cpu := func() time.Duration {
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	end := cpu() + d
	x := uint64(1)
	for cpu() < end {
		for i := 0; i < 100000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	if x == 42 {
		fmt.Println("unlikely")
	}
}
