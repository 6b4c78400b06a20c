// Package profile defines profile.json, the file the vbench profiler writes at
// the end of a profiled process, and reads it back.
//
// One Profile holds a call tree per thread (tracing: exact call counts and
// wall times; sampling: sample counts) and a flat function table derived from
// the trees. Nodes refer to functions by index into Functions.
package profile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// SchemaVersion is the version of the profile.json layout this package writes.
const SchemaVersion = 1

// File names inside a profile directory.
const (
	JSONFile  = "profile.json"
	PprofFile = "profile.pb.gz"
)

// Profile is the content of profile.json.
type Profile struct {
	Schema         int        `json:"schema"`
	Mode           string     `json:"mode"` // tracing | sampling | null
	RuntimeVersion string     `json:"runtime_version"`
	PID            int        `json:"pid"`
	Command        []string   `json:"command,omitempty"` // the profilee's command line, when known
	Start          time.Time  `json:"start"`
	DurationNs     int64      `json:"duration_ns"`           // profiler load to profile write
	IntervalNs     int64      `json:"interval_ns,omitempty"` // sampling period
	Samples        int64      `json:"samples,omitempty"`     // sampling ticks taken
	TimeSample     int64      `json:"time_sample,omitempty"` // tracing: hot nodes timed on ~1 call in N (1: every call)
	Include        []string   `json:"include,omitempty"`     // filter patterns in effect
	Exclude        []string   `json:"exclude,omitempty"`
	Complete       bool       `json:"complete"`           // written from Shutdown (false: from an exit path)
	Warnings       []string   `json:"warnings,omitempty"` // what limits this profile's accuracy
	Functions      []Function `json:"functions"`
	Threads        []Thread   `json:"threads"`
}

// Function is one row of the flat function table: every node of every thread's
// tree that refers to it, summed. Recursive calls count once in the inclusive
// figures (only the outermost frame of a recursion is added).
type Function struct {
	ID               int      `json:"id"`       // index in Profile.Functions
	Name             string   `json:"name"`     // Namespace.Class.Method, nested and generic types readable
	Module           string   `json:"module"`   // file name of the module, e.g. Fibonacci.dll
	Assembly         string   `json:"assembly"` // assembly simple name
	Calls            int64    `json:"calls"`
	InclusiveNs      int64    `json:"inclusive_ns"`
	ExclusiveNs      int64    `json:"exclusive_ns"`
	InclusiveSamples int64    `json:"inclusive_samples"`
	ExclusiveSamples int64    `json:"exclusive_samples"`
	Callers          []Caller `json:"callers"` // direct callers; "<root>" when called from unprofiled code
}

// Caller is a direct caller of a function and how often it called it.
type Caller struct {
	Name    string `json:"name"`
	Calls   int64  `json:"calls"`
	Samples int64  `json:"samples,omitempty"`
}

// RootCaller names the caller of frames whose caller is not profiled.
const RootCaller = "<root>"

// Thread is one managed thread's call tree.
type Thread struct {
	OSID      int    `json:"os_id"`                // kernel thread id
	ManagedID uint64 `json:"managed_id,omitempty"` // CLR ThreadID, when known
	CPUNs     int64  `json:"cpu_ns"`               // user+system CPU time of the thread
	Samples   int64  `json:"samples,omitempty"`    // stacks taken on this thread
	Roots     []Node `json:"roots"`                // top-level frames
}

// Node is one call path: a function reached through its ancestors.
type Node struct {
	Fn               int    `json:"fn"` // index in Profile.Functions
	Calls            int64  `json:"calls"`
	InclusiveNs      int64  `json:"inclusive_ns"`
	ExclusiveNs      int64  `json:"exclusive_ns"`
	InclusiveSamples int64  `json:"inclusive_samples,omitempty"`
	ExclusiveSamples int64  `json:"exclusive_samples,omitempty"`
	Children         []Node `json:"children,omitempty"`
}

// ReadFile reads a profile from a profile.json file or a directory holding one.
func ReadFile(path string) (*Profile, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, JSONFile)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Decode reads and validates one profile.
func Decode(r io.Reader) (*Profile, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("not a vbench profile: %w", err)
	}
	// A whole file is one profile: anything after it means the file is corrupt.
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("corrupt profile: more data after the profile, which ends at byte %d", end)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Validate checks the invariants a reader relies on.
func (p *Profile) Validate() error {
	if p.Schema != SchemaVersion {
		return fmt.Errorf("profile schema %d, this vbench reads schema %d", p.Schema, SchemaVersion)
	}
	switch p.Mode {
	case "tracing", "sampling", "null":
	default:
		return fmt.Errorf("profile mode %q is not tracing, sampling or null", p.Mode)
	}
	for i, f := range p.Functions {
		if f.ID != i {
			return fmt.Errorf("functions[%d] has id %d", i, f.ID)
		}
	}
	var check func([]Node) error
	check = func(ns []Node) error {
		for _, n := range ns {
			if n.Fn < 0 || n.Fn >= len(p.Functions) {
				return errors.New("call tree refers to a function that is not in the function table")
			}
			if err := check(n.Children); err != nil {
				return err
			}
		}
		return nil
	}
	for _, t := range p.Threads {
		if err := check(t.Roots); err != nil {
			return fmt.Errorf("thread %d: %w", t.OSID, err)
		}
	}
	return nil
}
