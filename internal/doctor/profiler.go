package doctor

// The checks that no file on the machine answers: is there a profiler
// library, and does it really load into CoreCLR.

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// tinyApp is a prebuilt program that needs only the runtime (tinyapp/,
// rebuilt by its build.sh): `dotnet --version` needs an SDK, so a machine
// with the runtime alone, where runs work, failed the check (exit 155).
//
//go:embed tinyapp/VbenchDoctor.dll tinyapp/VbenchDoctor.runtimeconfig.json
var tinyApp embed.FS

// tinyAppName is how the check names the program it runs.
const tinyAppName = "a runtime-only program (VbenchDoctor.dll)"

// checkLoads proves the library loads into a real CoreCLR process: the
// runtime-only program starts CoreCLR, which must load the profiler, whose
// null engine then writes a profile.
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
	app, profiles := filepath.Join(dir, "app"), filepath.Join(dir, "profile")
	if err := writeTinyApp(app); err != nil {
		c.Status, c.Detail = Fail, err.Error()
		return c
	}
	if err := os.Mkdir(profiles, 0o755); err != nil {
		c.Status, c.Detail = Fail, err.Error()
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, dotnet, filepath.Join(app, "VbenchDoctor.dll"))
	cmd.Env = append(attach.ScrubEnv(os.Environ()),
		attach.Env(lib, attach.Options{Engine: modes.EngineNull, ProfileDir: profiles})...)
	var stderr bytes.Buffer
	cmd.Stderr, cmd.Stdout = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		c.Status, c.Detail = Fail, fmt.Sprintf("%s with the profiler attached: %v %s", tinyAppName, err, lastLine(stderr.String()))
		return c
	}
	p, err := profile.ReadFile(profiles)
	if err != nil {
		c.Status = Fail
		c.Detail = "CoreCLR ran but the profiler wrote no profile: it did not load or failed to initialise"
		if s := lastLine(stderr.String()); s != "" {
			c.Detail += ": " + s
		}
		c.Advice = "run `vbench profile --mode null -- dotnet YourApp.dll` to see the profiler's own messages"
		return c
	}
	c.Status = OK
	c.Detail = fmt.Sprintf("null engine attached to %s (runtime %s)", tinyAppName, p.RuntimeVersion)
	return c
}

// writeTinyApp writes the runtime-only program into dir.
func writeTinyApp(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	for _, name := range []string{"VbenchDoctor.dll", "VbenchDoctor.runtimeconfig.json"} {
		b, err := tinyApp.ReadFile("tinyapp/" + name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
