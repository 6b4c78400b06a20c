package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
// a profile (a directory is a profile directory). Errors name the file and,
// for JSON errors, the line, column and field.
func ReadInput(path string) (*Input, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, profile.JSONFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonError(path, data, err)
	}
	switch {
	case top["results"] != nil || top["suite"] != nil:
		f, err := DecodeResults(path, data)
		if err != nil {
			return nil, err
		}
		return &Input{Path: path, Kind: KindResults, Results: f}, nil
	case top["threads"] != nil || top["functions"] != nil:
		p, err := profile.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return &Input{Path: path, Kind: KindProfile, Profile: p}, nil
	}
	return nil, fmt.Errorf(`%s: neither a vbench results file (no "results" field) nor a profile.json (no "threads" field)`, path)
}

// ReadResults reads one results file, or a baseline in the same layout.
func ReadResults(path string) (*results.File, error) {
	in, err := ReadInput(path)
	if err != nil {
		return nil, err
	}
	if in.Kind != KindResults {
		return nil, fmt.Errorf("%s: this is a profile, not a results file", path)
	}
	return in.Results, nil
}

// DecodeResults decodes and checks a results file's bytes; name is used in
// errors. Unknown fields are accepted: newer writers may add fields.
func DecodeResults(name string, data []byte) (*results.File, error) {
	var f results.File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, jsonError(name, data, err)
	}
	if f.Schema != results.SchemaVersion {
		return nil, fmt.Errorf("%s: results schema %d, this vbench reads schema %d", name, f.Schema, results.SchemaVersion)
	}
	if len(f.Results) == 0 {
		return nil, fmt.Errorf("%s: no results (the \"results\" list is empty or missing)", name)
	}
	for i, c := range f.Results {
		if c.Workload == "" || c.Mode == "" {
			return nil, fmt.Errorf("%s: results[%d]: workload and mode must be set", name, i)
		}
	}
	return &f, nil
}

// jsonError turns encoding/json's errors, which count bytes, into
// file:line:col messages a person can jump to.
func jsonError(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := lineCol(data, syn.Offset)
		msg := syn.Error()
		if strings.HasPrefix(msg, "unexpected end of JSON input") {
			msg += " (truncated file?)"
		}
		return fmt.Errorf("%s:%d:%d: %s", name, line, col, msg)
	case errors.As(err, &typ):
		line, col := lineCol(data, typ.Offset)
		return fmt.Errorf("%s:%d:%d: field %s: cannot use JSON %s as %s", name, line, col, typ.Field, typ.Value, typ.Type)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	if col == 0 {
		col = 1
	}
	return line, col
}
