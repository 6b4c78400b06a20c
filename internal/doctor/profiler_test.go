package doctor

import (
	"context"
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
	if c.Status != OK || !strings.HasPrefix(c.Detail, "null engine attached to `dotnet --version` (runtime ") || strings.Contains(c.Detail, "runtime )") {
		t.Errorf("real profiler: %+v", c)
	}
	c = checkLoads(ctx, dotnet, testbin.FakeProfiler(t), time.Minute)
	if c.Status != Fail || !strings.HasPrefix(c.Detail, "CoreCLR ran but the profiler wrote no profile") ||
		c.Advice != "run `vbench profile --mode null -- dotnet --version` to see the profiler's own messages" {
		t.Errorf("a library that is no profiler: %+v", c)
	}
	if c := checkLoads(ctx, "", testbin.ProfilerLib(t), time.Minute); c.Status != Fail || c.Detail != "skipped: needs the .NET runtime and the library" {
		t.Errorf("without dotnet: %+v", c)
	}
}
