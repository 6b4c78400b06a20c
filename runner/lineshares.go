package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"vbench/internal/lines"
	"vbench/internal/profile"
)

// resolveLines maps every process's line counts to source lines (the
// program's PDBs, after the run: internal/lines) and writes each profile
// back, so the line share checks and the kept profiles have them. A
// failure is a warning in the profile: its method-level results stand.
func resolveLines(t *profile.Tree) {
	for i, p := range t.Processes {
		if !p.HasLines() {
			continue
		}
		if err := lines.Resolve(context.Background(), p); err != nil {
			p.Warnings = append(p.Warnings, "lines: "+err.Error())
		}
		if err := profile.WriteDir(filepath.Dir(t.Paths[i]), p); err != nil {
			p.Warnings = append(p.Warnings, "lines: the profile with its lines could not be written back: "+err.Error())
		}
	}
}

// addLines counts one measured run's self samples on the declared lines
// (lineshare.<File>:<N>): the shares of the samples on any of them, checked
// as share.* are. Lines are matched by line number and the file's name or
// a trailing part of its path.
func (s *shareTally) addLines(p *profile.Profile, declared map[string]float64) string {
	if !s.started {
		s.started, s.expected, s.hits = true, declared, map[string]int64{}
	} else if !sameShares(s.expected, declared) {
		return fmt.Sprintf("the VBENCH line's line shares changed between runs: %s, then %s", orNone(s.expected), orNone(declared))
	}
	for key := range declared {
		n := lineSamples(p, key)
		s.hits[key] += n
		s.samples += n
	}
	return ""
}

// lineSamples is the self samples (executions, for counts) on line key
// ("Program.cs:16") over every function of p.
func lineSamples(p *profile.Profile, key string) int64 {
	samples, _ := lineTotals(p, key)
	return samples
}

func lineTotals(p *profile.Profile, key string) (samples, executions int64) {
	i := strings.LastIndexByte(key, ':')
	file := key[:i]
	line, _ := strconv.Atoi(key[i+1:])
	for _, f := range p.Functions {
		for _, l := range f.Lines {
			path := l.File
			if path == "" {
				path = f.File
			}
			if l.Line == line && (path == file || strings.HasSuffix(path, "/"+file)) {
				samples += l.Samples
				executions += l.Executions
			}
		}
	}
	return samples, executions
}
