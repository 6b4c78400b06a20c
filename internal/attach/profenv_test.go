package attach

import (
	"strings"
	"testing"
)

// Each way an environment makes the runtime start without the profiler it
// names is found, and the variable to blame named; complete sets, a set
// that switches profiling off and one that loads nothing pass.
func TestCheckProfilerEnv(t *testing.T) {
	const clsid = "{11111111-2222-3333-4444-555555555555}"
	full := func(extra ...string) map[string]string {
		m := map[string]string{"CORECLR_ENABLE_PROFILING": "1", "CORECLR_PROFILER": clsid, "CORECLR_PROFILER_PATH_64": "/opt/p/libp.so"}
		for i := 0; i+1 < len(extra); i += 2 {
			if extra[i+1] == "-" {
				delete(m, extra[i])
			} else {
				m[extra[i]] = extra[i+1]
			}
		}
		return m
	}
	for _, c := range []struct {
		name     string
		env      map[string]string
		blame    string // "" with want "": no problem
		wantText string
	}{
		{"complete", full(), "", ""},
		{"nothing", map[string]string{"DOTNET_gcServer": "1"}, "", ""},
		{"switched off", map[string]string{"CORECLR_ENABLE_PROFILING": "0"}, "", ""},
		{"misspelt", full("CORECLR_PROFILR_PATH", "/x.so"), "CORECLR_PROFILR_PATH", "unknown CoreCLR variable"},
		{"no enable", full("CORECLR_ENABLE_PROFILING", "-"), "", "does not set CORECLR_ENABLE_PROFILING=1"},
		{"enable true", full("CORECLR_ENABLE_PROFILING", "true"), "CORECLR_ENABLE_PROFILING", `is "true"`},
		{"no clsid", full("CORECLR_PROFILER", "-"), "", "without CORECLR_PROFILER "},
		{"no path", full("CORECLR_PROFILER_PATH_64", "-"), "", "without CORECLR_PROFILER_PATH"},
		{"bad clsid", full("CORECLR_PROFILER", "11111111-2222-3333-4444-555555555555"), "CORECLR_PROFILER", "is not a CLSID"},
	} {
		pr := CheckProfilerEnv(c.env)
		switch {
		case c.wantText == "" && pr != nil:
			t.Errorf("%s: %+v, want no problem", c.name, pr)
		case c.wantText != "" && (pr == nil || pr.Var != c.blame || !strings.Contains(pr.Msg, c.wantText)):
			t.Errorf("%s: %+v, want %s blamed with %q", c.name, pr, c.blame, c.wantText)
		}
	}
}
