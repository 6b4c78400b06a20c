package runner

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Report is what a workload says about itself on its VBENCH line:
//
//	VBENCH elapsed_ns=<int> checksum=<string> [calls.<Function>=<int> ...] [share.<Function>=<fraction> ...] [alloc.<Type>=<int> ...] [key=value ...]
type Report struct {
	ElapsedNs int64
	CPUNs     int64 // the process's CPU time during the kernel; -1 when not reported
	Checksum  string
	Calls     map[string]int64   // expected exact call counts, by function name
	Shares    map[string]float64 // expected shares of the sampled work (see ShareCheck), summing to 1
	// By source line ("Program.cs:16"): expected shares of the samples on
	// the declared lines (lineshare.<File>:<N>=F, summing to 1), and exact
	// executions under instrumentation with lines (line.<File>:<N>=N).
	LineShares map[string]float64
	LineCounts map[string]int64
	Allocs     map[string]int64 // expected objects allocated in the whole process, by type name (see AllocCheck)
	Other      map[string]string
}

// shareSumTolerance is how far from 1 a line's shares may sum: a workload
// prints fractions like 1/3 in full (C#'s round-trip format), whose decimal
// forms sum to 1 within a few units in the last place.
const shareSumTolerance = 1e-9

// ParseLine parses one VBENCH line (with or without the "VBENCH " prefix),
// which must give elapsed_ns.
func ParseLine(line string) (Report, error) {
	r, err := parseLine(line)
	if err == nil && r.ElapsedNs < 0 {
		err = fmt.Errorf("VBENCH line has no elapsed_ns: %q", line)
	}
	return r, err
}

// parseLine parses one VBENCH line; ElapsedNs is -1 when it gives none
// (which metrics wall and cpu do not need).
func parseLine(line string) (Report, error) {
	r := Report{ElapsedNs: -1, CPUNs: -1}
	fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "VBENCH"))
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return r, fmt.Errorf("VBENCH line: %q is not key=value", f)
		}
		switch {
		case k == "elapsed_ns":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return r, fmt.Errorf("VBENCH line: elapsed_ns=%q is not a non-negative integer", v)
			}
			r.ElapsedNs = n
		case k == "cpu_ns":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return r, fmt.Errorf("VBENCH line: cpu_ns=%q is not a non-negative integer", v)
			}
			r.CPUNs = n
		case k == "checksum":
			r.Checksum = v
		case strings.HasPrefix(k, "calls."):
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return r, fmt.Errorf("VBENCH line: %s=%q is not a non-negative integer", k, v)
			}
			if r.Calls == nil {
				r.Calls = map[string]int64{}
			}
			r.Calls[strings.TrimPrefix(k, "calls.")] = n
		case strings.HasPrefix(k, "lineshare."), strings.HasPrefix(k, "line."):
			if err := r.parseLineKey(k, v); err != nil {
				return r, err
			}
		case strings.HasPrefix(k, "alloc."):
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 || k == "alloc." {
				return r, fmt.Errorf("VBENCH line: %s=%q is not a type's name and a non-negative integer count of its objects", k, v)
			}
			if r.Allocs == nil {
				r.Allocs = map[string]int64{}
			}
			r.Allocs[strings.TrimPrefix(k, "alloc.")] = n
		case strings.HasPrefix(k, "share."):
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || !(x >= 0 && x <= 1) || k == "share." {
				return r, fmt.Errorf("VBENCH line: %s=%q is not a fraction between 0 and 1", k, v)
			}
			if r.Shares == nil {
				r.Shares = map[string]float64{}
			}
			r.Shares[strings.TrimPrefix(k, "share.")] = x
		default:
			if r.Other == nil {
				r.Other = map[string]string{}
			}
			r.Other[k] = v
		}
	}
	if len(r.Shares) > 0 {
		sum := 0.0
		for _, x := range r.Shares {
			sum += x
		}
		if math.Abs(sum-1) > shareSumTolerance {
			return r, fmt.Errorf("VBENCH line: the share.* values sum to %g, not 1: they must partition the sampled work (%s)", sum, sharesList(r.Shares))
		}
	}
	if len(r.LineShares) > 0 {
		sum := 0.0
		for _, x := range r.LineShares {
			sum += x
		}
		if math.Abs(sum-1) > shareSumTolerance {
			return r, fmt.Errorf("VBENCH line: the lineshare.* values sum to %g, not 1: they must partition the samples on the declared lines (%s)", sum, sharesList(r.LineShares))
		}
	}
	return r, nil
}

// parseLineKey reads lineshare.<File>:<N>=<fraction> and line.<File>:<N>=<count>.
func (r *Report) parseLineKey(k, v string) error {
	kind, at, _ := strings.Cut(k, ".")
	file, n, ok := strings.Cut(at, ":")
	if line, err := strconv.Atoi(n); !ok || file == "" || err != nil || line < 1 {
		return fmt.Errorf("VBENCH line: %s: want %s.<File>:<line>, e.g. %s.Program.cs:42", k, kind, kind)
	}
	if kind == "line" {
		c, err := strconv.ParseInt(v, 10, 64)
		if err != nil || c < 0 {
			return fmt.Errorf("VBENCH line: %s=%q is not a non-negative integer", k, v)
		}
		if r.LineCounts == nil {
			r.LineCounts = map[string]int64{}
		}
		r.LineCounts[at] = c
		return nil
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x >= 0 && x <= 1) {
		return fmt.Errorf("VBENCH line: %s=%q is not a fraction between 0 and 1", k, v)
	}
	if r.LineShares == nil {
		r.LineShares = map[string]float64{}
	}
	r.LineShares[at] = x
	return nil
}

// sharesList is a line's shares as it gave them, by function name: "A=0.25 B=0.75".
func sharesList(shares map[string]float64) string {
	names := make([]string, 0, len(shares))
	for n := range shares {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		names[i] = n + "=" + strconv.FormatFloat(shares[n], 'g', -1, 64)
	}
	return strings.Join(names, " ")
}

// lineSplitter hands each complete line written to it to a callback,
// without holding all of a chatty workload's output in memory.
type lineSplitter struct{ partial []byte }

func (l *lineSplitter) feed(p []byte, line func([]byte)) {
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		line(l.partial[:i])
		l.partial = l.partial[i+1:]
	}
	if len(l.partial) > 1<<20 { // a runaway line without newline: nothing to keep
		l.partial = l.partial[:0]
	}
}

// flush hands over the last line when the output did not end with a newline.
func (l *lineSplitter) flush(line func([]byte)) {
	if len(l.partial) > 0 {
		line(l.partial)
		l.partial = nil
	}
}

// outputScanner is the child's stdout: it keeps VBENCH lines and the tail of
// everything else (for error messages).
type outputScanner struct {
	lines  lineSplitter
	vbench []string
	tail   tailBuffer
}

func (s *outputScanner) Write(p []byte) (int, error) {
	s.tail.Write(p)
	s.lines.feed(p, s.line)
	return len(p), nil
}

func (s *outputScanner) line(b []byte) {
	b = bytes.TrimRight(b, "\r")
	if bytes.HasPrefix(b, []byte("VBENCH ")) {
		s.vbench = append(s.vbench, string(b))
	}
}

func (s *outputScanner) flush() { s.lines.flush(s.line) }

// stderrScanner is the child's stderr: its tail (for error messages) and
// the profiler's own lines ("vbench-profiler: ..."), which say why a
// profiled run wrote no profile and could scroll out of the tail.
type stderrScanner struct {
	tailBuffer
	lines    lineSplitter
	profiler []string
	crash    crashText
}

const maxProfilerLines = 5

func (s *stderrScanner) Write(p []byte) (int, error) {
	s.tailBuffer.Write(p)
	s.lines.feed(p, s.line)
	return len(p), nil
}

func (s *stderrScanner) line(b []byte) {
	s.crash.line(string(b))
	if i := bytes.Index(b, []byte("vbench-profiler: ")); i >= 0 && len(s.profiler) < maxProfilerLines {
		s.profiler = append(s.profiler, strings.TrimSpace(string(b[i:])))
	}
}

func (s *stderrScanner) flush() { s.lines.flush(s.line) }

// Text is what a failure message quotes of stderr: a .NET program's error
// line and its own frames (crashText) when it printed one, else the last
// lines.
func (s *stderrScanner) Text() string {
	if t := s.crash.String(); t != "" {
		return t
	}
	return s.LastLines(5)
}

// tailBuffer keeps the last few KiB written to it.
type tailBuffer struct{ b []byte }

const tailSize = 4096

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*tailSize {
		t.b = append(t.b[:0], t.b[len(t.b)-tailSize:]...)
	}
	return len(p), nil
}

// LastLines returns up to n trailing non-empty lines.
func (t *tailBuffer) LastLines(n int) string {
	b := t.b
	if len(b) > tailSize {
		b = b[len(b)-tailSize:]
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
