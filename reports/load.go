package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"vbench/jsonpos"
	"vbench/profile"
	"vbench/results"
)

// Kind is what an input file holds.
type Kind int

const (
	KindResults Kind = iota + 1 // a results file (vbench run --json)
	KindProfile                 // a profile.json, or a directory holding one
)

// Input is one file named on the command line, read and decoded.
type Input struct {
	Path    string
	Kind    Kind
	Results *results.File    // KindResults
	Profile *profile.Profile // KindProfile
}

// ReadInput reads path and decides by content whether it is a results file or
// a profile (a directory is a profile directory). Results files are read by
// results.Decode, the reader every command shares; errors name the file and,
// for JSON errors, the line, column and field.
func ReadInput(path string) (*Input, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, profile.JSONFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	switch kindOf(data) {
	case KindProfile:
		p, err := profile.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, jsonpos.Error(path, data, err)
		}
		return &Input{Path: path, Kind: KindProfile, Profile: p}, nil
	case 0:
		return nil, fmt.Errorf(`%s: neither a vbench results file (no "results" field) nor a profile.json (no "threads" field)`, path)
	}
	// Results, or JSON too broken to tell: the results reader says where.
	f, err := results.Decode(path, data)
	if err != nil {
		return nil, err
	}
	if len(f.Results) == 0 {
		return nil, fmt.Errorf("%s: no results (the \"results\" list is empty or missing): nothing to report", path)
	}
	return &Input{Path: path, Kind: KindResults, Results: f}, nil
}

// kindOf tells the kind from the first top-level key that tells it (both
// writers put one near the start, so a 100 MB profile is not parsed twice).
// It returns KindResults when the JSON breaks before a key says anything,
// and 0 for well-formed JSON that is neither.
func kindOf(data []byte) Kind {
	dec := json.NewDecoder(bytes.NewReader(data))
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
