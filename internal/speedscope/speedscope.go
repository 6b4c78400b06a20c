// Package speedscope writes vbench's profiles in speedscope's file format
// (its file-format-spec.ts: a shared frame table, then "sampled" profiles of
// stacks and weights, or "evented" ones of frames opened and closed in
// time order), which speedscope opens as it is, offline too:
//
//   - a tracing or instrumentation profile: per thread, each call path's
//     self time, in nanoseconds;
//   - a sampling profile: per thread, each path's self samples times the
//     interval, in nanoseconds (plain counts without an interval);
//   - an allocation profile: per thread, each path's bytes by type (the
//     type the leaf frame), in bytes, and the objects, counted;
//   - a timeline (timeline.json): per thread, the kept calls, GCs and JIT
//     compilations as frames opened and closed, in microseconds; a
//     sampling engine's, its samples as a sampled profile in time order,
//     in nanoseconds.
package speedscope

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"

	"vbench/internal/atomicfile"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/timeline"
)

// Schema is the file format's $schema value, which speedscope checks.
const Schema = "https://www.speedscope.app/file-format-schema.json"

// Ext is the file name ending that says a file is speedscope's; File is the
// one vbench keeps beside a run's merged profile.pb.gz.
const (
	Ext      = ".speedscope.json"
	FileName = "profile" + Ext
)

type File struct {
	Schema             string    `json:"$schema"`
	Version            string    `json:"version,omitempty"`
	Name               string    `json:"name,omitempty"`
	Exporter           string    `json:"exporter,omitempty"`
	ActiveProfileIndex int       `json:"activeProfileIndex"`
	Shared             Shared    `json:"shared"`
	Profiles           []Profile `json:"profiles"`
}

type Shared struct {
	Frames []Frame `json:"frames"`
}

type Frame struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// Profile is a sampled or an evented profile (Type says which).
type Profile struct {
	Type       string    `json:"type"` // sampled | evented
	Name       string    `json:"name"`
	Unit       string    `json:"unit"` // nanoseconds, microseconds, bytes, none
	StartValue float64   `json:"startValue"`
	EndValue   float64   `json:"endValue"`
	Samples    [][]int   `json:"samples,omitempty"`
	Weights    []float64 `json:"weights,omitempty"`
	Events     []Event   `json:"events,omitempty"`
}

// Event opens (O) or closes (C) a frame at a time.
type Event struct {
	Type  string  `json:"type"`
	Frame int     `json:"frame"`
	At    float64 `json:"at"`
}

// Write writes f as JSON.
func Write(w io.Writer, f *File) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(f)
}

// Read parses a speedscope file and checks what speedscope relies on: the
// schema, frames in range, a weight for every sample, and evented
// profiles' times in order with every frame opened closed, in order.
func Read(r io.Reader) (*File, error) {
	var f File
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("not speedscope JSON: %v", err)
	}
	if f.Schema != Schema {
		return nil, fmt.Errorf("$schema %q, want %q", f.Schema, Schema)
	}
	n := len(f.Shared.Frames)
	for i, p := range f.Profiles {
		switch p.Type {
		case "sampled":
			if len(p.Samples) != len(p.Weights) {
				return nil, fmt.Errorf("profile %d (%s): %d samples, %d weights", i, p.Name, len(p.Samples), len(p.Weights))
			}
			for _, s := range p.Samples {
				for _, fr := range s {
					if fr < 0 || fr >= n {
						return nil, fmt.Errorf("profile %d (%s): frame %d of %d", i, p.Name, fr, n)
					}
				}
			}
		case "evented":
			var st []int
			last := p.StartValue
			for j, e := range p.Events {
				if e.At < last || e.Frame < 0 || e.Frame >= n {
					return nil, fmt.Errorf("profile %d (%s) event %d: at %v after %v, frame %d of %d", i, p.Name, j, e.At, last, e.Frame, n)
				}
				last = e.At
				if e.Type == "O" {
					st = append(st, e.Frame)
				} else if len(st) == 0 || st[len(st)-1] != e.Frame {
					return nil, fmt.Errorf("profile %d (%s) event %d: closes frame %d, which is not the open one", i, p.Name, j, e.Frame)
				} else {
					st = st[:len(st)-1]
				}
			}
			if len(st) > 0 {
				return nil, fmt.Errorf("profile %d (%s): %d frames never closed", i, p.Name, len(st))
			}
		default:
			return nil, fmt.Errorf("profile %d (%s): type %q", i, p.Name, p.Type)
		}
	}
	return &f, nil
}

// builder holds the frame table while profiles are added.
type builder struct {
	f     *File
	index map[Frame]int
}

func newBuilder(name string) *builder {
	return &builder{f: &File{Schema: Schema, Name: name, Exporter: "vbench", Shared: Shared{Frames: []Frame{}}, Profiles: []Profile{}}, index: map[Frame]int{}}
}

func (b *builder) frame(fr Frame) int {
	i, ok := b.index[fr]
	if !ok {
		i = len(b.f.Shared.Frames)
		b.f.Shared.Frames = append(b.f.Shared.Frames, fr)
		b.index[fr] = i
	}
	return i
}

// New makes a file of p's call trees (or allocations) and, when given, the
// timeline's threads; name is the file's title in speedscope.
func New(name string, p *profile.Profile, tl *timeline.Trace) *File {
	b := newBuilder(name)
	if p != nil {
		b.addProfile(p)
	}
	if tl != nil {
		b.addTimeline(tl)
	}
	// Open on the heaviest thread's profile (speedscope opens the first).
	best := -1.0
	for i, pr := range b.f.Profiles {
		if w := pr.EndValue - pr.StartValue; pr.Type == "sampled" && w > best {
			b.f.ActiveProfileIndex, best = i, w
		}
	}
	return b.f
}

func threadName(pid, os int, several bool) string {
	if several && pid != 0 {
		return fmt.Sprintf("pid %d thread %d", pid, os)
	}
	return fmt.Sprintf("thread %d", os)
}

func (b *builder) addProfile(p *profile.Profile) {
	fns := make([]int, len(p.Functions))
	for i, f := range p.Functions {
		fns[i] = b.frame(Frame{Name: f.Name, File: f.File, Line: f.Line})
	}
	several := false
	for _, t := range p.Threads {
		if t.PID != 0 && t.PID != p.PID {
			several = true
		}
	}
	if a := p.Allocations; a != nil {
		b.addAllocations(p, a, fns, several)
		return
	}
	unit, what := "nanoseconds", "self time"
	samples := p.Mode.Samples()
	if samples {
		what = "self samples"
		if p.IntervalNs <= 0 {
			unit = "none"
		}
	}
	for _, t := range p.Threads {
		pr := Profile{Type: "sampled", Name: threadName(t.PID, t.OSID, several) + " (" + what + ")", Unit: unit}
		var stack []int
		var walk func(n *profile.Node)
		walk = func(n *profile.Node) {
			stack = append(stack, fns[n.Fn])
			w := float64(n.ExclusiveNs)
			if samples {
				w = float64(n.ExclusiveSamples)
				if p.IntervalNs > 0 {
					w *= float64(p.IntervalNs)
				}
			}
			if w > 0 {
				pr.Samples = append(pr.Samples, append([]int(nil), stack...))
				pr.Weights = append(pr.Weights, w)
				pr.EndValue += w
			}
			for i := range n.Children {
				walk(&n.Children[i])
			}
			stack = stack[:len(stack)-1]
		}
		for i := range t.Roots {
			walk(&t.Roots[i])
		}
		if len(pr.Samples) > 0 {
			b.f.Profiles = append(b.f.Profiles, pr)
		}
	}
}

func (b *builder) addAllocations(p *profile.Profile, a *profile.Allocations, fns []int, several bool) {
	for _, t := range a.Threads {
		bytes := Profile{Type: "sampled", Name: threadName(t.PID, t.OSID, several) + " (bytes allocated)", Unit: "bytes"}
		objs := Profile{Type: "sampled", Name: threadName(t.PID, t.OSID, several) + " (objects allocated)", Unit: "none"}
		paths := make([][]int, len(t.Nodes))
		for i, n := range t.Nodes {
			var path []int
			if n.Parent >= 0 && n.Parent < i {
				path = append(path, paths[n.Parent]...)
			}
			if n.Fn >= 0 && n.Fn < len(fns) {
				path = append(path, fns[n.Fn])
			}
			paths[i] = path
			for _, s := range n.Types {
				typ := "?"
				if s.Type >= 0 && s.Type < len(a.Types) {
					typ = a.Types[s.Type].Name
				}
				leaf := append(append([]int(nil), path...), b.frame(Frame{Name: "new " + typ}))
				if s.Bytes > 0 {
					bytes.Samples = append(bytes.Samples, leaf)
					bytes.Weights = append(bytes.Weights, float64(s.Bytes))
					bytes.EndValue += float64(s.Bytes)
				}
				if s.Count > 0 {
					objs.Samples = append(objs.Samples, leaf)
					objs.Weights = append(objs.Weights, float64(s.Count))
					objs.EndValue += float64(s.Count)
				}
			}
		}
		for _, pr := range []Profile{bytes, objs} {
			if len(pr.Samples) > 0 {
				b.f.Profiles = append(b.f.Profiles, pr)
			}
		}
	}
}

// addTimeline adds one evented profile per thread of tl: its slices (calls,
// GCs, JIT compilations) as frames opened and closed, a sampling engine's
// sample slices as a sampled profile (addTimeOrder); instants have no place
// in the format and are left out.
func (b *builder) addTimeline(tl *timeline.Trace) {
	type key struct{ pid, tid int }
	by := map[key][]timeline.Event{}
	var keys []key
	samples := map[key][]timeline.Event{} // a sampling engine's slices
	for _, e := range tl.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		k := key{e.Pid, e.Tid}
		if by[k] == nil && samples[k] == nil {
			keys = append(keys, k)
		}
		if e.Cat == timeline.CatSample {
			samples[k] = append(samples[k], e)
		} else {
			by[k] = append(by[k], e)
		}
	}
	pids := map[int]bool{}
	for _, k := range keys {
		pids[k.pid] = true
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].pid != keys[j].pid {
			return keys[i].pid < keys[j].pid
		}
		return keys[i].tid < keys[j].tid
	})
	for _, k := range keys {
		if sl := samples[k]; len(sl) > 0 {
			b.addTimeOrder(threadName(k.pid, k.tid, len(pids) > 1), sl)
		}
		evs := by[k]
		timeline.Sort(evs)
		pr := Profile{Type: "evented", Name: threadName(k.pid, k.tid, len(pids) > 1) + " (timeline)", Unit: "microseconds"}
		type open struct {
			frame int
			end   float64
		}
		var st []open
		closeTo := func(t float64) {
			for len(st) > 0 && st[len(st)-1].end <= t {
				o := st[len(st)-1]
				st = st[:len(st)-1]
				pr.Events = append(pr.Events, Event{Type: "C", Frame: o.frame, At: o.end})
			}
		}
		for i, e := range evs {
			if i == 0 {
				pr.StartValue = e.Ts
			}
			closeTo(e.Ts)
			end := e.Ts + e.Dur
			if n := len(st); n > 0 && end > st[n-1].end {
				end = st[n-1].end // a slice may not outlive the one it started in
			}
			fr := b.frame(Frame{Name: e.Name})
			pr.Events = append(pr.Events, Event{Type: "O", Frame: fr, At: e.Ts})
			st = append(st, open{fr, end})
			if end > pr.EndValue {
				pr.EndValue = end
			}
		}
		closeTo(pr.EndValue)
		if len(pr.Events) > 0 {
			b.f.Profiles = append(b.f.Profiles, pr)
		}
	}
}

// addTimeOrder adds a sampled profile of one thread's sample slices (a
// sampling engine's timeline) in time order, for speedscope's Time Order
// view: each stretch of time with one stack a sample, weighed by its
// length in nanoseconds. The stretches the thread did not run are left out.
func (b *builder) addTimeOrder(thread string, sl []timeline.Event) {
	timeline.Sort(sl)
	pr := Profile{Type: "sampled", Name: thread + " (samples in time order)", Unit: "nanoseconds"}
	type open struct {
		frame int
		end   float64
	}
	var st []open
	cur := 0.0
	emit := func(to float64) {
		if len(st) > 0 && to > cur {
			stack := make([]int, len(st))
			for i, o := range st {
				stack[i] = o.frame
			}
			w := (to - cur) * 1e3
			pr.Samples = append(pr.Samples, stack)
			pr.Weights = append(pr.Weights, w)
			pr.EndValue += w
		}
		cur = max(cur, to)
	}
	popTo := func(t float64) {
		for len(st) > 0 && st[len(st)-1].end <= t {
			emit(st[len(st)-1].end)
			st = st[:len(st)-1]
		}
	}
	for _, e := range sl {
		popTo(e.Ts)
		emit(e.Ts)
		end := e.Ts + e.Dur
		if n := len(st); n > 0 && end > st[n-1].end {
			end = st[n-1].end
		}
		st = append(st, open{b.frame(Frame{Name: e.Name}), end})
	}
	popTo(math.Inf(1))
	if len(pr.Samples) > 0 {
		b.f.Profiles = append(b.f.Profiles, pr)
	}
}

// FromTree is a file of t's profiles merged and of the timelines its
// processes wrote beside their profiles (timeline.json); nil for a profile
// with nothing to draw (the null engine's).
func FromTree(t *profile.Tree) (*File, error) {
	if t.Mode() == modes.EngineNull || len(t.Processes) == 0 {
		return nil, nil
	}
	var tl *timeline.Trace
	for _, path := range t.Paths {
		f, err := os.Open(filepath.Join(filepath.Dir(path), timeline.File))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		one, err := timeline.Read(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", f.Name(), err)
		}
		if tl == nil {
			tl = one
		} else {
			tl.TraceEvents = append(tl.TraceEvents, one.TraceEvents...)
		}
	}
	return New("vbench "+string(t.Mode())+" profile", t.Merge(), tl), nil
}

// WriteTreeFile writes FromTree(t) to path atomically; nothing for a
// profile with nothing to draw.
func WriteTreeFile(path string, t *profile.Tree) error {
	f, err := FromTree(t)
	if err != nil || f == nil {
		return err
	}
	return atomicfile.Write(path, 0o666, func(w io.Writer) error { return Write(w, f) })
}
