package machine

// Probe reads what makes timings on this machine noisy, and which .NET
// runtimes it has: everything `vbench doctor` judges. It reads; it does not
// judge (that is internal/doctor's job), so a report of any machine can be
// written down in a test.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Report is what Probe found. Every field says when it could not be read,
// rather than failing: a container may hide /sys, a VM has no cpufreq.
type Report struct {
	Dotnet Dotnet

	CPUs     int    // CPUs this process may run on (runtime.NumCPU: its affinity mask)
	CPUModel string // /proc/cpuinfo's first "model name"; "" when it has none

	// From the CPU flags in /proc/cpuinfo.
	Hypervisor  bool // a hypervisor runs this machine (a VM)
	ConstantTSC bool // the time stamp counter ticks at a constant rate...
	NonstopTSC  bool // ...and keeps ticking in deep idle states

	// Governors are the distinct cpufreq scaling governors over all CPUs,
	// sorted; empty when cpufreq is not exposed (VMs, no driver).
	Governors []string
	Turbo     Turbo

	// Load is the 1, 5 and 15-minute load averages; nil when unknown.
	Load []float64
	// Quota is the cgroup's CPU limit.
	Quota Quota
	// Steal is the share of all CPU time since boot that the hypervisor gave
	// to other machines (/proc/stat); -1 when unknown.
	Steal float64
	// MemAvailable is /proc/meminfo's MemAvailable in bytes; -1 when unknown.
	MemAvailable int64
}

// Turbo is whether the CPU may clock above its base frequency.
type Turbo struct {
	Driver string // who exposes the switch: "intel_pstate" or "cpufreq"; "" when nothing does
	On     bool
}

// Quota is the CPU limit of the cgroup (v2) this machine's processes run in.
type Quota struct {
	Known bool    // /sys/fs/cgroup/cpu.max was readable
	CPUs  float64 // CPUs' worth of time allowed per period; 0 when unlimited
}

// Dotnet is what a dotnet host says about its runtimes.
type Dotnet struct {
	Host     string   // the host asked; "" when none was found on PATH
	Runtimes []string // every Microsoft.NETCore.App version it lists
	Err      error    // why the host could not be found or asked
}

// Newest is the newest runtime (the one a net10 workload rolls forward to),
// "" when there is none.
func (d Dotnet) Newest() string {
	var best string
	for _, v := range d.Runtimes {
		if best == "" || versionLess(best, v) {
			best = v
		}
	}
	return best
}

// Probe reads the machine. dotnet is the host to ask for its runtimes; ""
// means the one on PATH.
func Probe(ctx context.Context, dotnet string) Report {
	r := probeFS(os.DirFS("/"))
	r.CPUs = runtime.NumCPU()
	r.Dotnet = Runtimes(ctx, dotnet)
	return r
}

// probeFS reads everything but the CPU count and .NET from root, the file
// system's root ("/" on a real machine, a fixture in tests).
func probeFS(root fs.FS) Report {
	read := func(name string) (string, bool) {
		b, err := fs.ReadFile(root, name)
		return string(b), err == nil
	}
	cpuinfo, _ := read("proc/cpuinfo")
	flags := " " + cpuinfoField(cpuinfo, "flags") + " "
	r := Report{
		CPUModel:     cpuinfoField(cpuinfo, "model name"),
		Hypervisor:   strings.Contains(flags, " hypervisor "),
		ConstantTSC:  strings.Contains(flags, " constant_tsc "),
		NonstopTSC:   strings.Contains(flags, " nonstop_tsc "),
		Steal:        -1,
		MemAvailable: -1,
	}

	govs, _ := fs.Glob(root, "sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor")
	for _, g := range govs {
		if v, ok := read(g); ok && strings.TrimSpace(v) != "" {
			r.Governors = append(r.Governors, strings.TrimSpace(v))
		}
	}
	slices.Sort(r.Governors)
	r.Governors = slices.Compact(r.Governors)

	if v, ok := read("sys/devices/system/cpu/intel_pstate/no_turbo"); ok {
		r.Turbo = Turbo{Driver: "intel_pstate", On: strings.TrimSpace(v) != "1"}
	} else if v, ok := read("sys/devices/system/cpu/cpufreq/boost"); ok {
		r.Turbo = Turbo{Driver: "cpufreq", On: strings.TrimSpace(v) != "0"}
	}

	if s, ok := read("proc/loadavg"); ok {
		r.Load = loadAverages(s)
	}
	if s, ok := read("sys/fs/cgroup/cpu.max"); ok {
		r.Quota = cpuMax(s)
	}
	if s, ok := read("proc/stat"); ok {
		r.Steal = stealShare(s)
	}
	if s, ok := read("proc/meminfo"); ok {
		r.MemAvailable = memAvailable(s)
	}
	return r
}

// cpuinfoField is the first value of the named field in /proc/cpuinfo.
func cpuinfoField(cpuinfo, name string) string {
	sc := bufio.NewScanner(strings.NewReader(cpuinfo))
	sc.Buffer(nil, 1<<20) // a flags line is long
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// loadAverages parses /proc/loadavg's first three fields; nil when malformed.
func loadAverages(loadavg string) []float64 {
	f := strings.Fields(loadavg)
	if len(f) < 3 {
		return nil
	}
	out := make([]float64, 3)
	for i := range out {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return nil
		}
		out[i] = v
	}
	return out
}

// cpuMax parses cgroup v2's cpu.max: "max PERIOD" or "QUOTA PERIOD" in µs.
func cpuMax(s string) Quota {
	q := Quota{Known: true}
	f := strings.Fields(s)
	if len(f) != 2 || f[0] == "max" {
		return q
	}
	quota, err1 := strconv.ParseFloat(f[0], 64)
	period, err2 := strconv.ParseFloat(f[1], 64)
	if err1 == nil && err2 == nil && quota > 0 && period > 0 {
		q.CPUs = quota / period
	}
	return q
}

// stealShare is steal over all time in /proc/stat's "cpu" line (user nice
// system idle iowait irq softirq steal; guest time is already inside user),
// or -1.
func stealShare(stat string) float64 {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return -1
	}
	var total, steal float64
	for i, x := range f[1:9] {
		v, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return -1
		}
		total += v
		if i == 7 {
			steal = v
		}
	}
	if total == 0 {
		return -1
	}
	return steal / total
}

// memAvailable is /proc/meminfo's MemAvailable in bytes, or -1.
func memAvailable(meminfo string) int64 {
	for _, line := range strings.Split(meminfo, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return -1
			}
			return kb * 1024
		}
	}
	return -1
}

var netcoreRe = regexp.MustCompile(`(?m)^Microsoft\.NETCore\.App ([0-9][^ ]*) `)

// Runtimes asks a dotnet host (from PATH when dotnet is "") which runtimes
// it has.
func Runtimes(ctx context.Context, dotnet string) Dotnet {
	if dotnet == "" {
		p, err := exec.LookPath("dotnet")
		if err != nil {
			return Dotnet{Err: err}
		}
		dotnet = p
	}
	d := Dotnet{Host: dotnet}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, dotnet, "--list-runtimes")
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			err = fmt.Errorf("%w: %s", err, lastLine(string(ee.Stderr)))
		}
		d.Err = fmt.Errorf("%s --list-runtimes: %w", dotnet, err)
		return d
	}
	d.Runtimes = parseRuntimes(out)
	return d
}

func parseRuntimes(listRuntimes []byte) []string {
	var vs []string
	for _, m := range netcoreRe.FindAllSubmatch(listRuntimes, -1) {
		vs = append(vs, string(m[1]))
	}
	return vs
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
