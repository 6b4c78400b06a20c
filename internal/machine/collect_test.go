package machine

import (
	"context"
	"os/exec"
	"runtime"
	"strings"
	"testing"
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

func TestBusyCPU(t *testing.T) {
	a, ok := BusyCPU()
	if !ok || a <= 0 {
		t.Fatalf("BusyCPU() = %v, %v", a, ok)
	}
	// Burn some CPU; the counter must not go backwards.
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i
	}
	if b, _ := BusyCPU(); b < a || x == 0 {
		t.Errorf("BusyCPU went from %v to %v", a, b)
	}
}
