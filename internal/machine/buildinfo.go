package machine

// What the running vbench binary was built from, as the go command recorded it.

import "runtime/debug"

// Version returns the vbench commit (vcs.revision) and whether the tree had
// uncommitted changes (vcs.modified), as the go command recorded them.
func Version() (commit string, dirty bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown", false
	}
	commit = "unknown"
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	return commit, dirty
}

// GoVersion is the Go toolchain that built the binary.
func GoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.GoVersion
	}
	return "unknown"
}
