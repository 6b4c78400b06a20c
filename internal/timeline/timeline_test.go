package timeline

import (
	"bytes"
	"strings"
	"testing"
)

// Write's output reads back as the same events, and validates; Validate
// refuses what a viewer would mis-draw, naming the event.
func TestWriteReadValidate(t *testing.T) {
	ev := []Event{
		{Name: "inner", Cat: CatCall, Ph: "X", Ts: 10, Dur: 5, Pid: 1, Tid: 2},
		{Name: "thread_name", Ph: "M", Pid: 1, Tid: 2, Args: map[string]any{"name": "thread 2"}},
		{Name: "outer \"q\"", Cat: CatCall, Ph: "X", Ts: 10, Dur: 20, Pid: 1, Tid: 2},
		{Name: "throw X", Cat: CatException, Ph: "i", S: "t", Ts: 12, Pid: 1, Tid: 2},
		{Name: "other", Cat: CatCall, Ph: "X", Ts: 3, Dur: 100, Pid: 1, Tid: 3},
	}
	Sort(ev)
	if ev[0].Ph != "M" || ev[1].Name != "other" || ev[2].Name != "outer \"q\"" || ev[3].Name != "inner" {
		t.Fatalf("sorted: %+v", ev)
	}
	var b bytes.Buffer
	n, err := Write(&b, &Trace{TraceEvents: ev, OtherData: map[string]any{"folded_calls": 7}})
	if err != nil || n != int64(b.Len()) {
		t.Fatalf("wrote %d of %d: %v", n, b.Len(), err)
	}
	tr, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.TraceEvents) != 5 || tr.TraceEvents[2].Name != "outer \"q\"" || tr.TraceEvents[2].Dur != 20 || tr.OtherData["folded_calls"] != float64(7) {
		t.Fatalf("read back %+v", tr)
	}
	if err := Validate(tr); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		ev   []Event
		want string
	}{
		{[]Event{{Name: "a", Ph: "B", Ts: 1, Tid: 1}}, `B "a" never ended`},
		{[]Event{{Name: "a", Ph: "E", Ts: 1, Tid: 1}}, "E with no open B"},
		{[]Event{{Name: "a", Ph: "X", Ts: 5, Dur: 1, Tid: 1}, {Name: "b", Ph: "X", Ts: 4, Dur: 1, Tid: 1}}, "goes back"},
		{[]Event{{Name: "a", Ph: "X", Ts: 0, Dur: 10, Tid: 1}, {Name: "b", Ph: "X", Ts: 5, Dur: 10, Tid: 1}}, `overlaps the end of "a"`},
		{[]Event{{Name: "a", Ph: "X", Ts: 0, Dur: -1, Tid: 1}}, "negative dur"},
		{[]Event{{Name: "a", Ph: "Q", Tid: 1}}, `phase "Q"`},
	}
	for _, c := range bad {
		if err := Validate(&Trace{TraceEvents: c.ev}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.ev, err, c.want)
		}
	}
}
