package modes

import (
	"fmt"
	"time"
)

// AttachPlan is a service mode that attaches its engine to the running
// server during the measured load instead of loading it at start (a
// suite mode's attach:): At into the load the first attach, each profiling
// for Duration then detaching, Times attaches, Gap of load after each
// detach (before the next attach, and at the end). The load is cut into
// windows: before, during and after each attach.
type AttachPlan struct {
	At       Duration `json:"at"`
	Duration Duration `json:"duration"`
	Times    int      `json:"times"`
	Gap      Duration `json:"gap"`
}

// Defaults of an attach plan (attach: true).
const (
	DefaultAttachAt       = 5 * time.Second
	DefaultAttachDuration = 5 * time.Second
	DefaultAttachTimes    = 1
)

// DefaultAttachPlan is attach: true's plan; Gap defaults to At.
func DefaultAttachPlan() AttachPlan {
	return AttachPlan{At: Duration(DefaultAttachAt), Duration: Duration(DefaultAttachDuration), Times: DefaultAttachTimes, Gap: Duration(DefaultAttachAt)}
}

// Load is how long the measured load lasts at least: every window's
// planned length (the attaches and detaches themselves add to it).
func (a AttachPlan) Load() time.Duration {
	return time.Duration(a.At) + time.Duration(a.Times)*time.Duration(a.Duration+a.Gap)
}

func (a AttachPlan) String() string {
	s := fmt.Sprintf("attached at %v for %v", a.At, a.Duration)
	if a.Times > 1 {
		s += fmt.Sprintf(", %d times %v apart", a.Times, a.Gap)
	}
	return s
}
