package profileview

import (
	"encoding/json"
	"io"
	"time"
	"vbench/internal/modes"
	"vbench/internal/ownfile"

	"vbench/internal/profile"
)

// ProfileJSON is the summary of a profiled run that `vbench profile`
// prints with --format json and writes with --json (docs/profiler.md shows
// it): the top functions summed over every process, each process's own, and
// the processes that started profiling and wrote no profile.
type ProfileJSON struct {
	Mode       modes.Engine     `json:"mode"`
	ProfileDir string           `json:"profile_dir"`
	ExitCode   int              `json:"exit_code"`
	DurationNs int64            `json:"duration_ns"`
	Samples    int64            `json:"samples,omitempty"`
	Complete   bool             `json:"complete"`
	Functions  []FunctionJSON   `json:"functions"` // every process's, summed by name and module
	Processes  []ProcessJSON    `json:"processes"`
	Missing    []MissingProcess `json:"missing,omitempty"`
}

// ProcessJSON is one process that wrote its profile.
type ProcessJSON struct {
	PID            int            `json:"pid"`
	ParentPID      int            `json:"parent_pid"`
	Command        []string       `json:"command"`
	RuntimeVersion string         `json:"runtime_version"`
	Start          time.Time      `json:"start"`
	End            time.Time      `json:"end"`
	DurationNs     int64          `json:"duration_ns"`
	Samples        int64          `json:"samples,omitempty"`
	Complete       bool           `json:"complete"`
	Cause          string         `json:"cause,omitempty"` // why not complete, as its profile.json says
	Profile        string         `json:"profile"`         // its profile.json
	Functions      []FunctionJSON `json:"functions"`
}

// FunctionJSON is one row of a top-functions list.
type FunctionJSON struct {
	Name             string           `json:"name"`
	Module           string           `json:"module"`
	Calls            int64            `json:"calls"`
	InclusiveNs      int64            `json:"inclusive_ns"`
	ExclusiveNs      int64            `json:"exclusive_ns"`
	InclusiveSamples int64            `json:"inclusive_samples"`
	ExclusiveSamples int64            `json:"exclusive_samples"`
	Callers          []profile.Caller `json:"callers"`
}

// MissingProcess is a process that started profiling and wrote no profile.
type MissingProcess struct {
	profile.Process
	Dir string `json:"dir"` // where its profile goes
	// StillRunning: alive when COMMAND exited (a daemon, a build server);
	// otherwise it was killed or crashed before it could write.
	StillRunning bool `json:"still_running"`
}

// ProfileSummary is the JSON document of a profiled run whose profiles are
// t (read from dir) and whose program exited with code: the top top
// functions over every process and of each one.
func ProfileSummary(t *profile.Tree, dir string, code, top int, missing []MissingProcess) ProfileJSON {
	m := t.Merge()
	out := ProfileJSON{Mode: m.Mode, ProfileDir: dir, ExitCode: code, DurationNs: m.DurationNs,
		Samples: m.Samples, Complete: m.Complete, Functions: topFunctions(m, top), Processes: []ProcessJSON{}, Missing: missing}
	for i, p := range t.Processes {
		out.Processes = append(out.Processes, ProcessJSON{PID: p.PID, ParentPID: p.ParentPID, Command: p.Command,
			RuntimeVersion: p.RuntimeVersion, Start: p.Start, End: p.End, DurationNs: p.DurationNs, Samples: p.Samples,
			Complete: p.Complete, Cause: p.Cause, Profile: t.Paths[i], Functions: topFunctions(p, top)})
	}
	return out
}

func topFunctions(p *profile.Profile, top int) []FunctionJSON {
	out := []FunctionJSON{}
	for _, f := range p.Top(top) {
		out = append(out, FunctionJSON{f.Name, f.Module, f.Calls, f.InclusiveNs,
			f.ExclusiveNs, f.InclusiveSamples, f.ExclusiveSamples, f.Callers})
	}
	return out
}

// WriteProfileJSON writes doc indented, as one JSON value and a newline.
func WriteProfileJSON(w io.Writer, doc ProfileJSON) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// ProfileJSONKind is what `vbench profile --json` replaces: a summary it
// wrote (a JSON object with the profile's directory).
var ProfileJSONKind = ownfile.Kind{Name: "a vbench profile summary", Is: func(data []byte) bool {
	var head struct {
		ProfileDir *string `json:"profile_dir"`
	}
	return json.Unmarshal(data, &head) == nil && head.ProfileDir != nil
}}

// ProfileJSONOutline is ProfileJSON's fields as `vbench profile --help`
// shows them; kept here, so that the schema and its outline change together.
const ProfileJSONOutline = `  {"mode", "profile_dir", "exit_code", "duration_ns", "samples", "complete",
   "functions": [{"name", "module", "calls", "inclusive_ns", "exclusive_ns",
                  "inclusive_samples", "exclusive_samples",
                  "callers": [{"name", "calls"}]}],
   "processes": [{"pid", "parent_pid", "command", "runtime_version", "start",
                  "end", "duration_ns", "samples", "complete", "cause",
                  "profile", "functions": [...]}],
   "missing": [{"pid", "parent_pid", "command", "mode", "start", "dir",
                "still_running"}]}
`
