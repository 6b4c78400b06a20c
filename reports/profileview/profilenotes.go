package profileview

import (
	"fmt"
	"path/filepath"
	"strings"

	"vbench/internal/profile"
)

// The sentences `vbench profile` says on stderr about a run's profiles, after
// the program exits (the command adds its "vbench: " prefix).

// ProfilesWritten says where t's profiles went: dir, each process's
// profile.json and the merged profile.pb.gz.
func ProfilesWritten(t *profile.Tree, dir string) string {
	if p := t.Processes; len(p) == 1 {
		return fmt.Sprintf("%s profile of pid %d written to %s (%s, and %s for pprof)", p[0].Mode, p[0].PID,
			dir, relTo(dir, t.Paths[0]), profile.PprofFile)
	}
	return fmt.Sprintf("%s profiles of %d processes written to %s (<pid>/%s each, and %s for pprof: all merged, a pid label on every sample)",
		t.Mode(), len(t.Processes), dir, profile.JSONFile, profile.PprofFile)
}

// relTo is path relative to dir, when it is inside it.
func relTo(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// ProfileWarnings are what limits t's profiles (methods left
// uninstrumented, a full arena, cut stacks), each naming its pid when there
// are several processes: said on stderr too, not only inside profile.json.
func ProfileWarnings(t *profile.Tree) []string {
	var out []string
	for _, p := range t.Processes {
		ws := p.Warnings
		if !p.Complete {
			ws = append([]string{IncompleteNote(p)}, ws...)
		}
		for _, w := range ws {
			if len(t.Processes) > 1 {
				w = fmt.Sprintf("pid %d: %s", p.PID, w)
			}
			out = append(out, w)
		}
	}
	return out
}

// Note says what became of m: still running, its profile to come, or
// killed before it could write.
func (m MissingProcess) Note() string {
	if m.StillRunning {
		return fmt.Sprintf("%v is still running: its profile will be in %s when it exits", m.Process, m.Dir)
	}
	return fmt.Sprintf("%v started profiling and wrote no profile: it was killed or crashed before it exited", m.Process)
}

// IncompleteNote says why p (complete=false) is incomplete and what that
// means for its numbers: the process crashed or left by an exit path, and
// the profile holds what ran until then.
func IncompleteNote(p *profile.Profile) string {
	if p.SamplingStopped() { // written at shutdown, its sampler blinded long before
		return "incomplete profile: " + p.Cause
	}
	return "incomplete profile, written when the process " + incompleteWhy(p) + ", not at shutdown: it holds the calls made until then; frames still on a stack then are closed at that instant"
}

// incompleteWhy is the process's end as the profile's cause names it.
func incompleteWhy(p *profile.Profile) string {
	if p.Cause == "" {
		return "took an exit path"
	}
	return "ended (" + p.Cause + ")"
}

// NoneWritten lists t's processes that started profiling and wrote no
// profile, for the error of a run that left none.
func NoneWritten(t *profile.Tree) string {
	var s []string
	for _, m := range t.Missing {
		w := m.Process.String() + " started and wrote none"
		if m.Ended != nil {
			w += ": it " + m.Ended.String() + " before writing its profile"
			if d := profile.SIGPROFDeath(m.Mode, m.Ended.ExitCode-128); d != "" {
				w += " (" + d + ")"
			}
		}
		s = append(s, w)
	}
	return strings.Join(s, "; ")
}
