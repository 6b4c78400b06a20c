// Package foreignprof reads the profiles other profilers write (EventPipe's
// nettrace, pprof, speedscope, perf script's text) into vbench's own profile model, so the
// harness scores them as it scores its own engines' profiles: call counts,
// sampled shares, coverage of the tracer's hot functions.
//
// Every format comes down to weighted stacks (Stack): FromStacks builds a
// profile of per-thread call trees from them, its frames named as vbench
// names functions (Namespace.Type.Method: Name). The nettrace reader is a C#
// program built on TraceEvent (nettrace/, run by the runner); pprof is read
// with github.com/google/pprof/profile, speedscope's JSON with encoding/json.
package foreignprof

import (
	"bytes"
	"fmt"
	"strings"

	pprof "github.com/google/pprof/profile"

	"vbench/internal/modes"
	"vbench/internal/profile"
)

// Stack is one distinct stack of a thread and how many samples (or calls)
// it had.
type Stack struct {
	Thread int      `json:"thread"`
	Count  int64    `json:"count"`
	Frames []string `json:"frames"` // root first
}

// FromStacks builds a profile from weighted stacks: one call tree per
// thread, each stack's count its leaf's exclusive figure and every frame's
// inclusive one. calls says the counts are calls (a tracer's) rather than
// samples; the profile's mode says which (tracing or sampling), since
// vbench's checks read a profile by its mode.
func FromStacks(stacks []Stack, calls bool) *profile.Profile {
	p := &profile.Profile{Schema: profile.SchemaVersion, Mode: modes.EngineSampling, Complete: true, Functions: []profile.Function{}}
	if calls {
		p.Mode = modes.EngineTracing
	}
	fns := map[string]int{}
	threads := map[int]int{} // thread id -> index in p.Threads
	for _, s := range stacks {
		if len(s.Frames) == 0 || s.Count <= 0 {
			continue
		}
		ti, ok := threads[s.Thread]
		if !ok {
			ti = len(p.Threads)
			threads[s.Thread] = ti
			p.Threads = append(p.Threads, profile.Thread{OSID: s.Thread})
		}
		t := &p.Threads[ti]
		t.Samples += s.Count
		if !calls {
			p.Samples += s.Count
		}
		level := &t.Roots
		for i, f := range s.Frames {
			name := Name(f)
			fn, ok := fns[name]
			if !ok {
				fn = len(p.Functions)
				fns[name] = fn
				p.Functions = append(p.Functions, profile.Function{ID: fn, Name: name})
			}
			var n *profile.Node
			for j := range *level {
				if (*level)[j].Fn == fn {
					n = &(*level)[j]
					break
				}
			}
			if n == nil {
				*level = append(*level, profile.Node{Fn: fn})
				n = &(*level)[len(*level)-1]
			}
			leaf := i == len(s.Frames)-1
			if calls {
				if leaf {
					n.Calls += s.Count
				}
			} else {
				n.InclusiveSamples += s.Count
				if leaf {
					n.ExclusiveSamples += s.Count
				}
			}
			level = &n.Children
		}
	}
	p.Derive()
	return p
}

// Name is a frame's function as vbench's profiles name it
// (Namespace.Type.Method): without the module prefix other tools put before
// it (Module!Ns.Type.Method), its parameter list, and with nested types
// joined by '.' instead of the runtime's '+'.
func Name(frame string) string {
	if i := strings.IndexByte(frame, '!'); i >= 0 && !strings.ContainsAny(frame[:i], " <[(") {
		frame = frame[i+1:]
	}
	if i := strings.IndexByte(frame, '('); i > 0 {
		frame = frame[:i]
	}
	frame = strings.TrimSpace(strings.ReplaceAll(frame, "+", "."))
	if frame == "" {
		return "?"
	}
	return frame
}

// Plain is a function's name without generic arguments, for matching names
// across profilers that spell them differently: vbench writes a generic
// type's formal parameters (Dictionary<TKey,TValue>.Add), TraceEvent its
// arity and instantiation (Dictionary`2[System.Int32,System.__Canon].Add).
func Plain(name string) string {
	if !strings.ContainsAny(name, "<[`") {
		return name
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '<' || c == '[':
			depth++
		case c == '>' || c == ']':
			if depth > 0 {
				depth--
			}
		case depth > 0:
		case c == '`':
			for i+1 < len(name) && name[i+1] >= '0' && name[i+1] <= '9' {
				i++
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Read reads the profile files of one run (several when one per process
// was written), all in format, as one profile; nettrace reads a nettrace
// file (the runner's TraceEvent reader). A file that cannot be read is an
// error naming it, with the reader's reason.
func Read(format modes.ProfileFormat, paths []string, nettrace NettraceReader) (*profile.Profile, error) {
	var all []Stack
	calls := false
	var native, spanNs int64     // perf script's: samples with no managed frame, the longest span
	var counted *pprof.ValueType // a pprof's sample type, when not calls or samples
	for i, path := range paths {
		var stacks []Stack
		var c bool
		var err error
		switch format {
		case modes.FormatPprof:
			var vt *pprof.ValueType
			if stacks, c, vt, _, err = pprofStacks(path, ""); err == nil && vt != nil {
				counted = vt
			}
		case modes.FormatSpeedscope:
			stacks, err = speedscopeStacks(path)
		case modes.FormatPerfScript:
			var ps perfScript
			if ps, err = perfScriptStacks(path); err == nil {
				stacks, native, spanNs = ps.stacks, native+ps.native, max(spanNs, ps.spanNs)
			}
		case modes.FormatNettrace:
			var out []byte
			if out, err = nettrace(path); err == nil {
				var o nettraceOutput
				if o, err = decodeNettrace(bytes.NewReader(out)); err == nil {
					stacks = o.Stacks
				}
			}
		default:
			err = fmt.Errorf("unknown profile format %q", format)
		}
		if err != nil {
			return nil, err
		}
		if i > 0 && c != calls {
			return nil, fmt.Errorf("%s counts %s, %s %s: one run's profiles must count the same thing", paths[0], what(calls), path, what(c))
		}
		calls = c
		all = append(all, stacks...)
	}
	p := FromStacks(all, calls)
	if counted != nil {
		p.SampleType, p.SampleUnit = counted.Type, counted.Unit
	}
	// Every sample perf took cost the program, managed frames or not; and
	// its span lets a kernel's share of them be told (runner's events).
	p.Samples += native
	p.DurationNs = spanNs
	return p, nil
}

func what(calls bool) string {
	if calls {
		return "calls"
	}
	return "samples"
}
