package profileview

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"vbench/internal/foreignprof"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/results"
)

// Kind is what an input file holds.
type Kind int

const (
	KindResults Kind = iota + 1 // a results file (vbench run --json)
	KindProfile                 // a profile.json, or a profile directory (one process or several)
)

// Input is one file named on the command line, read and decoded.
type Input struct {
	Path    string
	Kind    Kind
	Results *results.File    // KindResults
	Profile *profile.Profile // KindProfile: the profile, merged over its processes when there are several
	Tree    *profile.Tree    // KindProfile: every process's profile
}

// ReadInput reads path and decides by content whether it is a results file or
// a profile (a directory is a profile directory), then reads it with that
// kind's own reader: results.ReadFile, the one every command shares, or
// profile.ReadTree; another tool's profile (foreignprof.Formats: nettrace,
// read by nettrace, pprof, speedscope, perf script) is converted to
// vbench's profile model. Errors name the file and, for JSON errors, the
// line, column and field.
func ReadInput(path string, nettrace foreignprof.NettraceReader) (*Input, error) {
	return ReadInputAs(path, nettrace, "")
}

// ReadInputAs is ReadInput reading a pprof by the sample type sampleIndex
// names (pprof's -sample_index: a type's name or its position; "" picks
// one, foreignprof.ReadPprof); a sampleIndex for any other file is
// refused.
func ReadInputAs(path string, nettrace foreignprof.NettraceReader, sampleIndex string) (*Input, error) {
	kind := KindProfile
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if format, ok := foreignprof.Detect(path); sampleIndex != "" && (fi.IsDir() || !ok || format != modes.FormatPprof) {
		return nil, fmt.Errorf("--sample-index %s: %s is not a pprof profile (only a pprof has sample types to choose from)", sampleIndex, path)
	} else if !fi.IsDir() {
		if ok {
			var p *profile.Profile
			if format == modes.FormatPprof {
				p, err = foreignprof.ReadPprofAs(path, sampleIndex)
			} else {
				p, _, err = foreignprof.ReadFile(path, nettrace)
			}
			if err != nil {
				return nil, err
			}
			t := &profile.Tree{Dir: path, Processes: []*profile.Profile{p}, Paths: []string{path}}
			return &Input{Path: path, Kind: KindProfile, Profile: p, Tree: t}, nil
		}
		if !startsJSON(path) {
			return nil, fmt.Errorf("%s: not a file vbench reads: a results file (vbench run --json), a profile.json or profile directory, or another tool's profile (%s)", path, foreignprof.Formats)
		}
		kind = kindOf(path)
	}
	switch kind {
	case KindProfile:
		t, err := profile.ReadTree(path)
		if err != nil {
			return nil, err
		}
		if len(t.Processes) == 0 {
			return nil, fmt.Errorf("%s: no process wrote its profile (%s)", path, NoneWritten(t))
		}
		if len(t.Processes) == 1 && len(t.Missing) == 0 {
			path = t.Paths[0]
		}
		return &Input{Path: path, Kind: KindProfile, Profile: t.Merge(), Tree: t}, nil
	case 0:
		return nil, fmt.Errorf(`%s: neither a vbench results file (no "results" field) nor a profile.json (no "threads" field)`, path)
	}
	// Results, or JSON too broken to tell: the results reader says where.
	f, err := results.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(f.Results) == 0 {
		return nil, fmt.Errorf("%s: no results (the \"results\" list is empty or missing): nothing to report", path)
	}
	return &Input{Path: path, Kind: KindResults, Results: f}, nil
}

// startsJSON reports whether the file's first non-space byte opens JSON (or
// it cannot be read: the reader then says why).
func startsJSON(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		b, err := r.ReadByte()
		if err != nil {
			return true // empty: the results reader says so
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b == '{' || b == '['
	}
}

// kindOf tells the kind from the first top-level key that tells it (both
// writers put one near the start, so only the file's first bytes are read).
// It returns KindResults when the file cannot be read or its JSON breaks
// before a key says anything, and 0 for well-formed JSON that is neither.
func kindOf(path string) Kind {
	f, err := os.Open(path)
	if err != nil {
		return KindResults
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	if t, err := dec.Token(); err != nil {
		return KindResults
	} else if t != json.Delim('{') {
		return 0
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return KindResults
		}
		switch key {
		case "suite", "results":
			return KindResults
		case "threads", "functions", "mode":
			return KindProfile
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return KindResults
		}
	}
	if _, err := dec.Token(); err != nil {
		return KindResults
	}
	return 0
}
