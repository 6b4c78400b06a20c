package runner

import (
	"testing"
	"time"

	"vbench/internal/results"
)

// The load's requests cut at the attaches: each in the window it started
// in, the kinds pooled, each attach's spike the requests in flight in its
// first second (one sent before it and still running counts).
func TestAttachWindows(t *testing.T) {
	res := &loadResult{}
	add := func(start, lat float64) { res.requests = append(res.requests, request{start, lat}) }
	for i := 0; i < 100; i++ { // before: 0-1 s, 1 ms each
		add(float64(i)/100, 0.001)
	}
	add(0.995, 0.5)           // sent before attach 1, in flight across it: a spike
	for i := 0; i < 50; i++ { // during 1: 1-2 s
		add(1+float64(i)/50, 0.002)
	}
	for i := 0; i < 80; i++ { // after 1: 2-3 s
		add(2+float64(i)/80, 0.001)
	}
	for i := 0; i < 40; i++ { // during 2: 3-4 s
		add(3+float64(i)/40, 0.004)
	}
	for i := 0; i < 90; i++ { // after 2: 4-5 s
		add(4+float64(i)/90, 0.001)
	}
	s := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	spans := []span{{"before", 0, s(1)}, {"during 1", s(1), s(2)}, {"after 1", s(2), s(3)}, {"during 2", s(3), s(4)}, {"after 2", s(4), s(5)}}
	al := windows(res, spans, make([]results.AttachCost, 2))
	wantN := []int64{101, 50, 80, 40, 90}
	for i, w := range al.Windows {
		if w.Name != spans[i].name || w.Requests != wantN[i] || w.StartNs != int64(spans[i].start) || w.EndNs != int64(spans[i].end) {
			t.Errorf("window %d: %+v, want %s with %d requests", i, w, spans[i].name, wantN[i])
		}
	}
	pooled := map[string]int64{"before": 101, "during": 90, "after": 170}
	for _, w := range al.Pooled {
		if w.Requests != pooled[w.Name] {
			t.Errorf("pooled %s: %d requests, want %d", w.Name, w.Requests, pooled[w.Name])
		}
		delete(pooled, w.Name)
	}
	if len(pooled) > 0 {
		t.Errorf("no pooled windows %v", pooled)
	}
	if w := al.Pooled[1]; w.RPS != 45 || w.P50Ns != 2e6 || w.P99Ns != 4e6 {
		t.Errorf("pooled during: %+v, want 45 req/s (90 in 2 s), p50 2ms, p99 4ms", w)
	}
	if a := al.Attaches[0]; a.SpikeRequests != 51 || a.SpikeMaxNs != 5e8 {
		t.Errorf("attach 1's spike: %+v, want 51 requests (50 sent during it, 1 before), max 500ms", a)
	}
	if a := al.Attaches[1]; a.SpikeRequests != 40 || a.SpikeMaxNs != 4e6 {
		t.Errorf("attach 2's spike: %+v, want its 40 requests (after 1's last ended before it), max 4ms", a)
	}
}
