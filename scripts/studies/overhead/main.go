//go:build vbenchstudy

// Command overhead measures the vbench profiler's cost side by side: it runs
// the test program's fib (100 × fib(30)) and mandel scenarios under none,
// null, tracing and sampling, interleaved, N times each, and prints the
// median of each workload's own Stopwatch time, the multiples against none
// (and tracing against null), peak RSS, and how many of the methods tracing
// shows with >= 1% of the time sampling also finds.
//
//	go run -tags vbenchstudy ./scripts/studies/overhead -runs 11
//
// It is a developer's tool; the official numbers come from `vbench run` on
// benchmarks/.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/profile"
)

var msRE = regexp.MustCompile(`ms=([0-9.]+)`)

// samplingNoInline is sampling with user methods kept from being inlined
// (VBENCH_SAMPLING_NOINLINE=1), a mode only this tool knows.
const samplingNoInline = modes.Sampling + "+noinline"

type sample struct {
	ms    float64
	rssKB int64
	dir   string
}

func main() {
	runs := flag.Int("runs", 11, "runs per workload and mode")
	lib := flag.String("lib", "bin/libvbenchprof.so", "profiler library")
	app := flag.String("app", "profiler/testdata/app/bin/Release/net10.0/VbTestApp.dll", "test program")
	interval := flag.Duration("interval", 0, "sampling interval (default: the profiler's 10ms)")
	modeList := flag.String("modes", strings.ReplaceAll(modes.List(append(modes.Builtins, samplingNoInline)), " ", ""), "modes to compare (none first)")
	flag.Parse()
	libPath, err := attach.Check(*lib)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// sampling+noinline: user methods kept from being inlined (VBENCH_SAMPLING_NOINLINE=1).
	var chosen []modes.Mode
	for _, m := range strings.Split(*modeList, ",") {
		chosen = append(chosen, modes.Mode(m))
	}
	workloads := [][]string{{"fib", "100"}, {"mandel", "1600"}}
	tmp, _ := os.MkdirTemp("", "vbench-overhead-")
	defer os.RemoveAll(tmp)
	res := map[string]map[modes.Mode][]sample{}
	for _, w := range workloads {
		res[w[0]] = map[modes.Mode][]sample{}
		for i := 0; i < *runs; i++ {
			for _, m := range chosen {
				dir := filepath.Join(tmp, fmt.Sprintf("%s-%s-%d", w[0], m, i))
				os.MkdirAll(dir, 0o755)
				s, err := runOnce(libPath, *app, m, dir, *interval, w)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s %s run %d: %v\n", w[0], m, i, err)
					os.Exit(1)
				}
				res[w[0]][m] = append(res[w[0]][m], s)
			}
		}
	}
	fmt.Printf("%d runs each, interleaved; medians of the workload's own time\n\n", *runs)
	fmt.Printf("%-8s %-16s %10s %8s %9s %9s\n", "workload", "mode", "median ms", "× none", "× null", "RSS MiB")
	for _, w := range workloads {
		base := median(res[w[0]][modes.None])
		null := 0.0
		if len(res[w[0]][modes.Null]) > 0 {
			null = median(res[w[0]][modes.Null])
		}
		for _, m := range chosen {
			med := median(res[w[0]][m])
			xnull := "-"
			if m == modes.Tracing && null > 0 {
				xnull = fmt.Sprintf("%.2f", med/null)
			}
			fmt.Printf("%-8s %-16s %10.1f %8.2f %9s %9.1f\n", w[0], m, med, med/base, xnull, float64(medianRSS(res[w[0]][m]))/1024)
		}
	}
	// Coverage: methods with >= 1% of exclusive time under tracing, found by sampling.
	for _, w := range workloads {
		if len(res[w[0]][modes.Tracing]) == 0 {
			continue
		}
		tr, err1 := profile.ReadFile(res[w[0]][modes.Tracing][0].dir)
		if err1 != nil {
			continue
		}
		var total int64
		for _, f := range tr.Functions {
			total += f.ExclusiveNs
		}
		var want []string
		for _, f := range tr.Functions {
			if total > 0 && f.ExclusiveNs*100 >= total {
				want = append(want, f.Name)
			}
		}
		sort.Strings(want)
		for _, m := range chosen {
			if m != modes.Sampling && m != samplingNoInline {
				continue
			}
			// Found: seen on a stack in any run of this mode (one run of a
			// sub-second workload takes only ~30-40 samples).
			found := map[string]bool{}
			for _, s := range res[w[0]][m] {
				if sp, err := profile.ReadFile(s.dir); err == nil {
					for _, f := range sp.Functions {
						if f.InclusiveSamples > 0 {
							found[f.Name] = true
						}
					}
				}
			}
			var got []string
			for _, n := range want {
				if found[n] {
					got = append(got, n)
				}
			}
			fmt.Printf("\n%s, %s: finds %d of the %d methods with >= 1%% of exclusive time under tracing: %s\n",
				w[0], m, len(got), len(want), strings.Join(missing(want, got), ", "))
		}
	}
}

func missing(want, got []string) []string {
	g := map[string]bool{}
	for _, x := range got {
		g[x] = true
	}
	var out []string
	for _, x := range want {
		if !g[x] {
			out = append(out, "missing "+x)
		}
	}
	if len(out) == 0 {
		return []string{"all found"}
	}
	return out
}

func runOnce(lib, app string, mode modes.Mode, dir string, interval interface{ Nanoseconds() int64 }, w []string) (sample, error) {
	cmd := exec.Command("dotnet", append([]string{app}, w...)...)
	env := attach.ScrubEnv(os.Environ())
	if mode == samplingNoInline {
		mode = modes.Sampling
		env = append(env, modes.EnvVar("no_inline")+"=1")
	}
	if engine := mode.Engine(); engine != "" {
		env = append(env, attach.Env(lib, attach.Options{Engine: engine, ProfileDir: dir})...)
		if interval.Nanoseconds() > 0 {
			env = append(env, fmt.Sprintf("%s=%dns", modes.EnvVar("interval"), interval.Nanoseconds()))
		}
	}
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return sample{}, err
	}
	m := msRE.FindStringSubmatch(out.String())
	if m == nil {
		return sample{}, fmt.Errorf("no ms= in %q", out.String())
	}
	ms, _ := strconv.ParseFloat(m[1], 64)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return sample{ms: ms, rssKB: ru.Maxrss, dir: dir}, nil
}

func median(ss []sample) float64 {
	xs := make([]float64, len(ss))
	for i, s := range ss {
		xs[i] = s.ms
	}
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

func medianRSS(ss []sample) int64 {
	xs := make([]int64, len(ss))
	for i, s := range ss {
		xs[i] = s.rssKB
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	return xs[len(xs)/2]
}
