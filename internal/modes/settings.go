package modes

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ProfilerSettings are the vbench profiler's settings a mode (or a suite's
// profiler block, or `vbench profile`'s flags) may give; zero values leave
// the profiler's defaults. Each field has its row in Fields, found by its
// json name: the row says everything else about it.
type ProfilerSettings struct {
	Interval    Duration `json:"interval,omitempty"`
	Include     []string `json:"include,omitempty"`
	Exclude     []string `json:"exclude,omitempty"`
	TimeSample  int      `json:"time_sample,omitempty"`
	NoInline    bool     `json:"no_inline,omitempty"`
	MaxStack    int      `json:"max_stack,omitempty"`
	Lines       bool     `json:"lines,omitempty"`
	Timeline    bool     `json:"timeline,omitempty"`
	TimelineMin Duration `json:"timeline_min,omitempty"`
	TimelineCap int      `json:"timeline_cap,omitempty"`
}

// Fields is the settings table (google/pprof's driver config.go is
// the model): from it come a suite's setting fields and their checks, `vbench
// profile`'s flags, the environment the profiler reads, and Spec's
// Description and Equal. A new setting is a field above and its row here,
// then the profiler's own reading of its variable (profiler/config.go or the
// C side): docs/settings.md walks through one.
var Fields = []Field{
	{Bounds: Interval, Env: "VBENCH_INTERVAL", Reads: Engine.Samples,
		Help: "sampling interval, " + Interval.Want()},
	{Name: "include", Env: "VBENCH_INCLUDE", Reads: everyEngine,
		Help: "also profile framework code matching these assembly or namespace `patterns` (user code is by default; repeatable, comma-separated)"},
	{Name: "exclude", Env: "VBENCH_EXCLUDE", Reads: everyEngine,
		Help: "assembly or namespace `patterns` not to profile (repeatable, comma-separated)"},
	{Bounds: TimeSample, Env: "VBENCH_TIME_SAMPLE", Reads: Engine.CountsCalls, PerEngineDefault: true,
		Help: "tracing, instrumentation: time ~1 in N calls of hot call paths (power of two; 1: every call; default 16, instrumentation 256)"},
	{Name: "no_inline", Env: "VBENCH_SAMPLING_NOINLINE", Reads: Engine.Samples,
		Help: "sampling: keep user methods (but tiny ones) from being inlined, so samples land on them"},
	{Bounds: MaxStack, Env: "VBENCH_MAX_STACK", Unit: "frames", Reads: isEngine(EngineSuspendSampling), // the signal sampler keeps a fixed 128 + 128 frames
		Help: "suspend-sampling: frames kept per stack (" + MaxStack.Want() + "); deeper stacks keep both ends and mark the frames elided between them"},
	{Name: "lines", Env: "VBENCH_LINES", Reads: isEngine(EngineSampling, EngineCPUSampling, EngineInstrumentation), // the signal sampler maps its leaves' IPs; instrumentation counts sequence points
		Help: "sampling: each sample's source line, from the program's PDBs (on by default for a launched program under --mode sampling; --lines=false turns it off); instrumentation: count every line's executions (off by default: it counts every basic block, a dearer mode)"},
	{Name: "timeline", Env: "VBENCH_TIMELINE", Reads: writesTimeline,
		Help: "tracing: also write <pid>/timeline.json, every thread's calls, GCs, JIT compilations and exceptions in time order; allocations, allocation-sampling: every allocation (or sample) with its type, bytes and path, and the GCs; the sampling engines: each thread's samples in time order as nested slices, the GCs and exceptions (Chrome trace-event JSON: Perfetto, speedscope)"},
	{Bounds: TimelineMin, Env: "VBENCH_TIMELINE_MIN", Needs: "timeline", Reads: isEngine(EngineTracing), // calls fold; allocations are instants
		Help: "with --timeline, tracing: calls shorter than this fold into their caller (0: keep every call)"},
	{Bounds: TimelineCap, Env: "VBENCH_TIMELINE_CAP", Unit: "events", Needs: "timeline", Reads: writesTimeline,
		Help: "with --timeline: events (calls, allocations, samples) a process keeps at most (" + TimelineCap.Want() + "); those past it are counted and said"},
}

// A Field is one row of the settings table.
type Field struct {
	Name   string // a bool's or a list's name; a number's is its Bounds'
	Bounds bound  // a number's: its default and the values the profiler accepts
	Env    string // the variable the profiler reads it from
	Reads  func(Engine) bool
	// Needs names the bool setting without which this one does nothing.
	Needs string
	Unit  string // what a number counts, for messages: "frames"
	// PerEngineDefault: the profiler's default depends on the engine, so a
	// flag shows none.
	PerEngineDefault bool
	Help             string // `vbench profile`'s flag
	index            []int  // the ProfilerSettings field
}

// Key is the setting's name in a suite and a results file.
func (f *Field) Key() string {
	if f.Bounds != nil {
		return f.Bounds.name()
	}
	return f.Name
}

// Flag is `vbench profile`'s flag for the setting: time_sample → time-sample.
func (f *Field) Flag() string { return strings.ReplaceAll(f.Key(), "_", "-") }

// Ptr is a pointer to the setting in p: *Duration, *int, *bool or *[]string.
func (f *Field) Ptr(p *ProfilerSettings) any {
	return reflect.ValueOf(p).Elem().FieldByIndex(f.index).Addr().Interface()
}

func (f *Field) value(p *ProfilerSettings) reflect.Value {
	return reflect.ValueOf(p).Elem().FieldByIndex(f.index)
}

// Given reports whether p gives the setting (a false bool, a zero number
// and an empty list give nothing).
func (f *Field) Given(p *ProfilerSettings) bool {
	v := f.value(p)
	if v.Kind() == reflect.Slice {
		return v.Len() > 0
	}
	return !v.IsZero()
}

// Default is the profiler's default: a time.Duration, an int, false or nil.
func (f *Field) Default() any {
	if f.Bounds == nil {
		return nil
	}
	return f.Bounds.def()
}

// Accepts reports whether the profiler takes v (a typed number: 0 is a value
// here, as in a flag or a variable, not "not given").
func (f *Field) Accepts(v int64) bool { return f.Bounds == nil || f.Bounds.acceptsInt(v) }

// Want is what the profiler accepts for a message: "1ms..1s", "16..4194304
// frames", "a duration in 0s..1m0s (0 keeps every call)".
func (f *Field) Want() string {
	w := f.Bounds.want()
	switch {
	case f.Unit != "":
		return w + " " + f.Unit
	case f.isDuration() && f.Bounds.acceptsInt(0):
		return "a duration in " + w + " (0 keeps every call)"
	}
	return w
}

// IsDuration reports whether the setting is a duration ("10ms").
func (f *Field) IsDuration() bool { return f.isDuration() }

func (f *Field) isDuration() bool {
	return reflect.TypeOf(ProfilerSettings{}).FieldByIndex(f.index).Type == reflect.TypeOf(Duration(0))
}

// FieldNamed is the row of setting key; nil when there is none.
func FieldNamed(key string) *Field {
	for i := range Fields {
		if Fields[i].Key() == key {
			return &Fields[i]
		}
	}
	return nil
}

// EnvVar is the variable the profiler reads setting key from.
func EnvVar(key string) string {
	f := FieldNamed(key)
	if f == nil {
		panic("modes: no setting " + key)
	}
	return f.Env
}

// SettingNames lists every setting's key, in the table's order.
func SettingNames() []string {
	out := make([]string, len(Fields))
	for i := range Fields {
		out[i] = Fields[i].Key()
	}
	return out
}

// The table and the struct must agree: every field a row, every row a field.
func init() {
	t := reflect.TypeOf(ProfilerSettings{})
	seen := map[string]bool{}
	for i := range Fields {
		f := &Fields[i]
		sf, ok := t.FieldByNameFunc(func(n string) bool {
			sf, _ := t.FieldByName(n)
			tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			return tag == f.Key()
		})
		if !ok || f.Env == "" || f.Reads == nil {
			panic("modes: settings row " + f.Key() + " has no ProfilerSettings field, variable or engines")
		}
		f.index = sf.Index
		seen[f.Key()] = true
	}
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); !seen[tag] {
			panic("modes: ProfilerSettings." + t.Field(i).Name + " has no row in Fields")
		}
	}
}

func everyEngine(Engine) bool { return true }

func isEngine(es ...Engine) func(Engine) bool {
	return func(e Engine) bool { return slices.Contains(es, e) }
}

// the enter/leave hooks, the allocation callbacks, the samplers write it
func writesTimeline(e Engine) bool { return e == EngineTracing || e.Allocates() || e.Samples() }

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

// bound is a Setting of any number type, as the table holds it.
type bound interface {
	Range() (min, max any) // a time.Duration or an int
	name() string
	want() string
	def() any
	acceptsInt(int64) bool
}

// Range is the values the profiler accepts, as any.
func (s Setting[T]) Range() (min, max any) { return s.Min, s.Max }

func (s Setting[T]) name() string            { return s.Name }
func (s Setting[T]) want() string            { return s.Want() }
func (s Setting[T]) def() any                { return s.Default }
func (s Setting[T]) acceptsInt(v int64) bool { return s.accepts(T(v)) }

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
	for i := range Fields {
		f := &Fields[i]
		if f.Bounds == nil {
			continue
		}
		v := f.value(&s)
		if n := v.Int(); n != 0 && !f.Bounds.acceptsInt(n) {
			return fmt.Errorf("%s %v: the profiler accepts %s", f.Key(), v.Interface(), f.Bounds.want())
		}
	}
	return nil
}

// IsZero reports whether no setting is given.
func (p ProfilerSettings) IsZero() bool {
	for i := range Fields {
		if Fields[i].Given(&p) {
			return false
		}
	}
	return true
}

// Inherit is own with every setting it leaves out taken from base (a list
// given empty is given).
func Inherit(own, base ProfilerSettings) ProfilerSettings {
	for i := range Fields {
		v := Fields[i].value(&own)
		if v.IsZero() {
			v.Set(Fields[i].value(&base))
		}
	}
	return own
}

// Env is the profiler's variables for p under engine e: only the settings
// it reads, and only with the setting each needs.
func (p ProfilerSettings) Env(e Engine) []string {
	var env []string
	for i := range Fields {
		f := &Fields[i]
		if !f.gives(&p, e) {
			continue
		}
		env = append(env, f.Env+"="+f.text(&p, ","))
	}
	return env
}

// gives reports whether p's setting does something under engine e: given,
// read by e, with the setting it needs.
func (f *Field) gives(p *ProfilerSettings, e Engine) bool {
	return f.Given(p) && f.Reads(e) && (f.Needs == "" || FieldNamed(f.Needs).Given(p))
}

// text is the setting's value as the profiler reads it: "10ms", "16", "1",
// lists joined by sep.
func (f *Field) text(p *ProfilerSettings, sep string) string {
	switch v := f.Ptr(p).(type) {
	case *Duration:
		return v.String()
	case *int:
		return strconv.Itoa(*v)
	case *bool:
		return "1"
	case *[]string:
		return strings.Join(*v, sep)
	}
	panic("modes: setting " + f.Key() + " of a type the table cannot write")
}

// describe is p's settings that engine e reads, for Spec.Description:
// "interval 1ms", "no_inline".
func (p ProfilerSettings) describe(e Engine) []string {
	var out []string
	for i := range Fields {
		f := &Fields[i]
		if !f.gives(&p, e) {
			continue
		}
		if _, ok := f.Ptr(&p).(*bool); ok {
			out = append(out, f.Key())
		} else {
			out = append(out, f.Key()+" "+f.text(&p, ","))
		}
	}
	return out
}

// equal reports whether p and o give the same settings (an empty list is
// none, as nil is).
func (p ProfilerSettings) equal(o ProfilerSettings) bool {
	for i := range Fields {
		f := &Fields[i]
		a, b := f.value(&p), f.value(&o)
		if a.Kind() == reflect.Slice {
			if !slices.Equal(a.Interface().([]string), b.Interface().([]string)) {
				return false
			}
		} else if !a.Equal(b) {
			return false
		}
	}
	return true
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
