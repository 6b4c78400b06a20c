package attach

import (
	"bytes"
	"testing"
)

// Stderr passes through byte for byte, in whatever pieces it arrives; the
// profiler's lines are kept whole, the program's own are not.
func TestProfilerLines(t *testing.T) {
	var out bytes.Buffer
	p := NewProfilerLines(&out)
	in := "app: hello\nvbench-profiler: VBENCH_INTERVAL \"0s\": want 1ms..1s; not profiling\napp: bye\n"
	for i := 0; i < len(in); i += 7 {
		p.Write([]byte(in[i:min(i+7, len(in))]))
	}
	if out.String() != in {
		t.Errorf("passed through %q", out.String())
	}
	if want := `vbench-profiler: VBENCH_INTERVAL "0s": want 1ms..1s; not profiling`; p.String() != want {
		t.Errorf("kept %q, want %q", p.String(), want)
	}
}
