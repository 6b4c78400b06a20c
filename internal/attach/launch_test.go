package attach

import (
	"slices"
	"strings"
	"testing"

	"vbench/internal/modes"
)

// vbench's startup hook goes last in DOTNET_STARTUP_HOOKS, after the one
// the process would otherwise see (the mode's over the workload's), in every
// mode alike, engine or not; without a hook the environment is untouched.
func TestLaunchAddsStartupHook(t *testing.T) {
	hooks := func(env []string) []string {
		var out []string
		for _, kv := range env {
			if strings.HasPrefix(kv, EnvStartupHooks+"=") || strings.HasPrefix(kv, EnvHookDir+"=") {
				out = append(out, kv)
			}
		}
		return out
	}
	for _, sp := range []modes.Spec{{Name: modes.None}, {Name: "env", Env: map[string]string{"DOTNET_gcServer": "1"}}, {Name: modes.Sampling, Engine: modes.EngineSampling}} {
		la := Launch{Spec: sp, Library: "/x/lib.so", RunDir: "/run", StartupHook: "/h/VbenchStartupHook.dll", HookDir: "/hook"}
		got := hooks(la.Env([]string{"PATH=/bin"}))
		if want := []string{"DOTNET_STARTUP_HOOKS=/h/VbenchStartupHook.dll", "VBENCH_HOOK_DIR=/hook"}; !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", sp.Name, got, want)
		}
		got = hooks(la.Env([]string{"PATH=/bin", "DOTNET_STARTUP_HOOKS=/mine.dll"}, []string{"DOTNET_STARTUP_HOOKS=/w1.dll:/w2.dll"}))
		if want := []string{"DOTNET_STARTUP_HOOKS=/w1.dll:/w2.dll:/h/VbenchStartupHook.dll", "VBENCH_HOOK_DIR=/hook"}; !slices.Equal(got, want) {
			t.Errorf("%s with the workload's hooks: %q, want %q", sp.Name, got, want)
		}
		la.StartupHook = ""
		if got := hooks(la.Env([]string{"PATH=/bin", "DOTNET_STARTUP_HOOKS=/mine.dll"})); !slices.Equal(got, []string{"DOTNET_STARTUP_HOOKS=/mine.dll"}) {
			t.Errorf("%s without a hook: %q", sp.Name, got)
		}
	}
	la := Launch{Spec: modes.Spec{Name: "m", Env: map[string]string{"DOTNET_STARTUP_HOOKS": "/mode.dll"}}, StartupHook: "/h.dll", HookDir: "/d"}
	if got := hooks(la.Env(nil, []string{"DOTNET_STARTUP_HOOKS=/w.dll"})); got[0] != "DOTNET_STARTUP_HOOKS=/mode.dll:/h.dll" {
		t.Errorf("the mode's hook over the workload's: %q", got)
	}
}

// A mode's wrapper goes before the program's command, with {rundir} in its
// arguments the run's directory (other braces untouched); without a wrapper
// the command is the program's, as is.
func TestLaunchArgvWraps(t *testing.T) {
	argv := []string{"dotnet", "app.dll", "{rundir}"}
	la := Launch{Spec: modes.Spec{Name: "perf", Wrap: []string{"/s/perf-record.sh", "{rundir}", "{pid}"}}, RunDir: "/run/1"}
	if got, want := la.Argv(argv), []string{"/s/perf-record.sh", "/run/1", "{pid}", "dotnet", "app.dll", "{rundir}"}; !slices.Equal(got, want) {
		t.Errorf("wrapped: %q, want %q", got, want)
	}
	la.Spec.Wrap = nil
	if got := la.Argv(argv); !slices.Equal(got, argv) {
		t.Errorf("unwrapped: %q, want %q", got, argv)
	}
}
