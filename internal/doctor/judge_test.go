package doctor

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"vbench/internal/machine"
)

// A quiet bare-metal machine tuned for benchmarking: every check passes.
var tuned = machine.Report{
	Dotnet:   machine.Dotnet{Host: "/usr/bin/dotnet", Runtimes: []string{"8.0.20", "10.0.0-rc.2.25502.107", "10.0.1"}},
	CPUs:     8,
	CPUModel: "Intel(R) Xeon(R) Gold 6338",
	// no hypervisor
	ConstantTSC: true, NonstopTSC: true,
	Governors:    []string{"performance"},
	Turbo:        machine.Turbo{Driver: "intel_pstate", On: false},
	Load:         []float64{0.10, 0.20, 0.30},
	Quota:        machine.Quota{Known: true},
	Steal:        0,
	MemAvailable: 16 << 30,
}

func TestJudgeTunedMachine(t *testing.T) {
	want := []Check{
		{Name: "CPUs", Status: OK, Detail: "8 × Intel(R) Xeon(R) Gold 6338"},
		{Name: "frequency governor", Status: OK, Detail: "performance"},
		{Name: "turbo boost", Status: OK, Detail: "off (intel_pstate)"},
		{Name: "load average", Status: OK, Detail: "0.10 0.20 0.30 (1, 5, 15 min) on 8 CPUs"},
		{Name: "CPU quota", Status: OK, Detail: "none (cgroup v2)"},
		{Name: "hypervisor", Status: OK, Detail: "bare metal"},
		{Name: "time stamp counter", Status: OK, Detail: "constant and non-stop (the tracing engine's clock)"},
		{Name: "memory available", Status: OK, Detail: "16.0 GiB"},
	}
	if d := cmp.Diff(want, checkMachine(tuned)); d != "" {
		t.Errorf("checkMachine (-want +got):\n%s", d)
	}
	if got := checkRuntime(tuned.Dotnet); got != (Check{Name: ".NET runtime", Status: OK, Detail: "Microsoft.NETCore.App 10.0.1 (/usr/bin/dotnet)"}) {
		t.Errorf("checkRuntime = %+v", got)
	}
}

// A noisy one-CPU cloud VM: every noise check has something to say.
func TestJudgeNoisyMachine(t *testing.T) {
	r := machine.Report{
		CPUs:       1,
		Hypervisor: true, ConstantTSC: true,
		Governors:    []string{"ondemand", "performance"},
		Turbo:        machine.Turbo{Driver: "cpufreq", On: true},
		Load:         []float64{0.25, 2, 3},
		Quota:        machine.Quota{Known: true, CPUs: 0.5},
		Steal:        0.125,
		MemAvailable: 512 << 20,
	}
	want := []Check{
		{Name: "CPUs", Status: Warn, Detail: "1",
			Advice: "with one CPU the profiler's own threads compete with the workload; multi-threaded workloads are unrepresentative"},
		{Name: "frequency governor", Status: Warn, Detail: "ondemand, performance",
			Advice: "clock speed follows load; for stable timings: sudo cpupower frequency-set -g performance"},
		{Name: "turbo boost", Status: Warn, Detail: "on",
			Advice: "boost frequency depends on temperature and load: echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost"},
		{Name: "load average", Status: Warn, Detail: "0.25 2.00 3.00 (1, 5, 15 min) on 1 CPUs",
			Advice: "other work competes with the benchmarks; medians stay honest but intervals widen"},
		{Name: "CPU quota", Status: Warn, Detail: "cgroup limits this process to 0.50 CPUs",
			Advice: "throttling adds pauses of up to a scheduling period to any run"},
		{Name: "hypervisor", Status: Warn, Detail: "running in a virtual machine: steal time and noisy neighbours are possible (steal so far 12.5% of CPU time)",
			Advice: "the host takes CPU time away from this machine; compare runs from the same host only"},
		{Name: "time stamp counter", Status: Warn, Detail: "not constant/non-stop",
			Advice: "the tracing engine times frames with rdtsc; its wall times may drift with frequency changes"},
		{Name: "memory available", Status: Warn, Detail: "0.5 GiB",
			Advice: "GC-heavy workloads behave differently under memory pressure"},
	}
	if d := cmp.Diff(want, checkMachine(r)); d != "" {
		t.Errorf("checkMachine (-want +got):\n%s", d)
	}
}

// What a machine that hides everything (a locked-down container) gets: no
// verdict it cannot back, and no failure, since none of this is required.
func TestJudgeUnknowns(t *testing.T) {
	r := machine.Report{CPUs: 4, Steal: -1, MemAvailable: -1}
	want := []Check{
		{Name: "CPUs", Status: OK, Detail: "4"},
		{Name: "frequency governor", Status: Info, Detail: "not exposed (virtual machine, or no cpufreq driver): the host decides clock speeds"},
		{Name: "turbo boost", Status: Info, Detail: "not exposed"},
		{Name: "load average", Status: Info, Detail: "unknown"},
		{Name: "CPU quota", Status: OK, Detail: "none found"},
		{Name: "hypervisor", Status: OK, Detail: "bare metal"},
		{Name: "time stamp counter", Status: Warn, Detail: "not constant/non-stop",
			Advice: "the tracing engine times frames with rdtsc; its wall times may drift with frequency changes"},
		{Name: "memory available", Status: Info, Detail: "unknown"},
	}
	if d := cmp.Diff(want, checkMachine(r)); d != "" {
		t.Errorf("checkMachine (-want +got):\n%s", d)
	}
	if Failed(checkMachine(r)) {
		t.Errorf("noise checks failed the doctor")
	}
}

// The thresholds: where each verdict turns.
func TestJudgeThresholds(t *testing.T) {
	for _, c := range []struct {
		name string
		got  Check
		want Status
	}{
		{"2 CPUs", checkCPUs(machine.Report{CPUs: 2}), OK},
		{"load just under a quarter per CPU", checkLoad([]float64{0.99, 0, 0}, 4), OK},
		{"load at a quarter per CPU", checkLoad([]float64{1, 0, 0}, 4), Warn},
		{"VM, steal unknown", checkHypervisor(true, -1), Info},
		{"VM, 2% steal", checkHypervisor(true, 0.02), Info},
		{"VM, 2.1% steal", checkHypervisor(true, 0.021), Warn},
		{"1 GiB free", checkMemory(1 << 30), OK},
		{"just under 1 GiB free", checkMemory(1<<30 - 1), Warn},
		{"intel turbo on", checkTurbo(machine.Turbo{Driver: "intel_pstate", On: true}), Warn},
		{"cpufreq boost off", checkTurbo(machine.Turbo{Driver: "cpufreq"}), OK},
		{"one governor, not performance", checkGovernor([]string{"schedutil"}), Warn},
		{"TSC constant but stops", checkTSC(machine.Report{ConstantTSC: true}), Warn},
	} {
		if c.got.Status != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, c.got.Status, c.got.Detail, c.want)
		}
	}
	if got := checkTurbo(machine.Turbo{Driver: "intel_pstate", On: true}); got.Detail != "on (intel_pstate)" ||
		got.Advice != "turbo frequency depends on temperature and load: echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo" {
		t.Errorf("intel turbo on: %+v", got)
	}
}

func TestJudgeRuntime(t *testing.T) {
	for _, c := range []struct {
		name string
		d    machine.Dotnet
		want Check
	}{
		{"no dotnet", machine.Dotnet{Err: errors.New(`exec: "dotnet": executable file not found in $PATH`)},
			Check{Status: Fail, Detail: "dotnet not found on PATH", Advice: "install the .NET SDK (8 or newer) and put dotnet on PATH"}},
		{"dotnet fails", machine.Dotnet{Host: "/opt/dotnet", Err: errors.New("/opt/dotnet --list-runtimes: exit status 134")},
			Check{Status: Fail, Detail: "/opt/dotnet --list-runtimes: exit status 134"}},
		{"SDK without runtimes", machine.Dotnet{Host: "/opt/dotnet"},
			Check{Status: Fail, Detail: "no Microsoft.NETCore.App runtime installed", Advice: "install the .NET SDK or runtime, 8 or newer"}},
		{"too old", machine.Dotnet{Host: "/opt/dotnet", Runtimes: []string{"6.0.36", "7.0.20"}},
			Check{Status: Fail, Detail: "Microsoft.NETCore.App 7.0.20", Advice: "the profiler needs .NET 8 or newer"}},
		{"the newest counts, pre-releases before releases", machine.Dotnet{Host: "/opt/dotnet", Runtimes: []string{"6.0.36", "9.0.0", "9.0.0-rc.2.24473.5"}},
			Check{Status: OK, Detail: "Microsoft.NETCore.App 9.0.0 (/opt/dotnet)"}},
		{"oldest supported", machine.Dotnet{Host: "/opt/dotnet", Runtimes: []string{"8.0.0"}},
			Check{Status: OK, Detail: "Microsoft.NETCore.App 8.0.0 (/opt/dotnet)"}},
	} {
		c.want.Name = ".NET runtime"
		if got := checkRuntime(c.d); got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func TestFailed(t *testing.T) {
	if Failed(checkMachine(tuned)) || !Failed(append(checkMachine(tuned), checkRuntime(machine.Dotnet{}))) {
		t.Errorf("Failed does not follow the Fail status")
	}
}
