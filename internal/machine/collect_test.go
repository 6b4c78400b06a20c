package machine

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestParsers(t *testing.T) {
	if got := cpuModel("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags: x\n"); got != "AMD EPYC 7B13" {
		t.Errorf("cpuModel = %q", got)
	}
	if got := osName("NAME=x\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"); got != runtime.GOOS+"/"+runtime.GOARCH+" Debian GNU/Linux 12 (bookworm)" {
		t.Errorf("osName = %q", got)
	}
	if got := cpuModel("processor\t: 0\nflags: x\n"); got != runtime.GOARCH {
		t.Errorf("cpuModel without a model name = %q, want the architecture", got)
	}
}

// Collect on this machine: the real /proc, os-release and dotnet.
func TestCollect(t *testing.T) {
	fp := Collect(context.Background())
	if fp.Cores != runtime.NumCPU() || fp.CPUModel == "" || !strings.HasPrefix(fp.OS, runtime.GOOS+"/") || fp.Kernel == "" {
		t.Errorf("incomplete fingerprint: %+v", fp)
	}
	out, err := exec.Command("dotnet", "--list-runtimes").Output()
	if err != nil {
		t.Fatalf("dotnet --list-runtimes: %v", err)
	}
	if !strings.Contains(string(out), "Microsoft.NETCore.App "+fp.DotnetRuntime+" ") {
		t.Errorf("runtime %q not in\n%s", fp.DotnetRuntime, out)
	}
	if len(Mismatch(fp, fp)) != 0 {
		t.Errorf("a fingerprint mismatches itself")
	}
	other := fp
	other.DotnetRuntime = "1.0.0"
	if m := Mismatch(fp, other); len(m) != 1 || !strings.Contains(m[0], ".NET runtime") {
		t.Errorf("Mismatch = %v", m)
	}
}

func TestLoadAverage(t *testing.T) {
	if l := LoadAverage(); l < 0 {
		t.Errorf("LoadAverage() = %v", l)
	}
}

// BusyCPU is in real units: while this process spins for 200ms of its own
// CPU time (getrusage, exact), the machine's busy CPU must grow by at least
// half that (it counts 10ms ticks, and every other process only adds), and
// by no more than every core busy for the whole time it took (plus a tick
// per core at each reading). A counter in the wrong unit, ten times too
// small or too large, fails one bound or the other.
func TestBusyCPU(t *testing.T) {
	a, ok := BusyCPU()
	if !ok || a <= 0 {
		t.Fatalf("BusyCPU() = %v, %v", a, ok)
	}
	start, self0 := time.Now(), processCPU(t)
	const spin = 200 * time.Millisecond
	for processCPU(t)-self0 < spin && time.Since(start) < time.Minute {
		for i := 0; i < 100_000; i++ {
			sink += i
		}
	}
	b, _ := BusyCPU()
	wall, self := time.Since(start), processCPU(t)-self0
	if self < spin {
		t.Skipf("this process got only %v of CPU in %v", self, wall)
	}
	cpus := onlineCPUs(t)
	if got, most := b-a, time.Duration(cpus)*(wall+2*10*time.Millisecond); got < self/2 || got > most {
		t.Errorf("BusyCPU grew by %v while this process used %v of CPU in %v on %d CPUs; want between %v and %v",
			got, self, wall, cpus, self/2, most)
	}
}

var sink int

func processCPU(t *testing.T) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// onlineCPUs is how many cpuN lines /proc/stat has: the cores BusyCPU sums.
func onlineCPUs(t *testing.T) int {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if len(line) > 3 && strings.HasPrefix(line, "cpu") && line[3] >= '0' && line[3] <= '9' {
			n++
		}
	}
	return n
}
