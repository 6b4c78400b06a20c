package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BuildProject builds a C# project in Release once and returns the path of
// its assembly. dotnet build decides what is out of date (incremental, about
// a second when nothing changed); asking for TargetPath in the same call
// avoids guessing the target framework or assembly name. Build servers are
// disabled so no compiler process lingers to disturb the measurements.
func BuildProject(ctx context.Context, dotnet, csproj string) (string, error) {
	cmd := exec.CommandContext(ctx, dotnet, "build", csproj,
		"-c", "Release", "-nologo", "-v", "quiet", "--disable-build-servers", "-nodeReuse:false",
		"-t:Build", "-getProperty:TargetPath")
	cmd.Dir = filepath.Dir(csproj)
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1", "DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("dotnet build %s failed (%v):\n%s", csproj, err, buildErrors(stdout.String()+"\n"+stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		p := strings.TrimSpace(lines[i])
		if strings.HasSuffix(p, ".dll") {
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("dotnet build %s: TargetPath %s does not exist", csproj, p)
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("dotnet build %s did not report a TargetPath (.dll):\n%s", csproj, lastLines(stdout.String(), 10))
}

// buildErrors is what a failed build said, for a person: the compiler's and
// MSBuild's error lines first (each once: MSBuild repeats them in its
// summary), else its last lines; never the blank lines, nor the TargetPath
// line -getProperty prints even when the build fails (a .dll that is not
// there).
func buildErrors(out string) string {
	var errs, other []string
	seen := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || seen[l] || (strings.HasSuffix(l, ".dll") && !strings.Contains(l, " ")) {
			continue
		}
		seen[l] = true
		if strings.Contains(l, ": error ") {
			errs = append(errs, l)
		} else {
			other = append(other, l)
		}
	}
	if len(errs) > 0 {
		if len(errs) > 15 {
			errs = append(errs[:15], fmt.Sprintf("… and %d more errors", len(errs)-15))
		}
		return strings.Join(errs, "\n")
	}
	return lastLines(strings.Join(other, "\n"), 15)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// buildAll sets every cell's argv: a command as the suite gives it, or
// dotnet running the project's assembly, each project built once however
// many cells use it. A project that does not build fails its cells only.
func buildAll(ctx context.Context, cells []*cellState, env *Env) {
	built := map[string]string{}
	buildErr := map[string]error{}
	dotnet, dotnetErr := exec.LookPath("dotnet")
	for _, c := range cells {
		// Interrupted (Ctrl-C while building): the cells left are not run,
		// not failed; the build the interrupt killed says nothing about them.
		if ctx.Err() != nil {
			return
		}
		w := c.Workload
		if w.Project == "" {
			c.argv = append([]string(nil), w.Command...)
			continue
		}
		if _, done := built[w.Project]; !done && buildErr[w.Project] == nil {
			if dotnetErr != nil {
				buildErr[w.Project] = fmt.Errorf("dotnet not found on PATH: %v", dotnetErr)
			} else {
				env.logf("building %s", w.Project)
				dll, err := BuildProject(ctx, dotnet, w.Project)
				if ctx.Err() != nil {
					return
				}
				if err != nil {
					buildErr[w.Project] = err
				} else {
					built[w.Project] = dll
				}
			}
		}
		if err := buildErr[w.Project]; err != nil {
			c.failure = "build failed: " + err.Error()
			continue
		}
		c.argv = append([]string{dotnet, built[w.Project]}, w.Args...)
	}
	addHooks(ctx, cells, env, dotnet)
}

// addHooks gives every cell of a .NET workload vbench's startup hook
// (hook.go), built the first time a cell needs it; a workload that is a
// .NET program and cannot get it runs without, said once, its runs then
// without start-up and GC figures (nil) in every mode alike. A workload
// whose project did not build has no argv and is skipped.
func addHooks(ctx context.Context, cells []*cellState, env *Env, dotnet string) {
	var h *startupHook
	tried := false
	said := map[string]bool{}
	for _, c := range cells {
		if ctx.Err() != nil || len(c.argv) == 0 {
			continue
		}
		if _, _, isDotnet := dotnetRuntime(c.argv, c.Workload.Cwd); isDotnet && !tried {
			tried = true
			var err error
			if dotnet == "" {
				err = fmt.Errorf("dotnet not found on PATH")
			} else {
				h, err = buildHook(ctx, dotnet)
			}
			if err != nil && ctx.Err() == nil {
				env.logf("the startup hook that measures start-up and the GC did not build, so no run records them: %v", err)
			}
		}
		var why string
		c.hook, why = hookFor(h, c.argv, c.Workload.Cwd)
		if why != "" && h != nil && !said[c.Workload.Name] { // a failed build was said above
			said[c.Workload.Name] = true
			env.logf("%s: runs without vbench's startup hook, so without start-up and GC figures: %s", c.Workload.Name, why)
		}
	}
}
