// Package timeline is the Chrome trace-event JSON that `vbench profile
// --timeline` writes (timeline.json beside profile.json): every thread's
// calls as complete ("X") slices in time order, the runtime's GCs, JIT
// compilations and exceptions as slices and instants on their threads.
// Perfetto, chrome://tracing and speedscope open it. Write streams a file;
// Read and Validate read one back and check the format's rules.
package timeline

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// File is the name of the timeline beside profile.json.
const File = "timeline.json"

// Categories of the events vbench writes.
const (
	CatCall      = "call"
	CatGC        = "gc"
	CatJIT       = "jit"
	CatException = "exception"
	CatThread    = "thread"
	CatAlloc     = "alloc"
)

// Event is one trace event. Ts and Dur are microseconds (the format's unit).
type Event struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"` // X: a slice; i: an instant; M: metadata; B/E: a slice's two ends
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	S    string         `json:"s,omitempty"` // an instant's scope: t (thread)
	Args map[string]any `json:"args,omitempty"`
}

// Trace is a whole file: the events and what vbench says of them
// (otherData: the cap, the minimum, what was folded and dropped).
type Trace struct {
	TraceEvents     []Event        `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit,omitempty"`
	OtherData       map[string]any `json:"otherData,omitempty"`
}

// Sort puts the events in the order Write wants: metadata first, then by
// time, an enclosing slice before what it encloses (longer first at a tie).
func Sort(ev []Event) {
	sort.SliceStable(ev, func(i, j int) bool {
		a, b := ev[i], ev[j]
		if (a.Ph == "M") != (b.Ph == "M") {
			return a.Ph == "M"
		}
		if a.Ts != b.Ts {
			return a.Ts < b.Ts
		}
		return a.Dur > b.Dur
	})
}

// Write streams t as JSON, one event a line, its events in the order given
// (see Sort). Returns the bytes written.
func Write(w io.Writer, t *Trace) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	bw.WriteString(`{"displayTimeUnit":"ns","otherData":`)
	od, err := json.Marshal(t.OtherData)
	if err != nil {
		return 0, err
	}
	bw.Write(od)
	bw.WriteString(",\"traceEvents\":[\n")
	names := map[string][]byte{}
	var b []byte
	for i := range t.TraceEvents {
		e := &t.TraceEvents[i]
		b = b[:0]
		if i > 0 {
			b = append(b, ",\n"...)
		}
		q, ok := names[e.Name]
		if !ok {
			q, _ = json.Marshal(e.Name)
			names[e.Name] = q
		}
		b = append(b, `{"name":`...)
		b = append(b, q...)
		if e.Cat != "" {
			b = append(b, `,"cat":"`...)
			b = append(b, e.Cat...)
			b = append(b, '"')
		}
		b = append(b, `,"ph":"`...)
		b = append(b, e.Ph...)
		b = append(b, `","ts":`...)
		b = strconv.AppendFloat(b, e.Ts, 'f', 3, 64)
		if e.Ph == "X" {
			b = append(b, `,"dur":`...)
			b = strconv.AppendFloat(b, e.Dur, 'f', 3, 64)
		}
		b = append(b, `,"pid":`...)
		b = strconv.AppendInt(b, int64(e.Pid), 10)
		b = append(b, `,"tid":`...)
		b = strconv.AppendInt(b, int64(e.Tid), 10)
		if e.S != "" {
			b = append(b, `,"s":"`...)
			b = append(b, e.S...)
			b = append(b, '"')
		}
		if len(e.Args) > 0 {
			a, err := json.Marshal(e.Args)
			if err != nil {
				return cw.n, err
			}
			b = append(b, `,"args":`...)
			b = append(b, a...)
		}
		b = append(b, '}')
		bw.Write(b)
	}
	bw.WriteString("\n]}\n")
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, cw.err
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// Read parses a trace-event file in its object form.
func Read(r io.Reader) (*Trace, error) {
	var t Trace
	if err := json.NewDecoder(r).Decode(&t); err != nil {
		return nil, fmt.Errorf("not trace-event JSON: %v", err)
	}
	return &t, nil
}

// Validate checks the trace-event format's rules a viewer relies on: known
// phases, a duration on every X, every B closed by its E on the same thread,
// and on each thread times that never go back and slices that nest (a slice
// starting inside another ends inside it). The error names the event.
func Validate(t *Trace) error {
	type open struct {
		name string
		end  float64 // X: its end; B: -1
	}
	type key struct{ pid, tid int }
	stacks := map[key][]open{}
	last := map[key]float64{}
	const eps = 0.0015 // the file's microseconds have 3 decimals
	for i, e := range t.TraceEvents {
		k := key{e.Pid, e.Tid}
		switch e.Ph {
		case "M":
			continue
		case "X", "B", "E", "i", "I", "C":
		default:
			return fmt.Errorf("event %d (%q): phase %q is not one vbench writes or reads", i, e.Name, e.Ph)
		}
		if e.Ts+eps < last[k] {
			return fmt.Errorf("event %d (%q, tid %d): ts %.3f goes back from %.3f", i, e.Name, e.Tid, e.Ts, last[k])
		}
		last[k] = e.Ts
		st := stacks[k]
		for len(st) > 0 && st[len(st)-1].end >= 0 && st[len(st)-1].end <= e.Ts+eps {
			st = st[:len(st)-1] // slices that ended before this event
		}
		switch e.Ph {
		case "X":
			if e.Dur < 0 {
				return fmt.Errorf("event %d (%q): negative dur %.3f", i, e.Name, e.Dur)
			}
			end := e.Ts + e.Dur
			if n := len(st); n > 0 && st[n-1].end >= 0 && end > st[n-1].end+eps {
				return fmt.Errorf("event %d (%q, tid %d): slice %.3f..%.3f overlaps the end of %q at %.3f", i, e.Name, e.Tid, e.Ts, end, st[n-1].name, st[n-1].end)
			}
			st = append(st, open{e.Name, end})
		case "B":
			st = append(st, open{e.Name, -1})
		case "E":
			n := len(st)
			if n == 0 || st[n-1].end >= 0 {
				return fmt.Errorf("event %d (%q, tid %d): E with no open B", i, e.Name, e.Tid)
			}
			st = st[:n-1]
		}
		stacks[k] = st
	}
	for k, st := range stacks {
		for _, o := range st {
			if o.end < 0 {
				return fmt.Errorf("tid %d: B %q never ended (no E)", k.tid, o.name)
			}
		}
	}
	return nil
}
