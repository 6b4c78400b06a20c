// Package profile defines profile.json, the file the vbench profiler writes at
// the end of a profiled process, and reads it back.
//
// One Profile holds a call tree per thread (tracing: exact call counts and
// wall times; sampling: sample counts) and a flat function table derived from
// the trees. Nodes refer to functions by index into Functions. In memory a
// tree is nested (Thread.Roots, Node.Children); on disk it is a flat list of
// nodes naming their parents (see FlatNode), so any depth can be read back.
package profile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"vbench/internal/jsonpos"
	"vbench/internal/modes"
)

// SchemaVersion is the version of the profile.json layout this package writes.
// 5: schema 4 plus source lines (functions' token, module_path, file, line, lines; nodes' lines).
// 4: schema 3 plus allocations and gc (the allocation engines). 3: schema 2 plus parent_pid and end, since every process of a process tree
// writes its own profile. 2: call trees as flat node lists (FlatNode).
// 1: nested "roots"/"children", which deep recursion made unreadable. Both
// are still read, and upgraded in memory.
const SchemaVersion = 5

// File names inside a profile directory.
const (
	JSONFile  = "profile.json"
	PprofFile = "profile.pb.gz"
)

// Profile is the content of profile.json.
type Profile struct {
	Schema         int          `json:"schema"`
	Mode           modes.Engine `json:"mode"` // tracing | instrumentation | sampling | null
	RuntimeVersion string       `json:"runtime_version"`
	PID            int          `json:"pid"`
	ParentPID      int          `json:"parent_pid,omitempty"` // when the profiler started (schema 3)
	Command        []string     `json:"command,omitempty"`    // the profilee's command line, when known
	Start          time.Time    `json:"start"`
	End            time.Time    `json:"end"`                   // when the profile was written (older schemas: start + duration)
	DurationNs     int64        `json:"duration_ns"`           // profiler load to profile write
	IntervalNs     int64        `json:"interval_ns,omitempty"` // sampling period
	Samples        int64        `json:"samples,omitempty"`     // sampling ticks taken
	// WaitSamples: of Samples, the sampling engine's intervals of
	// threads waiting (not running) with managed frames on their stacks;
	// the rest are intervals of CPU time.
	WaitSamples int64 `json:"wait_samples,omitempty"`
	// SampleType and SampleUnit say what Samples and the nodes' samples
	// count when not a sampler's ticks: another tool's pprof read by one
	// of its sample types ("instructions", "count": an instruction
	// profile's). Empty for vbench's own engines.
	SampleType string `json:"sample_type,omitempty"`
	SampleUnit string `json:"sample_unit,omitempty"`
	// Kind is what another tool's pprof is when it was read by a sample
	// type other than the one it is about (an instruction profile read by
	// its calls: "instructions"), for the views' headers; their "tracing"
	// would say a tracer's calls were read. Not written.
	Kind       string `json:"-"`
	TimeSample int64  `json:"time_sample,omitempty"` // tracing: hot nodes timed on ~1 call in N (1: every call)
	// KernelMarked: the program marked its kernel (the benchmarks'
	// harness calls vbench's kernel marks around it) and a sampler counted
	// each node's samples inside it apart (Node.KernelInclusiveSamples):
	// KernelView is the measured part alone.
	KernelMarked bool       `json:"kernel_marked,omitempty"`
	Include      []string   `json:"include,omitempty"` // filter patterns in effect
	Exclude      []string   `json:"exclude,omitempty"`
	Complete     bool       `json:"complete"`           // written from Shutdown (false: from an exit path or a crash)
	Cause        string     `json:"cause,omitempty"`    // why not complete: "unhandled exception System.X", "runtime abort (SIGABRT): …", an exit path
	Warnings     []string   `json:"warnings,omitempty"` // what limits this profile's accuracy
	Skipped      []Skipped  `json:"skipped,omitempty"`  // instrumentation: selected methods left uninstrumented
	Functions    []Function `json:"functions"`
	// The allocation engines' (schema 4): objects by type and path, and
	// the garbage collections.
	Allocations *Allocations `json:"allocations,omitempty"`
	GC          *GC          `json:"gc,omitempty"`
	Timeline    *Timeline    `json:"timeline,omitempty"` // tracing with --timeline: timeline.json beside it
	// Instrumentation with lines (schema 5): every rewritten method's basic
	// blocks and how often each ran; internal/lines turns them into
	// Executions, by source line, from the PDB's sequence points.
	Blocks     []BlockCount `json:"blocks,omitempty"`
	Executions []LineExec   `json:"executions,omitempty"`
	Threads    []Thread     `json:"threads"` // last: Encode streams it

	// Focus is set on a view of a profile narrowed by --focus (Focused): its
	// threads start at the matching functions, and Top lists only them.
	// Whole is the profile the view was cut from. Neither is in profile.json.
	Focus *Focus   `json:"-"`
	Whole *Profile `json:"-"`
	// FoldedBy is set on a view whose frames it matches were folded into
	// their callers (Folded: a dotnet test run's runner frames). Not in
	// profile.json.
	FoldedBy *Focus `json:"-"`
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
	// Source (schema 5, with lines): the method's metadata token and its
	// module's path as loaded (the PDB is found from there); File and Line,
	// its first line, from the PDB; Lines, its nodes' lines summed.
	Token      uint32      `json:"token,omitempty"`
	ModulePath string      `json:"module_path,omitempty"`
	File       string      `json:"file,omitempty"`
	Line       int         `json:"line,omitempty"`
	Lines      []LineTotal `json:"lines,omitempty"`
}

// Skipped is a method the instrumentation engine was asked to count but left
// as it was, because its body could not be rewritten safely: its calls are
// missing from the profile.
type Skipped struct {
	Name   string `json:"name"`
	Module string `json:"module"`
	Reason string `json:"reason"`
}

// Caller is a direct caller of a function and how often it called it.
type Caller struct {
	Name    string `json:"name"`
	Calls   int64  `json:"calls"`
	Samples int64  `json:"samples,omitempty"`
}

// RootCaller names the caller of frames whose caller is not profiled.
const RootCaller = "<root>"

// Thread is one managed thread's call tree. Its JSON form (MarshalJSON) has
// os_id, managed_id, cpu_ns, samples and the tree as "nodes", a FlatNode list.
type Thread struct {
	OSID      int    // kernel thread id
	ManagedID uint64 // CLR ThreadID, when known
	CPUNs     int64  // user+system CPU time of the thread
	Samples   int64  // stacks taken on this thread
	Roots     []Node // top-level frames
	// PID is the thread's process in a profile merged from a process tree
	// (Tree.Merge); 0 means Profile.PID. Not part of profile.json.
	PID int
}

// Node is one call path: a function reached through its ancestors. Its JSON
// tags are schema 1's nested layout, read for old files only.
type Node struct {
	Fn               int   `json:"fn"` // index in Profile.Functions
	Calls            int64 `json:"calls"`
	InclusiveNs      int64 `json:"inclusive_ns"`
	ExclusiveNs      int64 `json:"exclusive_ns"`
	InclusiveSamples int64 `json:"inclusive_samples,omitempty"`
	ExclusiveSamples int64 `json:"exclusive_samples,omitempty"`
	// KernelInclusiveSamples and KernelExclusiveSamples are, of the
	// samples, those taken inside the kernel window (Profile.KernelMarked).
	KernelInclusiveSamples int64 `json:"kernel_inclusive_samples,omitempty"`
	KernelExclusiveSamples int64 `json:"kernel_exclusive_samples,omitempty"`
	// Lines: this path's self samples (or executions) by IL offset and
	// source line (see LineCount); nil without lines.
	Lines []LineCount `json:"lines,omitempty"`
	// CallLines (sampling with lines): the samples through this path by
	// the call site in its caller (the parent node's method: Token and IL
	// are the caller's), where the walk knew the return address; nil
	// without lines. pprof puts the caller's frame on that line.
	CallLines []LineCount `json:"call_lines,omitempty"`
	Children  []Node      `json:"children,omitempty"`
}

// ReadFile reads a profile from a profile.json file, a directory holding one,
// or a profile directory in which exactly one process wrote its profile (see
// ReadTree; a directory of several processes is an error that says so).
func ReadFile(path string) (*Profile, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		if _, err := os.Stat(filepath.Join(path, JSONFile)); err != nil {
			return readOnlyProcess(path)
		}
		path = filepath.Join(path, JSONFile)
	}
	return readJSON(path)
}

// readJSON reads one profile.json file.
func readJSON(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := decode(data)
	if err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			if off, ok := jsonpos.Find(data, fe.path...); ok {
				return nil, fmt.Errorf("%s: %w", jsonpos.At(path, data, off), err)
			}
		}
		return nil, jsonpos.Error(path, data, err) // file:line:col for JSON errors
	}
	return p, nil
}

// Decode reads and validates one profile (see Profile.UnmarshalJSON).
func Decode(r io.Reader) (*Profile, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return decode(data)
}

func decode(data []byte) (*Profile, error) {
	// UnmarshalJSON directly: through a json.Decoder the whole file would be
	// scanned twice more before it (a third of the time for a large profile).
	var p Profile
	if err := p.UnmarshalJSON(data); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) && strings.HasSuffix(syn.Error(), "exceeded max depth") {
			return nil, errors.New("the call tree nests deeper than a JSON decoder reads (10000 levels): " +
				"a schema 1 profile.json written by an older vbench for a deep recursion; re-profile with this vbench, whose profiles are flat")
		}
		if errors.As(err, new(profileErr)) {
			return nil, err
		}
		return nil, fmt.Errorf("not a vbench profile: %w", err)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Validate checks the invariants a reader relies on.
func (p *Profile) Validate() error {
	if p.Schema != SchemaVersion {
		return schemaError(p.Schema)
	}
	if !p.Mode.Valid() {
		return fmt.Errorf("profile mode %q is not %s", p.Mode, modes.OneOf(modes.Engines))
	}
	for i, f := range p.Functions {
		if f.ID != i {
			return fmt.Errorf("functions[%d] has id %d", i, f.ID)
		}
		if err := checkFigures(f.Calls, f.InclusiveNs, f.ExclusiveNs, f.InclusiveSamples, f.ExclusiveSamples); err != "" {
			return &fieldError{[]any{"functions", i}, fmt.Sprintf("functions[%d] (%s): %s", i, f.Name, err)}
		}
	}
	if p.Allocations != nil {
		if err := p.Allocations.validate(len(p.Functions)); err != nil {
			return err
		}
	}
	for ti, t := range p.Threads {
		bad, found := 0, false
		Walk(t.Roots, func(n *Node, _ int) bool {
			if !found && (n.Fn < 0 || n.Fn >= len(p.Functions)) {
				bad, found = n.Fn, true
			}
			return !found
		}, nil)
		if found {
			return fmt.Errorf("thread %d: call tree refers to function %d, which is not in the function table (%d functions)", t.OSID, bad, len(p.Functions))
		}
		i, fn, msg := 0, 0, ""
		Walk(t.Roots, func(n *Node, _ int) bool {
			if msg != "" {
				return false
			}
			if msg = checkFigures(n.Calls, n.InclusiveNs, n.ExclusiveNs, n.InclusiveSamples, n.ExclusiveSamples); msg != "" {
				fn = n.Fn
				return false
			}
			i++
			return true
		}, nil)
		if msg != "" {
			// i counts in pre-order, the order profile.json lists nodes in.
			return &fieldError{[]any{"threads", ti, "nodes", i}, fmt.Sprintf("threads[%d] (os_id %d): nodes[%d] (%s): %s", ti, t.OSID, i, p.Functions[fn].Name, msg)}
		}
	}
	return nil
}

// fieldError is a refusal of the value at path in profile.json (as
// jsonpos.Find takes it): readJSON prefixes its line.
type fieldError struct {
	path []any
	msg  string
}

func (e *fieldError) Error() string { return e.msg }

// checkFigures is what is wrong with a node's or a function's figures, ""
// when nothing: none can be negative, and no exclusive figure exceeds its
// inclusive one (a frame's own time is part of its time; a function's
// exclusive time, summed over its frames, lies within its outermost frames'
// inclusive time). A profile edited by hand, or corrupt, that breaks them
// would render as shares above 100% and negative bars.
func checkFigures(calls, inclNs, exclNs, inclSamples, exclSamples int64) string {
	for _, f := range []struct {
		name string
		v    int64
	}{{"calls", calls}, {"inclusive_ns", inclNs}, {"exclusive_ns", exclNs}, {"inclusive_samples", inclSamples}, {"exclusive_samples", exclSamples}} {
		if f.v < 0 {
			return fmt.Sprintf("%s %d is negative (the file was edited, or is corrupt)", f.name, f.v)
		}
	}
	if exclNs > inclNs {
		return fmt.Sprintf("exclusive_ns %d exceeds inclusive_ns %d (the file was edited, or is corrupt)", exclNs, inclNs)
	}
	if exclSamples > inclSamples {
		return fmt.Sprintf("exclusive_samples %d exceeds inclusive_samples %d (the file was edited, or is corrupt)", exclSamples, inclSamples)
	}
	return ""
}
