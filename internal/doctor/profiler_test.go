package doctor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vbench/internal/testbin"
)

func TestCheckLibrary(t *testing.T) {
	lib := testbin.ProfilerLib(t)
	if got, c := checkLibrary(lib); got != lib || c.Status != OK || c.Detail != lib {
		t.Errorf("real library: %q, %+v", got, c)
	}
	missing := filepath.Join(t.TempDir(), "libvbenchprof.so")
	if got, c := checkLibrary(missing); got != "" || c.Status != Fail || !strings.Contains(c.Detail, missing) ||
		c.Advice != "run `make build`, or pass --profiler PATH" {
		t.Errorf("missing library: %q, %+v", got, c)
	}
}

// The one check that launches a process: the real profiler really loads into
// CoreCLR; a library that passes attach.Check but is no profiler does not.
func TestCheckLoads(t *testing.T) {
	dotnet := testbin.Dotnet(t)
	ctx := context.Background()
	c := checkLoads(ctx, dotnet, testbin.ProfilerLib(t), time.Minute)
	if c.Status != OK || !strings.HasPrefix(c.Detail, "null engine attached to a runtime-only program (VbenchDoctor.dll) (runtime ") || strings.Contains(c.Detail, "runtime )") {
		t.Errorf("real profiler: %+v", c)
	}
	c = checkLoads(ctx, dotnet, testbin.FakeProfiler(t), time.Minute)
	if c.Status != Fail || !strings.HasPrefix(c.Detail, "CoreCLR ran but the profiler wrote no profile") ||
		c.Advice != "run `vbench profile --mode null -- dotnet YourApp.dll` to see the profiler's own messages" {
		t.Errorf("a library that is no profiler: %+v", c)
	}
	if c := checkLoads(ctx, "", testbin.ProfilerLib(t), time.Minute); c.Status != Fail || c.Detail != "skipped: needs the .NET runtime and the library" {
		t.Errorf("without dotnet: %+v", c)
	}
}

// A machine with the .NET runtime and no SDK, where runs work: the profiler
// loads, and doctor says so. It used to run `dotnet --version`, which needs
// an SDK: "✗ profiler loads: dotnet --version … exit status 155". The
// machine is simulated by a dotnet root holding the host (a copy: it finds
// its root from its own path) and links to the installed host/ and shared/,
// no sdk/.
func TestDoctorOnARuntimeOnlyMachine(t *testing.T) {
	root := filepath.Dir(realPath(t, testbin.Dotnet(t)))
	fake := t.TempDir()
	b, err := os.ReadFile(filepath.Join(root, "dotnet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fake, "dotnet"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"host", "shared"} {
		if err := os.Symlink(filepath.Join(root, d), filepath.Join(fake, d)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("DOTNET_ROOT", fake)
	t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := exec.Command(filepath.Join(fake, "dotnet"), "--version").CombinedOutput(); err == nil {
		t.Fatalf("the simulated machine has an SDK: dotnet --version said %s", out)
	}
	cs := Run(context.Background(), Options{Dotnet: filepath.Join(fake, "dotnet"), ProfilerLib: testbin.ProfilerLib(t), Timeout: time.Minute})
	for _, c := range cs[:3] {
		if c.Status != OK {
			t.Errorf("%s: %s %s (%s)", c.Name, c.Status, c.Detail, c.Advice)
		}
	}
	if !strings.HasPrefix(cs[2].Detail, "null engine attached to a runtime-only program") {
		t.Errorf("profiler loads: %+v", cs[2])
	}
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
