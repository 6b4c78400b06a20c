package profile

import (
	"fmt"
	"time"
)

// Timeline is what profile.json says of the timeline a run with
// --timeline wrote beside it (timeline.json, package timeline): how much
// it kept, and what it left out.
type Timeline struct {
	File   string `json:"file,omitempty"` // the file's name beside profile.json; "" when it could not be written
	Error  string `json:"error,omitempty"`
	Events int64  `json:"events"` // every event written: calls, GCs, JIT compilations, exceptions, thread exits
	Calls  int64  `json:"calls"`  // of Events, call slices (tracing)
	// of Events, allocations (the allocation engines: each object, or each sample)
	Allocations int64 `json:"allocations,omitempty"`
	// of the sampling engines: samples kept, and the nested slices they make (of Events)
	Samples int64 `json:"samples,omitempty"`
	Slices  int64 `json:"slices,omitempty"`
	Folded  int64 `json:"folded"`  // calls shorter than MinNs, folded into their callers
	Dropped int64 `json:"dropped"` // calls not kept: past the cap, or deeper than the frames followed
	Cap     int64 `json:"cap"`     // call events a process keeps at most
	MinNs   int64 `json:"min_ns"`
	Bytes   int64 `json:"bytes"`
}

// Warning says what the timeline left out that a reader would miss: calls
// dropped at the cap, or the file not written. Folding is the setting
// doing its job, said in the summary, not warned about.
func (t *Timeline) Warning() string {
	switch {
	case t == nil:
		return ""
	case t.Error != "":
		return "timeline: " + t.Error
	case t.Dropped > 0 && t.Samples > 0:
		return fmt.Sprintf("timeline: %d samples were left out of %s: its cap of %d events was reached (--timeline-cap)", t.Dropped, t.File, t.Cap)
	case t.Dropped > 0 && t.Allocations > 0:
		return fmt.Sprintf("timeline: %d allocations were left out of %s: its cap of %d events was reached (--timeline-cap)", t.Dropped, t.File, t.Cap)
	case t.Dropped > 0:
		return fmt.Sprintf("timeline: %d calls were left out of %s: its cap of %d events was reached (--timeline-cap), or they were deeper than the frames it follows; raise --timeline-min to fold more short calls", t.Dropped, t.File, t.Cap)
	}
	return ""
}

// Summary is one line for a person: "timeline.json: 1234 calls (56789
// shorter than 100µs folded), 12 MB".
func (t *Timeline) Summary() string {
	if t == nil || t.File == "" {
		return ""
	}
	s := fmt.Sprintf("%s: %d events, %d calls kept, %d calls shorter than %v folded into their callers", t.File, t.Events, t.Calls, t.Folded, time.Duration(t.MinNs))
	switch {
	case t.Samples > 0:
		s = fmt.Sprintf("%s: %d events, %d samples in time order as %d slices", t.File, t.Events, t.Samples, t.Slices)
	case t.Allocations > 0 || t.Calls == 0:
		s = fmt.Sprintf("%s: %d events, %d allocations", t.File, t.Events, t.Allocations)
	}
	if t.Dropped > 0 {
		s += fmt.Sprintf(", %d dropped at the cap of %d", t.Dropped, t.Cap)
	}
	return s
}
