package runner

import (
	"context"
	"fmt"
	"os/exec"

	"vbench/internal/dotnetbuild"
)

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
				dll, err := dotnetbuild.Project(ctx, dotnet, w.Project)
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
				h, err = buildHook(ctx)
			}
			if err != nil && ctx.Err() == nil {
				env.logf("the startup hook that measures start-up and the GC did not build, so no run records them: %v", err)
			}
		}
		var why string
		c.hook, why = hookFor(h, c.argv, c.Workload.Cwd)
		if c.Metric.Count() {
			// A count is the program's own: the hook's ~50M instructions
			// (15 % of a small program's) would be in every cell's, and
			// the start-up and peak RSS it measures are valgrind's there.
			c.hook, why = "", ""
		}
		if why != "" && h != nil && !said[c.Workload.Name] { // a failed build was said above
			said[c.Workload.Name] = true
			env.logf("%s: runs without vbench's startup hook, so without start-up and GC figures: %s", c.Workload.Name, why)
		}
	}
}
