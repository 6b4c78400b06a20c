// Package machine describes the machine a benchmark ran on, so that results
// from different machines are never compared silently.
package machine

// Fingerprint identifies a machine and software stack. Two results are
// comparable when their fingerprints Match.
type Fingerprint struct {
	CPUModel      string `json:"cpu_model"`
	Cores         int    `json:"cores"`
	OS            string `json:"os"`     // e.g. "linux/amd64 Debian GNU/Linux 12"
	Kernel        string `json:"kernel"` // uname -r
	DotnetRuntime string `json:"dotnet_runtime"`
	VbenchCommit  string `json:"vbench_commit"`
	VbenchDirty   bool   `json:"vbench_dirty,omitempty"`
	Governor      string `json:"governor,omitempty"` // cpufreq scaling governor, when readable
	Hostname      string `json:"hostname,omitempty"`
	GoVersion     string `json:"go_version,omitempty"`
}

// Mismatch lists, in words, the fields that make a and b incomparable:
// hardware, OS and .NET runtime. Commits and host names may differ.
func Mismatch(a, b Fingerprint) []string {
	var out []string
	add := func(name, x, y string) {
		if x != y {
			out = append(out, name+": "+x+" vs "+y)
		}
	}
	add("CPU", a.CPUModel, b.CPUModel)
	if a.Cores != b.Cores {
		out = append(out, "cores differ")
	}
	add("OS", a.OS, b.OS)
	add(".NET runtime", a.DotnetRuntime, b.DotnetRuntime)
	return out
}
