package doctor

// The verdicts on what internal/machine reports: pure functions, so every
// branch is tested with a written-down report of some machine.

import (
	"fmt"
	"strconv"
	"strings"

	"vbench/internal/machine"
)

// minRuntimeMajor is the oldest .NET runtime whose profiling API has what the
// profiler uses (ICorProfilerInfo10 SuspendRuntime/ResumeRuntime on Linux).
const minRuntimeMajor = 8

func checkRuntime(d machine.Dotnet) Check {
	c := Check{Name: ".NET runtime"}
	best := d.Newest()
	switch {
	case d.Host == "":
		c.Status, c.Detail = Fail, "dotnet not found on PATH"
		c.Advice = "install the .NET SDK (8 or newer) and put dotnet on PATH"
	case d.Err != nil:
		c.Status, c.Detail = Fail, d.Err.Error()
	case best == "":
		c.Status, c.Detail = Fail, "no Microsoft.NETCore.App runtime installed"
		c.Advice = "install the .NET SDK or runtime, 8 or newer"
	case major(best) < minRuntimeMajor:
		c.Status, c.Detail = Fail, "Microsoft.NETCore.App "+best
		c.Advice = fmt.Sprintf("the profiler needs .NET %d or newer", minRuntimeMajor)
	default:
		c.Status, c.Detail = OK, "Microsoft.NETCore.App "+best+" ("+d.Host+")"
	}
	return c
}

func major(version string) int {
	m, _ := strconv.Atoi(strings.SplitN(version, ".", 2)[0])
	return m
}

// checkMachine judges what makes timings noisy, in the order doctor prints it.
func checkMachine(r machine.Report) []Check {
	return []Check{checkCPUs(r), checkGovernor(r.Governors), checkTurbo(r.Turbo), checkLoad(r.Load, r.CPUs),
		checkQuota(r.Quota), checkHypervisor(r.Hypervisor, r.Steal), checkTSC(r), checkMemory(r.MemAvailable)}
}

func checkCPUs(r machine.Report) Check {
	c := Check{Name: "CPUs", Status: OK, Detail: strconv.Itoa(r.CPUs)}
	if r.CPUModel != "" {
		c.Detail += " × " + r.CPUModel
	}
	if r.CPUs < 2 {
		c.Status = Warn
		c.Advice = "with one CPU the profiler's own threads compete with the workload; multi-threaded workloads are unrepresentative"
	}
	return c
}

func checkGovernor(governors []string) Check {
	c := Check{Name: "frequency governor"}
	if len(governors) == 0 {
		c.Status, c.Detail = Info, "not exposed (virtual machine, or no cpufreq driver): the host decides clock speeds"
		return c
	}
	c.Detail = strings.Join(governors, ", ")
	if len(governors) == 1 && governors[0] == "performance" {
		c.Status = OK
		return c
	}
	c.Status = Warn
	c.Advice = "clock speed follows load; for stable timings: sudo cpupower frequency-set -g performance"
	return c
}

func checkTurbo(t machine.Turbo) Check {
	c := Check{Name: "turbo boost"}
	switch {
	case t.Driver == "":
		c.Status, c.Detail = Info, "not exposed"
	case !t.On:
		c.Status, c.Detail = OK, "off"
	case t.Driver == "intel_pstate":
		c.Status, c.Detail = Warn, "on"
		c.Advice = "turbo frequency depends on temperature and load: echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"
	default:
		c.Status, c.Detail = Warn, "on"
		c.Advice = "boost frequency depends on temperature and load: echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost"
	}
	if t.Driver == "intel_pstate" {
		c.Detail += " (intel_pstate)"
	}
	return c
}

// loadWarnShare is the 1-minute load, per CPU, above which other work is
// taken to compete with the benchmarks.
const loadWarnShare = 0.25

func checkLoad(load []float64, cpus int) Check {
	c := Check{Name: "load average"}
	if len(load) < 3 {
		c.Status, c.Detail = Info, "unknown"
		return c
	}
	c.Detail = fmt.Sprintf("%.2f %.2f %.2f (1, 5, 15 min) on %d CPUs", load[0], load[1], load[2], cpus)
	if load[0] >= loadWarnShare*float64(cpus) {
		c.Status = Warn
		c.Advice = "other work competes with the benchmarks; medians stay honest but intervals widen"
		return c
	}
	c.Status = OK
	return c
}

func checkQuota(q machine.Quota) Check {
	c := Check{Name: "CPU quota"}
	switch {
	case !q.Known:
		c.Status, c.Detail = OK, "none found"
	case q.CPUs > 0:
		c.Status = Warn
		c.Detail = fmt.Sprintf("cgroup limits this process to %.2f CPUs", q.CPUs)
		c.Advice = "throttling adds pauses of up to a scheduling period to any run"
	default:
		c.Status, c.Detail = OK, "none (cgroup v2)"
	}
	return c
}

// stealWarnShare is the share of CPU time stolen since boot above which the
// host visibly takes time away from this machine.
const stealWarnShare = 0.02

func checkHypervisor(vm bool, steal float64) Check {
	c := Check{Name: "hypervisor"}
	if !vm {
		c.Status, c.Detail = OK, "bare metal"
		return c
	}
	c.Status = Info
	c.Detail = "running in a virtual machine: steal time and noisy neighbours are possible"
	if steal >= 0 {
		c.Detail += fmt.Sprintf(" (steal so far %.1f%% of CPU time)", steal*100)
		if steal > stealWarnShare {
			c.Status = Warn
			c.Advice = "the host takes CPU time away from this machine; compare runs from the same host only"
		}
	}
	return c
}

// checkTSC matters because the tracing engine times frames with rdtsc.
func checkTSC(r machine.Report) Check {
	c := Check{Name: "time stamp counter"}
	if r.ConstantTSC && r.NonstopTSC {
		c.Status, c.Detail = OK, "constant and non-stop (the tracing engine's clock)"
		return c
	}
	c.Status, c.Detail = Warn, "not constant/non-stop"
	c.Advice = "the tracing engine times frames with rdtsc; its wall times may drift with frequency changes"
	return c
}

func checkMemory(available int64) Check {
	c := Check{Name: "memory available"}
	if available < 0 {
		c.Status, c.Detail = Info, "unknown"
		return c
	}
	gib := float64(available) / (1 << 30)
	c.Detail = fmt.Sprintf("%.1f GiB", gib)
	if gib < 1 {
		c.Status = Warn
		c.Advice = "GC-heavy workloads behave differently under memory pressure"
		return c
	}
	c.Status = OK
	return c
}
