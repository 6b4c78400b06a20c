// Package doctor inspects the machine for what vbench needs (the .NET runtime,
// a profiler library that really loads) and for what makes timings noisy
// (frequency scaling, turbo, load, CPU quotas, a hypervisor).
package doctor

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"vbench/internal/attach"
	"vbench/internal/profile"
	"vbench/internal/results"
)

// Status of one check.
type Status int

const (
	OK   Status = iota // as it should be
	Info               // worth knowing, no action needed
	Warn               // makes timings noisier
	Fail               // vbench cannot work
)

func (s Status) String() string { return [...]string{"ok", "info", "warn", "fail"}[s] }

// Check is one line of the doctor's report.
type Check struct {
	Name   string
	Status Status
	Detail string // what was found
	Advice string // what to do about it, when anything
}

// Options say where things are; zero values mean the defaults.
type Options struct {
	Dotnet      string // dotnet host; default: from PATH
	ProfilerLib string // default: attach.DefaultLibrary()
	Timeout     time.Duration
}

// Run performs every check. Required checks come first.
func Run(ctx context.Context, o Options) []Check {
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
	var out []Check
	dotnet, c := checkDotnet(ctx, o.Dotnet)
	out = append(out, c)
	lib, c := checkLibrary(o.ProfilerLib)
	out = append(out, c)
	out = append(out, checkLoads(ctx, dotnet, lib, o.Timeout))
	out = append(out, checkCPUs(), checkGovernor(), checkTurbo(), checkLoad(), checkQuota(),
		checkHypervisor(), checkTSC(), checkMemory())
	return out
}

// Failed reports whether any required check failed.
func Failed(cs []Check) bool {
	for _, c := range cs {
		if c.Status == Fail {
			return true
		}
	}
	return false
}

// minRuntimeMajor is the oldest .NET runtime whose profiling API has what the
// profiler uses (ICorProfilerInfo10 SuspendRuntime/ResumeRuntime on Linux).
const minRuntimeMajor = 8

func checkDotnet(ctx context.Context, dotnet string) (string, Check) {
	c := Check{Name: ".NET runtime"}
	if dotnet == "" {
		p, err := exec.LookPath("dotnet")
		if err != nil {
			c.Status, c.Detail = Fail, "dotnet not found on PATH"
			c.Advice = "install the .NET SDK (8 or newer) and put dotnet on PATH"
			return "", c
		}
		dotnet = p
	}
	out, err := exec.CommandContext(ctx, dotnet, "--list-runtimes").Output()
	if err != nil {
		c.Status, c.Detail = Fail, fmt.Sprintf("%s --list-runtimes: %v", dotnet, err)
		return dotnet, c
	}
	best := ""
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "Microsoft.NETCore.App" {
			if best == "" || versionLess(best, f[1]) {
				best = f[1]
			}
		}
	}
	if best == "" {
		c.Status, c.Detail = Fail, "no Microsoft.NETCore.App runtime installed"
		c.Advice = "install the .NET SDK or runtime, 8 or newer"
		return dotnet, c
	}
	if major, _ := strconv.Atoi(strings.SplitN(best, ".", 2)[0]); major < minRuntimeMajor {
		c.Status, c.Detail = Fail, "Microsoft.NETCore.App "+best
		c.Advice = fmt.Sprintf("the profiler needs .NET %d or newer", minRuntimeMajor)
		return dotnet, c
	}
	c.Status, c.Detail = OK, "Microsoft.NETCore.App "+best+" ("+dotnet+")"
	return dotnet, c
}

// versionLess compares dotted numeric versions (pre-release tails compare as text).
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, errx := strconv.Atoi(as[i])
		y, erry := strconv.Atoi(bs[i])
		if errx != nil || erry != nil {
			if as[i] != bs[i] {
				return as[i] < bs[i]
			}
			continue
		}
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}

func checkLibrary(path string) (string, Check) {
	c := Check{Name: "profiler library"}
	if path == "" {
		path = attach.DefaultLibrary()
	}
	abs, err := attach.Check(path)
	if err != nil {
		c.Status, c.Detail = Fail, err.Error()
		c.Advice = "run `make build`, or pass --profiler PATH"
		return "", c
	}
	c.Status, c.Detail = OK, abs
	return abs, c
}

// checkLoads proves the library loads into a real CoreCLR process: `dotnet
// --version` runs managed SDK code, so CoreCLR starts and must load the
// profiler, whose null engine then writes a profile.
func checkLoads(ctx context.Context, dotnet, lib string, timeout time.Duration) Check {
	c := Check{Name: "profiler loads"}
	if dotnet == "" || lib == "" {
		c.Status, c.Detail = Fail, "skipped: needs the .NET runtime and the library"
		return c
	}
	dir, err := os.MkdirTemp("", "vbench-doctor-")
	if err != nil {
		c.Status, c.Detail = Fail, err.Error()
		return c
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, dotnet, "--version")
	cmd.Env = append(attach.ScrubEnv(os.Environ()),
		attach.Env(lib, attach.Options{Engine: results.EngineNull, ProfileDir: dir})...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		c.Status, c.Detail = Fail, fmt.Sprintf("dotnet --version with the profiler attached: %v %s", err, lastLine(stderr.String()))
		return c
	}
	p, err := profile.ReadFile(dir)
	if err != nil {
		c.Status = Fail
		c.Detail = "CoreCLR ran but the profiler wrote no profile: it did not load or failed to initialise"
		if s := lastLine(stderr.String()); s != "" {
			c.Detail += ": " + s
		}
		c.Advice = "run `vbench profile --mode null -- dotnet --version` to see the profiler's own messages"
		return c
	}
	c.Status = OK
	c.Detail = fmt.Sprintf("null engine attached to `dotnet --version` (runtime %s)", p.RuntimeVersion)
	return c
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func readTrim(path string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

func cpuinfoField(name string) string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func checkCPUs() Check {
	n := runtime.NumCPU()
	c := Check{Name: "CPUs", Status: OK, Detail: fmt.Sprintf("%d × %s", n, cpuinfoField("model name"))}
	if n < 2 {
		c.Status = Warn
		c.Advice = "with one CPU the profiler's own threads compete with the workload; multi-threaded workloads are unrepresentative"
	}
	return c
}

func checkGovernor() Check {
	c := Check{Name: "frequency governor"}
	govs, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor")
	if len(govs) == 0 {
		c.Status, c.Detail = Info, "not exposed (virtual machine, or no cpufreq driver): the host decides clock speeds"
		return c
	}
	seen := map[string]bool{}
	for _, g := range govs {
		if v, ok := readTrim(g); ok {
			seen[v] = true
		}
	}
	var names []string
	for k := range seen {
		names = append(names, k)
	}
	c.Detail = strings.Join(names, ", ")
	if len(seen) == 1 && seen["performance"] {
		c.Status = OK
		return c
	}
	c.Status = Warn
	c.Advice = "clock speed follows load; for stable timings: sudo cpupower frequency-set -g performance"
	return c
}

func checkTurbo() Check {
	c := Check{Name: "turbo boost"}
	if v, ok := readTrim("/sys/devices/system/cpu/intel_pstate/no_turbo"); ok {
		if v == "1" {
			c.Status, c.Detail = OK, "off (intel_pstate)"
		} else {
			c.Status, c.Detail = Warn, "on (intel_pstate)"
			c.Advice = "turbo frequency depends on temperature and load: echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"
		}
		return c
	}
	if v, ok := readTrim("/sys/devices/system/cpu/cpufreq/boost"); ok {
		if v == "0" {
			c.Status, c.Detail = OK, "off"
		} else {
			c.Status, c.Detail = Warn, "on"
			c.Advice = "boost frequency depends on temperature and load: echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost"
		}
		return c
	}
	c.Status, c.Detail = Info, "not exposed"
	return c
}

func checkLoad() Check {
	c := Check{Name: "load average"}
	s, ok := readTrim("/proc/loadavg")
	if !ok {
		c.Status, c.Detail = Info, "unknown"
		return c
	}
	f := strings.Fields(s)
	load1, _ := strconv.ParseFloat(f[0], 64)
	n := float64(runtime.NumCPU())
	c.Detail = fmt.Sprintf("%s %s %s (1, 5, 15 min) on %d CPUs", f[0], f[1], f[2], runtime.NumCPU())
	if load1 >= 0.25*n {
		c.Status = Warn
		c.Advice = "other work competes with the benchmarks; medians stay honest but intervals widen"
		return c
	}
	c.Status = OK
	return c
}

func checkQuota() Check {
	c := Check{Name: "CPU quota"}
	if s, ok := readTrim("/sys/fs/cgroup/cpu.max"); ok {
		f := strings.Fields(s)
		if len(f) == 2 && f[0] != "max" {
			q, _ := strconv.ParseFloat(f[0], 64)
			p, _ := strconv.ParseFloat(f[1], 64)
			c.Status = Warn
			c.Detail = fmt.Sprintf("cgroup limits this process to %.2f CPUs", q/p)
			c.Advice = "throttling adds pauses of up to a scheduling period to any run"
			return c
		}
		c.Status, c.Detail = OK, "none (cgroup v2)"
		return c
	}
	c.Status, c.Detail = OK, "none found"
	return c
}

func checkHypervisor() Check {
	c := Check{Name: "hypervisor"}
	flags := cpuinfoField("flags")
	if strings.Contains(" "+flags+" ", " hypervisor ") {
		c.Status = Info
		c.Detail = "running in a virtual machine: steal time and noisy neighbours are possible"
		if st := stealShare(); st >= 0 {
			c.Detail += fmt.Sprintf(" (steal so far %.1f%% of CPU time)", st*100)
			if st > 0.02 {
				c.Status = Warn
				c.Advice = "the host takes CPU time away from this machine; compare runs from the same host only"
			}
		}
		return c
	}
	c.Status, c.Detail = OK, "bare metal"
	return c
}

// stealShare returns the share of CPU time stolen by the hypervisor since boot, or -1.
func stealShare() float64 {
	s, ok := readTrim("/proc/stat")
	if !ok {
		return -1
	}
	line, _, _ := strings.Cut(s, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return -1
	}
	var total, steal float64
	for i, x := range f[1:] {
		v, _ := strconv.ParseFloat(x, 64)
		if i < 8 {
			total += v
		}
		if i == 7 {
			steal = v
		}
	}
	if total == 0 {
		return -1
	}
	return steal / total
}

// checkTSC matters because the tracing engine times frames with rdtsc.
func checkTSC() Check {
	c := Check{Name: "time stamp counter"}
	flags := " " + cpuinfoField("flags") + " "
	if strings.Contains(flags, " constant_tsc ") && strings.Contains(flags, " nonstop_tsc ") {
		c.Status, c.Detail = OK, "constant and non-stop (the tracing engine's clock)"
		return c
	}
	c.Status, c.Detail = Warn, "not constant/non-stop"
	c.Advice = "the tracing engine times frames with rdtsc; its wall times may drift with frequency changes"
	return c
}

func checkMemory() Check {
	c := Check{Name: "memory available"}
	s, ok := readTrim("/proc/meminfo")
	if !ok {
		c.Status, c.Detail = Info, "unknown"
		return c
	}
	for _, line := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			gib := kb / (1 << 20)
			c.Detail = fmt.Sprintf("%.1f GiB", gib)
			if gib < 1 {
				c.Status = Warn
				c.Advice = "GC-heavy workloads behave differently under memory pressure"
			} else {
				c.Status = OK
			}
			return c
		}
	}
	c.Status, c.Detail = Info, "unknown"
	return c
}
