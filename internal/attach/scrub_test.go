package attach

import (
	"strings"
	"testing"
)

// Every variable that makes CoreCLR load a profiler is scrubbed, including
// the notification profilers of .NET 7+ (CORECLR_NOTIFICATION_PROFILERS),
// which the first version let through into "none" runs.
func TestScrubEnvRemovesEveryProfilerLoader(t *testing.T) {
	loaders := []string{
		"CORECLR_ENABLE_PROFILING=1", "CORECLR_PROFILER={x}", "CORECLR_PROFILER_PATH=/p.so",
		"CORECLR_PROFILER_PATH_64=/p.so", "CORECLR_PROFILER_PATH_ARM64=/p.so",
		"CORECLR_ENABLE_NOTIFICATION_PROFILERS=1", "CORECLR_NOTIFICATION_PROFILERS=/p.so={x}",
		"CORECLR_NOTIFICATION_PROFILERS_64=/p.so={x}", "DOTNET_ENABLE_PROFILING=1", "DOTNET_PROFILER_PATH=/p.so",
		"COMPlus_EnableProfiling=1", "VBENCH_MODE=tracing", "VBENCH_PROFILE_DIR=/tmp", "VBENCH_DEBUG=1",
	}
	keep := []string{"PATH=/bin", "HOME=/root", "DOTNET_ROOT=/usr/share/dotnet", "DOTNET_gcServer=1",
		"CORECLR_X=1", "MY_PROFILER=1", "VBENCH=1"}
	got := ScrubEnv(append(append([]string{}, loaders...), keep...))
	if strings.Join(got, " ") != strings.Join(keep, " ") {
		t.Errorf("ScrubEnv kept %v, want exactly %v", got, keep)
	}
}
