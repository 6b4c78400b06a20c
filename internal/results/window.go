package results

// Window is the load's requests in one stretch of a measured load that
// attached the profiler (modes.AttachPlan; runner/attachload.go): a
// request belongs to the window it started in.
type Window struct {
	Name     string  `json:"name"`     // "before", "during 1", "after 1", …; pooled: "before", "during", "after"
	StartNs  int64   `json:"start_ns"` // from the measured load's start
	EndNs    int64   `json:"end_ns"`
	Requests int64   `json:"requests"`
	RPS      float64 `json:"rps,omitempty"` // Requests over the window's length
	P50Ns    int64   `json:"p50_ns,omitempty"`
	P99Ns    int64   `json:"p99_ns,omitempty"`
}

// AttachCost is what one attach cost the service, besides its windows.
type AttachCost struct {
	// AttachNs is how long the runtime took to load the profiler
	// (AttachProfiler sent to its answer); DetachNs from the planned end of
	// the profiling to the profile written (the detach and the writing).
	AttachNs int64 `json:"attach_ns"`
	DetachNs int64 `json:"detach_ns"`
	// The spike: the requests in flight in the first second after
	// AttachProfiler was sent, their slowest and their p99.
	SpikeRequests int64 `json:"spike_requests"`
	SpikeMaxNs    int64 `json:"spike_max_ns,omitempty"`
	SpikeP99Ns    int64 `json:"spike_p99_ns,omitempty"`
}

// AttachLoad is a measured load that attached: each window, the windows of
// each kind pooled (what the measures read), and each attach's cost.
type AttachLoad struct {
	Windows  []Window     `json:"windows"`
	Pooled   []Window     `json:"pooled"` // before, during, after
	Attaches []AttachCost `json:"attaches"`
}

// Window kinds: a pooled window's name, a window's name's first word.
const (
	WindowBefore = "before"
	WindowDuring = "during"
	WindowAfter  = "after"
)

// WindowKinds are the pooled windows in order.
var WindowKinds = []string{WindowBefore, WindowDuring, WindowAfter}

// pooled is the pooled window of kind, nil when r did not attach.
func (r *Run) pooled(kind string) *Window {
	if r.Service == nil || r.Service.Attach == nil {
		return nil
	}
	for i := range r.Service.Attach.Pooled {
		if w := &r.Service.Attach.Pooled[i]; w.Name == kind {
			return w
		}
	}
	return nil
}

// windowOf is run r's reading of a window measure.
func windowOf(m Measure, r *Run) (float64, bool) {
	if m == MeasureAttachMax {
		if r.Service == nil || r.Service.Attach == nil || len(r.Service.Attach.Attaches) == 0 {
			return 0, false
		}
		var mx int64
		for _, a := range r.Service.Attach.Attaches {
			mx = max(mx, a.SpikeMaxNs)
		}
		return float64(mx), mx > 0
	}
	kind, what := m.window()
	w := r.pooled(kind)
	if w == nil || w.Requests == 0 {
		return 0, false
	}
	switch what {
	case "rps":
		return w.RPS, w.RPS > 0
	case "p50":
		return float64(w.P50Ns), true
	}
	return float64(w.P99Ns), true
}

// window is a window measure's kind and figure: rps_during → during, rps.
func (m Measure) window() (kind, what string) {
	for _, k := range WindowKinds {
		for _, w := range []string{"rps", "p50", "p99"} {
			if string(m) == w+"_"+k {
				return k, w
			}
		}
	}
	return "", ""
}

// Window reports whether m is read from an attach's windows (a mode with
// attach:): shown in the attach table, not the whole program's.
func (m Measure) Window() bool {
	k, _ := m.window()
	return k != "" || m == MeasureAttachMax
}

// HigherIsBetter reports whether a larger reading of m is better: a
// window's throughput, judged as its time per request (as metric rps).
func (m Measure) HigherIsBetter() bool {
	_, what := m.window()
	return what == "rps"
}
