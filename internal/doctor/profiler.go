package doctor

// The checks that no file on the machine answers: is there a profiler
// library, and does it really load into CoreCLR.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/profile"
)

func checkLibrary(path string) (string, Check) {
	c := Check{Name: "profiler library"}
	if path == "" {
		path = attach.DefaultLibrary()
	}
	abs, err := attach.Check(path)
	if err != nil {
		c.Status, c.Detail = Fail, err.Error()
		c.Advice = "run `make build`, or pass --profiler PATH"
		return "", c
	}
	c.Status, c.Detail = OK, abs
	return abs, c
}

// checkLoads proves the library loads into a real CoreCLR process: `dotnet
// --version` runs managed SDK code, so CoreCLR starts and must load the
// profiler, whose null engine then writes a profile.
func checkLoads(ctx context.Context, dotnet, lib string, timeout time.Duration) Check {
	c := Check{Name: "profiler loads"}
	if dotnet == "" || lib == "" {
		c.Status, c.Detail = Fail, "skipped: needs the .NET runtime and the library"
		return c
	}
	dir, err := os.MkdirTemp("", "vbench-doctor-")
	if err != nil {
		c.Status, c.Detail = Fail, err.Error()
		return c
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, dotnet, "--version")
	cmd.Env = append(attach.ScrubEnv(os.Environ()),
		attach.Env(lib, attach.Options{Engine: modes.EngineNull, ProfileDir: dir})...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		c.Status, c.Detail = Fail, fmt.Sprintf("dotnet --version with the profiler attached: %v %s", err, lastLine(stderr.String()))
		return c
	}
	p, err := profile.ReadFile(dir)
	if err != nil {
		c.Status = Fail
		c.Detail = "CoreCLR ran but the profiler wrote no profile: it did not load or failed to initialise"
		if s := lastLine(stderr.String()); s != "" {
			c.Detail += ": " + s
		}
		c.Advice = "run `vbench profile --mode null -- dotnet --version` to see the profiler's own messages"
		return c
	}
	c.Status = OK
	c.Detail = fmt.Sprintf("null engine attached to `dotnet --version` (runtime %s)", p.RuntimeVersion)
	return c
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
