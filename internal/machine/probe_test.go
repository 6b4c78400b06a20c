package machine

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// Machines this one is not, written down as the files Probe reads.
func TestProbeFS(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  Report
	}{
		{
			name: "nothing readable (a locked-down container)",
			want: Report{Steal: -1, MemAvailable: -1},
		},
		{
			name: "intel bare metal, mixed governors, turbo on, a cgroup quota",
			files: map[string]string{
				"proc/cpuinfo": "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Gold 6338\nflags\t\t: fpu tsc constant_tsc nonstop_tsc avx2\n\n" +
					"processor\t: 1\nmodel name\t: Intel(R) Xeon(R) Gold 6338\nflags\t\t: fpu tsc\n",
				"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor":  "powersave\n",
				"sys/devices/system/cpu/cpu1/cpufreq/scaling_governor":  "performance\n",
				"sys/devices/system/cpu/cpu12/cpufreq/scaling_governor": "powersave\n",
				"sys/devices/system/cpu/intel_pstate/no_turbo":          "0\n",
				"sys/devices/system/cpu/cpufreq/boost":                  "0\n", // intel_pstate wins
				"proc/loadavg":                                          "3.50 1.25 0.07 2/300 4242\n",
				"sys/fs/cgroup/cpu.max":                                 "150000 100000\n",
				"proc/stat":                                             "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 1 2 3\n",
				"proc/meminfo":                                          "MemTotal:       65536000 kB\nMemAvailable:    1048576 kB\n",
			},
			want: Report{
				CPUModel: "Intel(R) Xeon(R) Gold 6338", ConstantTSC: true, NonstopTSC: true,
				Governors: []string{"performance", "powersave"},
				Turbo:     Turbo{Driver: "intel_pstate", On: true},
				Load:      []float64{3.5, 1.25, 0.07},
				Quota:     Quota{Known: true, CPUs: 1.5},
				Steal:     0, MemAvailable: 1 << 30,
			},
		},
		{
			name: "a VM with steal, boost off, no quota",
			files: map[string]string{
				"proc/cpuinfo":                         "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu tsc hypervisor constant_tsc\n",
				"sys/devices/system/cpu/cpufreq/boost": "0\n",
				"sys/fs/cgroup/cpu.max":                "max 100000\n",
				"proc/stat":                            "cpu  60 0 20 10 0 0 0 10 0 0\n",
			},
			want: Report{
				CPUModel: "AMD EPYC", Hypervisor: true, ConstantTSC: true,
				Turbo: Turbo{Driver: "cpufreq"},
				Quota: Quota{Known: true},
				Steal: 0.1, MemAvailable: -1,
			},
		},
		{
			name: "malformed files read as unknown",
			files: map[string]string{
				"proc/loadavg": "x y z\n",
				"proc/stat":    "intr 1 2 3\n",
				"proc/meminfo": "MemAvailable: lots kB\n",
			},
			want: Report{Steal: -1, MemAvailable: -1},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, data := range c.files {
				fsys[name] = &fstest.MapFile{Data: []byte(data)}
			}
			got := probeFS(fsys)
			if d := cmp.Diff(c.want, got, cmp.Comparer(func(a, b error) bool { return (a == nil) == (b == nil) })); d != "" {
				t.Errorf("probeFS (-want +got):\n%s", d)
			}
		})
	}
}

// Probe on this machine: each field agrees with the file it comes from, read
// here independently, whatever this machine's values are.
func TestProbe(t *testing.T) {
	r := Probe(context.Background(), "")
	if r.CPUs != runtime.NumCPU() {
		t.Errorf("CPUs = %d, runtime.NumCPU() = %d", r.CPUs, runtime.NumCPU())
	}
	cpuinfo, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Fatal(err)
	}
	if r.CPUModel == "" || !strings.Contains(string(cpuinfo), r.CPUModel) {
		t.Errorf("CPUModel %q is not in /proc/cpuinfo", r.CPUModel)
	}
	flags := strings.Fields(cpuinfoField(string(cpuinfo), "flags"))
	if r.Hypervisor != slices.Contains(flags, "hypervisor") || r.ConstantTSC != slices.Contains(flags, "constant_tsc") ||
		r.NonstopTSC != slices.Contains(flags, "nonstop_tsc") {
		t.Errorf("CPU flags misread: %+v", r)
	}
	if len(r.Load) != 3 || r.Load[0] < 0 {
		t.Errorf("Load = %v", r.Load)
	}
	if r.Steal < 0 || r.Steal > 1 {
		t.Errorf("Steal = %v, want a share", r.Steal)
	}
	if r.MemAvailable <= 0 {
		t.Errorf("MemAvailable = %d", r.MemAvailable)
	}
	for _, g := range r.Governors {
		if g == "" || strings.ContainsAny(g, " \n") {
			t.Errorf("governor %q", g)
		}
	}
	_, err = os.Stat("/sys/fs/cgroup/cpu.max")
	if r.Quota.Known != (err == nil) {
		t.Errorf("Quota.Known = %v, cpu.max stat: %v", r.Quota.Known, err)
	}

	out, err := exec.Command("dotnet", "--list-runtimes").Output()
	if err != nil {
		t.Fatalf("dotnet --list-runtimes: %v", err)
	}
	if r.Dotnet.Err != nil || r.Dotnet.Host == "" || len(r.Dotnet.Runtimes) == 0 {
		t.Fatalf("Dotnet = %+v", r.Dotnet)
	}
	for _, v := range r.Dotnet.Runtimes {
		if !strings.Contains(string(out), "Microsoft.NETCore.App "+v+" ") {
			t.Errorf("runtime %q not in\n%s", v, out)
		}
	}
}

func TestRuntimes(t *testing.T) {
	list := []byte("Microsoft.AspNetCore.App 10.0.12 [/x]\nMicrosoft.NETCore.App 8.0.20 [/y]\nMicrosoft.NETCore.App 10.0.0-rc.2.25502.107 [/y]\n" +
		"Microsoft.NETCore.App 10.0.12 [/y]\nMicrosoft.NETCore.App 9.0.9 [/y]\n")
	d := Dotnet{Runtimes: parseRuntimes(list)}
	if want := []string{"8.0.20", "10.0.0-rc.2.25502.107", "10.0.12", "9.0.9"}; !slices.Equal(d.Runtimes, want) {
		t.Errorf("parseRuntimes = %q, want %q", d.Runtimes, want)
	}
	if got := d.Newest(); got != "10.0.12" {
		t.Errorf("Newest = %q", got)
	}
	if got := (Dotnet{}).Newest(); got != "" {
		t.Errorf("Newest of none = %q", got)
	}

	// A host that is not there, and one that fails: Err says which and why.
	if d := Runtimes(context.Background(), "/nonexistent/dotnet"); d.Host != "/nonexistent/dotnet" || d.Err == nil ||
		!strings.Contains(d.Err.Error(), "/nonexistent/dotnet --list-runtimes") {
		t.Errorf("missing host: %+v", d)
	}
	fails := t.TempDir() + "/dotnet"
	if err := os.WriteFile(fails, []byte("#!/bin/sh\necho 'no runtimes here' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if d := Runtimes(context.Background(), fails); !errors.As(d.Err, &ee) || !strings.Contains(d.Err.Error(), "no runtimes here") {
		t.Errorf("failing host: %+v", d)
	}
	t.Setenv("PATH", t.TempDir())
	if d := Runtimes(context.Background(), ""); d.Host != "" || d.Err == nil {
		t.Errorf("no dotnet on PATH: %+v", d)
	}
}

func TestVersionLess(t *testing.T) {
	// In ascending order: every earlier one is less than every later one.
	order := []string{
		"8.0.0", "8.0.2", "8.0.10", "8.1", "8.1.0",
		"10.0.0-preview.7.24405.7", "10.0.0-rc.1.25451.107", "10.0.0-rc.2.25502.107", "10.0.0-rc.10", "10.0.0-rc.x",
		"10.0.0", "10.0.12", "11.0.0",
	}
	for i, a := range order {
		for j, b := range order {
			if got := versionLess(a, b); got != (i < j) {
				t.Errorf("versionLess(%q, %q) = %v", a, b, got)
			}
		}
	}
	if versionLess("010.0.0", "10.0.0") || versionLess("10.0.0", "010.0.0") {
		t.Errorf("leading zeros change the order")
	}
}
