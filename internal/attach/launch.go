package attach

import (
	"path/filepath"
	"slices"
	"strings"

	"vbench/internal/modes"
)

// Launch is how vbench starts a process under a mode, for `vbench run`'s
// cells and `vbench profile` alike: one place builds the environment, so
// the two cannot load the profiler differently.
type Launch struct {
	Spec modes.Spec // the mode: its engine and settings (those the engine reads), its env
	// Library is the file CoreCLR loads (a run's private copy under vbench
	// run); Build is the build it was copied from, recorded in
	// VBENCH_PROFILER_BUILD when it differs. Unused without an engine.
	Library, Build string
	// RunDir is the run's own directory: where the profiles go and what
	// {rundir} in the mode's and the extra environment values and in the
	// wrapper's arguments names.
	RunDir string
	// Processes limits profiling to the processes whose command line
	// matches it (CheckProcesses); "" profiles every one.
	Processes string
	// StartupHook, when set, is vbench's startup hook assembly, appended to
	// DOTNET_STARTUP_HOOKS after any hook the environment names (both run,
	// ours last: closest to Main), and HookDir where it writes what it
	// measured (VBENCH_HOOK_DIR; runner/hook.go). Every mode alike gets it.
	StartupHook, HookDir string
}

// EnvStartupHooks is the runtime's list of startup hook assemblies,
// ':'-separated on Linux; EnvHookDir is where vbench's hook writes.
const (
	EnvStartupHooks = "DOTNET_STARTUP_HOOKS"
	EnvHookDir      = "VBENCH_HOOK_DIR"
)

// Env is the environment of the launched process: base (the caller's own)
// without any variable that could load a profiler (ScrubEnv), then each of
// extra (KEY=VALUE lists, a later one winning: a workload's, a run's pad),
// then the mode's env; for an engine mode ProfiledDefaults come first (so
// any value given wins over them) and the profiler's variables last, with
// only the settings the engine reads (modes.Fields).
func (l *Launch) Env(base []string, extra ...[]string) []string {
	l = l.absolute()
	env := ScrubEnv(base)
	for _, kvs := range extra {
		env = append(env, l.expand(kvs)...)
	}
	env = append(env, l.expand(l.Spec.EnvList())...)
	sp := &l.Spec
	if sp.Engine == "" {
		return l.hook(env)
	}
	env = append(slices.Clone(ProfiledDefaults), env...)
	opts := Options{Engine: sp.Engine, ProfileDir: l.RunDir, Processes: l.Processes, Settings: sp.ProfilerSettings}
	env = append(env, Env(l.Library, opts)...)
	if l.Build != "" {
		env = append(env, EnvBuild+"="+l.Build)
	}
	return l.hook(env)
}

// absolute is l with every path it hands the process made absolute: a
// program that changes directory (sh -c 'cd /tmp && dotnet X.dll') would
// otherwise write its profiles, or look for the library, from there.
func (l *Launch) absolute() *Launch {
	c := *l
	for _, p := range []*string{&c.Library, &c.RunDir, &c.StartupHook, &c.HookDir} {
		if *p != "" && !filepath.IsAbs(*p) {
			if a, err := filepath.Abs(*p); err == nil {
				*p = a
			}
		}
	}
	return &c
}

// hook adds vbench's startup hook to env: DOTNET_STARTUP_HOOKS becomes the
// value env gave it last (the one a process would see), then ours.
func (l *Launch) hook(env []string) []string {
	if l.StartupHook == "" {
		return env
	}
	var theirs string
	out := env[:0:0]
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == EnvStartupHooks {
			theirs = v
			continue
		}
		out = append(out, kv)
	}
	hooks := l.StartupHook
	if theirs != "" {
		hooks = theirs + ":" + hooks
	}
	return append(out, EnvStartupHooks+"="+hooks, EnvHookDir+"="+l.HookDir)
}

// Argv is the command the launch starts: the mode's wrapper, if it has
// one, with {rundir} in its arguments the run's directory, before argv.
func (l *Launch) Argv(argv []string) []string {
	if len(l.Spec.Wrap) == 0 {
		return argv
	}
	l = l.absolute()
	out := make([]string, 0, len(l.Spec.Wrap)+len(argv))
	for _, a := range l.Spec.Wrap {
		out = append(out, strings.ReplaceAll(a, modes.RunDir, l.RunDir))
	}
	return append(out, argv...)
}

// expand replaces {rundir} in each KEY=VALUE's value with the run's
// directory; every other brace passes through untouched (CLSIDs, the
// runtime's own {pid}).
func (l *Launch) expand(kvs []string) []string {
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		out[i] = k + "=" + strings.ReplaceAll(v, modes.RunDir, l.RunDir)
	}
	return out
}
