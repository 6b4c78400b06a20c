package attach

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// ProfilerLines passes a profiled program's stderr through unchanged and
// keeps the lines the profiler library wrote there ("vbench-profiler: ..."):
// why it declined to load, to explain a missing profile. It is safe for
// concurrent use.
type ProfilerLines struct {
	w       io.Writer
	mu      sync.Mutex
	partial []byte
	lines   []string
}

// NewProfilerLines returns a ProfilerLines writing through to w.
func NewProfilerLines(w io.Writer) *ProfilerLines { return &ProfilerLines{w: w} }

func (p *ProfilerLines) Write(b []byte) (int, error) {
	p.mu.Lock()
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		if line := string(p.partial[:i]); strings.Contains(line, "vbench-profiler:") {
			p.lines = append(p.lines, line)
		}
		p.partial = p.partial[i+1:]
	}
	p.mu.Unlock()
	return p.w.Write(b)
}

// String is the profiler's lines so far, joined by newlines; "" when none.
func (p *ProfilerLines) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}
