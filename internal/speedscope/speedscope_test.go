package speedscope

import (
	"bytes"
	"strings"
	"testing"

	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/timeline"
)

// A tracing profile's self times and a timeline's slices, written and read
// back: weights in nanoseconds per path, events balanced and in order (a
// slice outliving its parent is cut to it).
func TestNewWriteRead(t *testing.T) {
	p := &profile.Profile{Mode: modes.EngineTracing, PID: 9,
		Functions: []profile.Function{{Name: "A.Main"}, {Name: "A.Work"}},
		Threads:   []profile.Thread{{OSID: 9, Roots: []profile.Node{{Fn: 0, ExclusiveNs: 10, Children: []profile.Node{{Fn: 1, ExclusiveNs: 90}}}}}}}
	tl := &timeline.Trace{TraceEvents: []timeline.Event{
		{Name: "A.Main", Ph: "X", Ts: 0, Dur: 100, Pid: 9, Tid: 9},
		{Name: "A.Work", Ph: "X", Ts: 10, Dur: 50, Pid: 9, Tid: 9},
		{Name: "GC gen0 (other)", Ph: "X", Ts: 90, Dur: 30, Pid: 9, Tid: 9},
		{Name: "throw X", Ph: "i", Ts: 20, Pid: 9, Tid: 9},
	}}
	var b bytes.Buffer
	if err := Write(&b, New("t", p, tl)); err != nil {
		t.Fatal(err)
	}
	f, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Profiles) != 2 {
		t.Fatalf("%d profiles", len(f.Profiles))
	}
	s, e := f.Profiles[0], f.Profiles[1]
	if s.Type != "sampled" || s.Unit != "nanoseconds" || len(s.Samples) != 2 || s.Weights[1] != 90 || len(s.Samples[1]) != 2 || f.Shared.Frames[s.Samples[1][1]].Name != "A.Work" {
		t.Errorf("sampled: %+v", s)
	}
	if e.Type != "evented" || e.Unit != "microseconds" || len(e.Events) != 6 || e.EndValue != 100 {
		t.Errorf("evented: %+v", e)
	}
	bad := `{"$schema":"` + Schema + `","shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"evented","name":"x","unit":"none","startValue":0,"endValue":1,"events":[{"type":"O","frame":0,"at":0}]}]}`
	if _, err := Read(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "never closed") {
		t.Errorf("unbalanced: %v", err)
	}
}
