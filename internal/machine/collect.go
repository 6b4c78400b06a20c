package machine

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Collect describes the machine this process runs on. Every field is best
// effort: what cannot be read stays empty rather than failing a benchmark run.
func Collect(ctx context.Context) Fingerprint {
	commit, dirty := Version()
	fp := Fingerprint{
		CPUModel:      cpuModel(readFile("/proc/cpuinfo")),
		Cores:         runtime.NumCPU(),
		OS:            osName(readFile("/etc/os-release")),
		Kernel:        kernel(),
		DotnetRuntime: Runtimes(ctx, "").Newest(),
		VbenchCommit:  commit,
		VbenchDirty:   dirty,
		Governor:      strings.TrimSpace(readFile("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")),
		GoVersion:     GoVersion(),
	}
	fp.Hostname, _ = os.Hostname()
	return fp
}

func readFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}

// cpuModel takes the first "model name" of /proc/cpuinfo, or names the
// architecture when there is none (some ARM kernels print none).
func cpuModel(cpuinfo string) string {
	if m := cpuinfoField(cpuinfo, "model name"); m != "" {
		return m
	}
	return runtime.GOARCH
}

// osName is GOOS/GOARCH plus PRETTY_NAME from os-release.
func osName(osRelease string) string {
	name := runtime.GOOS + "/" + runtime.GOARCH
	sc := bufio.NewScanner(strings.NewReader(osRelease))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PRETTY_NAME="); ok {
			return name + " " + strings.Trim(v, `"'`)
		}
	}
	return name
}

func kernel() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}

// BusyCPU is the CPU time all processes have used since boot, summed over
// cores, from /proc/stat (user, nice, system, irq, softirq and steal — steal
// being time a hypervisor gave to other machines). ok is false when unreadable.
func BusyCPU() (busy time.Duration, ok bool) {
	line, _, _ := strings.Cut(readFile("/proc/stat"), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, false
	}
	var ticks int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} { // user nice system irq softirq steal
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, false
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, true
}

// clockTicks is USER_HZ, the unit of /proc/stat: 100 on every Linux
// architecture vbench supports.
const clockTicks = 100

// LoadAverage is the 1-minute load average (/proc/loadavg), or -1 when unknown.
// A load above the core count means other processes competed with the
// workloads for the CPU, and timings are unreliable.
func LoadAverage() float64 {
	if l := loadAverages(readFile("/proc/loadavg")); l != nil {
		return l[0]
	}
	return -1
}
