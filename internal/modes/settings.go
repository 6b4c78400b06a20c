package modes

import (
	"fmt"
	"time"
)

// ProfilerSettings are the vbench profiler's settings a mode (or a suite's
// profiler block) may give; zero values leave the profiler's defaults.
type ProfilerSettings struct {
	Interval   Duration `json:"interval,omitempty"`    // sampling interval
	Include    []string `json:"include,omitempty"`     // assembly/namespace glob patterns
	Exclude    []string `json:"exclude,omitempty"`     //
	TimeSample int      `json:"time_sample,omitempty"` // tracing, instrumentation: time 1 in N calls of hot paths
	NoInline   bool     `json:"no_inline,omitempty"`   // sampling, suspend-sampling: keep user methods from being inlined
	MaxStack   int      `json:"max_stack,omitempty"`   // suspend-sampling: frames kept per stack
	Lines      bool     `json:"lines,omitempty"`       // sampling: each sample's source line; instrumentation: each line's executions
	// tracing: a timeline of every thread (timeline.json), calls shorter
	// than TimelineMin folded into their callers, at most TimelineCap events
	Timeline    bool     `json:"timeline,omitempty"`
	TimelineMin Duration `json:"timeline_min,omitempty"`
	TimelineCap int      `json:"timeline_cap,omitempty"`
}

// A Setting is one of the profiler's numeric settings as data: its name (a
// suite's and a results file's field), its default, and the values the
// profiler accepts. Given anything else the profiler declines to load, so
// every reader of settings (a suite, `vbench profile`'s flags, the
// profiler's environment) checks them with Validate, and words its own
// message from these bounds.
type Setting[T ~int | ~int64] struct {
	Name        string
	Default     T // what the profiler uses when the setting is not given
	Min, Max    T
	PowersOfTwo bool // and only 1, 2, 4, …
}

func (s Setting[T]) accepts(v T) bool {
	return v >= s.Min && v <= s.Max && (!s.PowersOfTwo || v&(v-1) == 0)
}

// Want is what the profiler accepts, for a message: "1ms..1s", "1 or a
// power of two up to 1024".
func (s Setting[T]) Want() string {
	if s.PowersOfTwo {
		return fmt.Sprintf("%v or a power of two up to %v", s.Min, s.Max)
	}
	return fmt.Sprintf("%v..%v", s.Min, s.Max)
}

// The profiler's numeric settings.
var (
	Interval = Setting[time.Duration]{Name: "interval", Default: 10 * time.Millisecond, Min: time.Millisecond, Max: time.Second}
	// TimeSample: hot call paths (past their first 1024 calls) are timed on
	// a random ~1/16 of their calls, since rdtsc costs about as much as the
	// rest of the hook pair. That default is the tracing engine's;
	// instrumentation's is 256 (profiler/config.go says why).
	TimeSample = Setting[int]{Name: "time_sample", Default: 16, Min: 1, Max: 1024, PowersOfTwo: true}
	// MaxStack: the profiler's per-tick frame buffer holds 2^22 frames.
	MaxStack = Setting[int]{Name: "max_stack", Default: 1 << 20, Min: 16, Max: 1 << 22}
	// TimelineCap: events of one process's timeline (~90 bytes each in
	// timeline.json: the default is a file of ~90 MB at most, which
	// Perfetto and speedscope still open).
	TimelineCap = Setting[int]{Name: "timeline_cap", Default: 1_000_000, Min: 1, Max: 50_000_000}
	// TimelineMin: calls shorter than this are folded into their caller.
	TimelineMin = Setting[time.Duration]{Name: "timeline_min", Default: 100 * time.Microsecond, Min: 0, Max: time.Minute}
)

// Validate reports the first of s's settings the profiler would refuse. A
// zero setting is one not given (the profiler's default) and passes: a
// reader of typed values refuses a typed 0 itself, as it refuses what is
// not a number.
func Validate(s ProfilerSettings) error {
	if err := check(Interval, time.Duration(s.Interval)); err != nil {
		return err
	}
	if err := check(TimeSample, s.TimeSample); err != nil {
		return err
	}
	if err := check(TimelineCap, s.TimelineCap); err != nil {
		return err
	}
	if err := check(TimelineMin, time.Duration(s.TimelineMin)); err != nil {
		return err
	}
	return check(MaxStack, s.MaxStack)
}

func check[T ~int | ~int64](s Setting[T], v T) error {
	if v == 0 || s.accepts(v) {
		return nil
	}
	return fmt.Errorf("%s %v: the profiler accepts %s", s.Name, v, s.Want())
}

// IsZero reports whether no setting is given.
func (p ProfilerSettings) IsZero() bool {
	return p.Interval == 0 && len(p.Include) == 0 && len(p.Exclude) == 0 && p.TimeSample == 0 && !p.NoInline && p.MaxStack == 0 && !p.Lines &&
		!p.Timeline && p.TimelineMin == 0 && p.TimelineCap == 0
}

// Duration is a time.Duration that a results file spells as Go does ("10ms").
type Duration time.Duration

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText writes "10ms".
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads what time.ParseDuration reads. (encoding/json gives
// its error no position.)
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration like 10ms", b)
	}
	*d = Duration(v)
	return nil
}
