package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// On disk (schema 2 and later) a thread's call tree is a flat list of nodes in
// depth-first pre-order, each naming its parent by index, instead of nested
// "children" objects: encoding/json (and jq, and Python's json module with its
// recursion limit) refuse to read nesting deeper than a few thousand levels,
// and deep recursion is exactly what a profiler must record. In memory the
// tree stays nested (Thread.Roots); the conversions here never recurse, so a
// chain a million frames deep costs no stack.

// FlatNode is one call-tree node as profile.json stores it: Node without
// Children, plus the index of its parent in the same list (-1 for a root).
// Zero values are omitted.
type FlatNode struct {
	Parent           int         `json:"parent"` // index of the parent node, always smaller than this node's; -1: a root
	Fn               int         `json:"fn"`     // index in Profile.Functions
	Calls            int64       `json:"calls,omitempty"`
	InclusiveNs      int64       `json:"inclusive_ns,omitempty"`
	ExclusiveNs      int64       `json:"exclusive_ns,omitempty"`
	InclusiveSamples int64       `json:"inclusive_samples,omitempty"`
	ExclusiveSamples int64       `json:"exclusive_samples,omitempty"`
	KernelInclusive  int64       `json:"kernel_inclusive_samples,omitempty"`
	KernelExclusive  int64       `json:"kernel_exclusive_samples,omitempty"`
	Lines            []LineCount `json:"lines,omitempty"`
	CallLines        []LineCount `json:"call_lines,omitempty"`
}

// Flatten lists the forest roots in depth-first pre-order: every parent comes
// before its children, and siblings keep their order.
func Flatten(roots []Node) []FlatNode {
	out := make([]FlatNode, 0, len(roots))
	var path []int // index in out of the current node's ancestors, by depth
	Walk(roots, func(n *Node, d int) bool {
		parent := -1
		if d > 0 {
			parent = path[d-1]
		}
		path = append(path[:d], len(out))
		out = append(out, FlatNode{Parent: parent, Fn: n.Fn, Calls: n.Calls,
			InclusiveNs: n.InclusiveNs, ExclusiveNs: n.ExclusiveNs,
			InclusiveSamples: n.InclusiveSamples, ExclusiveSamples: n.ExclusiveSamples,
			KernelInclusive: n.KernelInclusiveSamples, KernelExclusive: n.KernelExclusiveSamples, Lines: n.Lines, CallLines: n.CallLines})
		return true
	}, nil)
	return out
}

// Unflatten rebuilds the nested forest from a list in which every node comes
// after its parent (pre-order, as Flatten writes, is one such order); children
// keep their order in the list. All nodes share one backing array, with each
// Children slice capped at its length so that appending to one copies it.
func Unflatten(flat []FlatNode) ([]Node, error) {
	kids := make([]int32, len(flat)) // children per node
	nroots := 0
	for i, f := range flat {
		switch {
		case f.Parent == -1:
			nroots++
		case f.Parent < -1 || f.Parent >= i:
			return nil, fmt.Errorf("nodes[%d]: parent %d is not -1 or the index of an earlier node", i, f.Parent)
		default:
			kids[f.Parent]++
		}
	}
	all := make([]Node, len(flat))
	fill := make([]int32, len(flat)) // where in all node i's next child goes
	next, root := int32(nroots), int32(0)
	for i, f := range flat {
		var s int32
		if f.Parent == -1 {
			s = root
			root++
		} else {
			s = fill[f.Parent]
			fill[f.Parent]++
		}
		n := &all[s]
		*n = Node{Fn: f.Fn, Calls: f.Calls, InclusiveNs: f.InclusiveNs, ExclusiveNs: f.ExclusiveNs,
			InclusiveSamples: f.InclusiveSamples, ExclusiveSamples: f.ExclusiveSamples,
			KernelInclusiveSamples: f.KernelInclusive, KernelExclusiveSamples: f.KernelExclusive, Lines: f.Lines, CallLines: f.CallLines}
		if k := kids[i]; k > 0 {
			n.Children = all[next : next+k : next+k]
			fill[i] = next
			next += k
		}
	}
	return all[:nroots:nroots], nil
}

// threadJSON is a Thread as profile.json stores it (schemas 2 and 3).
type threadJSON struct {
	OSID      int        `json:"os_id"`
	ManagedID uint64     `json:"managed_id,omitempty"`
	CPUNs     int64      `json:"cpu_ns"`
	Samples   int64      `json:"samples,omitempty"`
	Nodes     []FlatNode `json:"nodes"`
}

// threadV1 is a Thread as schema 1 stored it: nested roots and children.
type threadV1 struct {
	OSID      int    `json:"os_id"`
	ManagedID uint64 `json:"managed_id,omitempty"`
	CPUNs     int64  `json:"cpu_ns"`
	Samples   int64  `json:"samples,omitempty"`
	Roots     []Node `json:"roots"`
}

// MarshalJSON writes the thread with its tree as a flat node list (the
// layout of threadJSON).
func (t Thread) MarshalJSON() ([]byte, error) {
	e := threadWriter{b: make([]byte, 0, 64+48*Count(t.Roots))}
	e.thread(&t)
	return e.b, nil
}

// threadWriter writes threads by hand: encoding/json's reflection, and its
// re-scan of what a MarshalJSON returns, took 1.5 s for a million nodes; this
// takes a tenth of that. With w set, it flushes as it goes.
type threadWriter struct {
	b   []byte
	w   io.Writer
	err error
}

func (e *threadWriter) flush(force bool) {
	if e.w == nil || e.err != nil || (!force && len(e.b) < 1<<16) {
		return
	}
	_, e.err = e.w.Write(e.b)
	e.b = e.b[:0]
}

func (e *threadWriter) thread(t *Thread) {
	b := append(e.b, `{"os_id":`...)
	b = strconv.AppendInt(b, int64(t.OSID), 10)
	if t.ManagedID != 0 {
		b = append(b, `,"managed_id":`...)
		b = strconv.AppendUint(b, t.ManagedID, 10)
	}
	b = append(b, `,"cpu_ns":`...)
	b = strconv.AppendInt(b, t.CPUNs, 10)
	if t.Samples != 0 {
		b = append(b, `,"samples":`...)
		b = strconv.AppendInt(b, t.Samples, 10)
	}
	e.b = append(b, `,"nodes":[`...)
	var path []int // index of the current node's ancestors, by depth
	i := 0
	Walk(t.Roots, func(n *Node, d int) bool {
		parent := -1
		if d > 0 {
			parent = path[d-1]
		}
		path = append(path[:d], i)
		b := e.b
		if i > 0 {
			b = append(b, ',')
		}
		i++
		b = append(b, `{"parent":`...)
		b = strconv.AppendInt(b, int64(parent), 10)
		b = append(b, `,"fn":`...)
		b = strconv.AppendInt(b, int64(n.Fn), 10)
		b = appendNonZero(b, `,"calls":`, n.Calls)
		b = appendNonZero(b, `,"inclusive_ns":`, n.InclusiveNs)
		b = appendNonZero(b, `,"exclusive_ns":`, n.ExclusiveNs)
		b = appendNonZero(b, `,"inclusive_samples":`, n.InclusiveSamples)
		b = appendNonZero(b, `,"exclusive_samples":`, n.ExclusiveSamples)
		b = appendNonZero(b, `,"kernel_inclusive_samples":`, n.KernelInclusiveSamples)
		b = appendNonZero(b, `,"kernel_exclusive_samples":`, n.KernelExclusiveSamples)
		if len(n.Lines) > 0 {
			js, err := json.Marshal(n.Lines)
			if err != nil && e.err == nil {
				e.err = err
			}
			b = append(append(b, `,"lines":`...), js...)
		}
		if len(n.CallLines) > 0 {
			js, err := json.Marshal(n.CallLines)
			if err != nil && e.err == nil {
				e.err = err
			}
			b = append(append(b, `,"call_lines":`...), js...)
		}
		e.b = append(b, '}')
		e.flush(false)
		return e.err == nil
	}, nil)
	e.b = append(e.b, "]}"...)
}

func appendNonZero(b []byte, key string, v int64) []byte {
	if v == 0 {
		return b
	}
	return strconv.AppendInt(append(b, key...), v, 10)
}

// UnmarshalJSON reads a thread written by MarshalJSON. Unknown fields are
// errors, as everywhere in profile.json.
func (t *Thread) UnmarshalJSON(data []byte) error {
	var w threadJSON
	if err := strictUnmarshal(data, &w); err != nil {
		return err
	}
	return t.fromJSON(&w)
}

func (t *Thread) fromJSON(w *threadJSON) error {
	roots, err := Unflatten(w.Nodes)
	if err != nil {
		return err
	}
	*t = Thread{OSID: w.OSID, ManagedID: w.ManagedID, CPUNs: w.CPUNs, Samples: w.Samples, Roots: roots}
	return nil
}

// UnmarshalJSON reads profile.json of the current schema or an older one
// (schema 1: nested trees; schema 2: no parent_pid or end). Older ones are
// upgraded in memory, so Schema reads SchemaVersion afterwards. Unknown
// fields are errors.
func (p *Profile) UnmarshalJSON(data []byte) error {
	schema, err := peekSchema(data)
	if err != nil {
		return err
	}
	switch schema {
	case 1:
		ts, err := decodeWithThreads[threadV1](p, data)
		if err != nil {
			return err
		}
		p.Threads = make([]Thread, len(ts))
		for i, t := range ts {
			p.Threads[i] = Thread{OSID: t.OSID, ManagedID: t.ManagedID, CPUNs: t.CPUNs, Samples: t.Samples, Roots: t.Roots}
		}
		p.upgrade()
		return nil
	case 2, 3, 4, SchemaVersion: // 3 only adds fields to 2, 4 to 3, 5 to 4
		ts, err := decodeWithThreads[threadJSON](p, data)
		if err != nil {
			return err
		}
		p.Threads = make([]Thread, len(ts))
		for i := range ts {
			if err := p.Threads[i].fromJSON(&ts[i]); err != nil {
				return fmt.Errorf("threads[%d] (os_id %d): %w", i, ts[i].OSID, err)
			}
		}
		p.upgrade()
		return nil
	}
	return schemaError(schema)
}

// upgrade brings a profile of an older schema to this one in memory: the
// end time older profiles did not record is their start plus duration.
func (p *Profile) upgrade() {
	if p.Schema < SchemaVersion && p.End.IsZero() && !p.Start.IsZero() {
		p.End = p.Start.Add(time.Duration(p.DurationNs))
	}
	p.Schema = SchemaVersion
}

// profileFields is Profile without its methods, for decoding and encoding
// everything but the threads through encoding/json.
type profileFields Profile

// decodeWithThreads decodes data into p, strictly, with the threads in
// layout T (one schema's), which it returns.
func decodeWithThreads[T any](p *Profile, data []byte) ([]T, error) {
	var w struct {
		*profileFields
		Threads []T `json:"threads"`
	}
	w.profileFields = (*profileFields)(p)
	err := strictUnmarshal(data, &w)
	return w.Threads, err
}

// profileErr is what is wrong with a file that is a vbench profile (another
// schema, a corrupt tail), so decode does not call it "not a vbench profile".
type profileErr string

func (e profileErr) Error() string { return string(e) }

func schemaError(schema int) error {
	if schema > SchemaVersion {
		return profileErr(fmt.Sprintf("profile schema %d is newer than this vbench reads (schemas 1 to %d): update vbench", schema, SchemaVersion))
	}
	return profileErr(fmt.Sprintf("profile schema %d: this vbench reads schemas 1 to %d", schema, SchemaVersion))
}

// peekSchema returns the top-level "schema" field without decoding the rest:
// the writer puts it first, so this reads a few bytes of a large file.
func peekSchema(data []byte) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil {
		return 0, err
	} else if tok != json.Delim('{') {
		return 0, errors.New("profile.json is not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0, err
		}
		if tok == "schema" {
			var s int
			if err := dec.Decode(&s); err != nil {
				return 0, fmt.Errorf("field schema: %w", err)
			}
			return s, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return 0, err
		}
	}
	return 0, errors.New(`no "schema" field: not a vbench profile`)
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	// A whole file is one profile: anything after it means the file is corrupt.
	if end := dec.InputOffset(); !isEOF(dec) {
		return profileErr(fmt.Sprintf("corrupt profile: more data after the profile, which ends at byte %d", end))
	}
	return nil
}

func isEOF(dec *json.Decoder) bool {
	_, err := dec.Token()
	return err == io.EOF
}
