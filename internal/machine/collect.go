package machine

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
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
		DotnetRuntime: dotnetRuntime(ctx),
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

// cpuModel takes the first "model name" of /proc/cpuinfo.
func cpuModel(cpuinfo string) string {
	sc := bufio.NewScanner(strings.NewReader(cpuinfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
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

var netcoreRe = regexp.MustCompile(`(?m)^Microsoft\.NETCore\.App ([0-9][^ ]*) `)

// dotnetRuntime is the newest Microsoft.NETCore.App that `dotnet
// --list-runtimes` reports (the one a net10 workload rolls forward to).
func dotnetRuntime(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "dotnet", "--list-runtimes")
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return newestRuntime(out)
}

func newestRuntime(listRuntimes []byte) string {
	var best string
	for _, m := range netcoreRe.FindAllSubmatch(listRuntimes, -1) {
		v := string(m[1])
		if best == "" || versionLess(best, v) {
			best = v
		}
	}
	return best
}

// versionLess compares dotted versions numerically where it can.
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if as[i] == bs[i] {
			continue
		}
		ai, aerr := atoi(as[i])
		bi, berr := atoi(bs[i])
		if aerr || berr {
			return as[i] < bs[i]
		}
		return ai < bi
	}
	return len(as) < len(bs)
}

func atoi(s string) (int, bool) {
	n := 0
	if s == "" {
		return 0, true
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, true
		}
		n = n*10 + int(c-'0')
	}
	return n, false
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
	var l float64
	if _, err := fmt.Sscan(readFile("/proc/loadavg"), &l); err != nil {
		return -1
	}
	return l
}
