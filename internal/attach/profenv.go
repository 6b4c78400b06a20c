package attach

import (
	"debug/elf"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// ProfilerVars are the variables CoreCLR reads to load a profiler at
// startup (and the notification profilers of .NET 7+). Any other CORECLR_
// variable is ignored by the runtime: a misspelt one means no profiler.
var ProfilerVars = []string{
	"CORECLR_ENABLE_PROFILING", "CORECLR_PROFILER",
	"CORECLR_PROFILER_PATH", "CORECLR_PROFILER_PATH_32", "CORECLR_PROFILER_PATH_64", "CORECLR_PROFILER_PATH_ARM32", "CORECLR_PROFILER_PATH_ARM64",
	"CORECLR_ENABLE_NOTIFICATION_PROFILERS", "CORECLR_NOTIFICATION_PROFILERS",
	"CORECLR_NOTIFICATION_PROFILERS_32", "CORECLR_NOTIFICATION_PROFILERS_64", "CORECLR_NOTIFICATION_PROFILERS_ARM32", "CORECLR_NOTIFICATION_PROFILERS_ARM64",
}

var clsidRE = regexp.MustCompile(`^\{[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\}$`)

// EnvProblem is what is wrong with the profiler variables of an
// environment: Var names the variable to point at ("" when one is
// missing: then the problem is the set's).
type EnvProblem struct {
	Var, Msg string
}

// CheckProfilerEnv finds, in a mode's environment, what would make the
// runtime start without the profiler it names, silently: a CORECLR_
// variable the runtime does not know, a library named without
// CORECLR_ENABLE_PROFILING=1 or a CLSID (or the other way round), a CLSID
// that is not one, vbench's library under another CLSID. The library itself
// is checked by Check. nil when nothing is wrong, or when the environment
// loads no profiler.
func CheckProfilerEnv(env map[string]string) *EnvProblem {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if strings.HasPrefix(strings.ToUpper(k), "CORECLR_") && !slices.Contains(ProfilerVars, k) {
			return &EnvProblem{k, fmt.Sprintf("unknown CoreCLR variable: the runtime ignores it, and would run without the profiler (it reads %s)", strings.Join(ProfilerVars[:7], ", "))}
		}
	}
	path, pathVar := "", ""
	for _, k := range ProfilerPathVars {
		if v, ok := env[k]; ok {
			path, pathVar = v, k
			break
		}
	}
	enable, hasEnable := env["CORECLR_ENABLE_PROFILING"]
	clsid, hasCLSID := env["CORECLR_PROFILER"]
	if !hasEnable && !hasCLSID && pathVar == "" {
		return nil
	}
	switch {
	case hasEnable && enable != "1":
		if enable == "0" {
			return nil // profiling switched off on purpose
		}
		return &EnvProblem{"CORECLR_ENABLE_PROFILING", fmt.Sprintf("is %q: the runtime loads a profiler only when it is 1 (0 to switch profiling off)", enable)}
	case !hasEnable:
		return &EnvProblem{"", "names a profiler but does not set CORECLR_ENABLE_PROFILING=1: the runtime would run without it"}
	case !hasCLSID:
		return &EnvProblem{"", "sets CORECLR_ENABLE_PROFILING=1 without CORECLR_PROFILER (the profiler's CLSID): the runtime would run without a profiler"}
	case pathVar == "":
		return &EnvProblem{"", "sets CORECLR_ENABLE_PROFILING=1 without CORECLR_PROFILER_PATH (or _64): on Linux the runtime finds a profiler only by its path"}
	case !clsidRE.MatchString(clsid):
		return &EnvProblem{"CORECLR_PROFILER", fmt.Sprintf("%q is not a CLSID ({xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}): the runtime would run without the profiler", clsid)}
	case IsVbench(path) && !strings.EqualFold(clsid, CLSID):
		return &EnvProblem{"CORECLR_PROFILER", fmt.Sprintf("%s is vbench's profiler, whose CLSID is %s, not %s: the runtime would map the library and never start it (or use a mode with engine:)", path, CLSID, clsid)}
	}
	return nil
}

// IsVbench reports whether the library at path is a build of vbench's
// profiler (it exports the profiler's Go entry points).
func IsVbench(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		return false
	}
	return slices.ContainsFunc(syms, func(s elf.Symbol) bool { return s.Name == "vbGoReady" && s.Section != elf.SHN_UNDEF })
}
