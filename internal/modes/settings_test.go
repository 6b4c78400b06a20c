package modes

import (
	"testing"
	"time"
)

// Validate passes what the profiler accepts and the defaults (zero: not
// given), and names the setting it refuses.
func TestValidate(t *testing.T) {
	ok := []ProfilerSettings{
		{},
		{Interval: Duration(time.Millisecond), TimeSample: 1, MaxStack: 16},
		{Interval: Duration(time.Second), TimeSample: 1024, MaxStack: 1 << 22},
		{TimeSample: 256, Include: []string{"*"}, NoInline: true},
	}
	for _, s := range ok {
		if err := Validate(s); err != nil {
			t.Errorf("Validate(%+v) = %v", s, err)
		}
	}
	bad := map[string]ProfilerSettings{
		"interval 999µs: the profiler accepts 1ms..1s":                          {Interval: Duration(999 * time.Microsecond)},
		"interval 1.001s: the profiler accepts 1ms..1s":                         {Interval: Duration(time.Second + time.Millisecond)},
		"interval -10ms: the profiler accepts 1ms..1s":                          {Interval: Duration(-10 * time.Millisecond)},
		"time_sample 3: the profiler accepts 1 or a power of two up to 1024":    {TimeSample: 3},
		"time_sample 2048: the profiler accepts 1 or a power of two up to 1024": {TimeSample: 2048},
		"time_sample -4: the profiler accepts 1 or a power of two up to 1024":   {TimeSample: -4},
		"max_stack 15: the profiler accepts 16..4194304":                        {MaxStack: 15},
		"max_stack 4194305: the profiler accepts 16..4194304":                   {MaxStack: 1<<22 + 1},
	}
	for want, s := range bad {
		if err := Validate(s); err == nil || err.Error() != want {
			t.Errorf("Validate(%+v) = %v, want %q", s, err, want)
		}
	}
	for _, d := range []Setting[int]{TimeSample, MaxStack} {
		if Validate(ProfilerSettings{TimeSample: TimeSample.Default, MaxStack: MaxStack.Default}) != nil || d.Default < d.Min || d.Default > d.Max {
			t.Errorf("%s: default %d outside %s", d.Name, d.Default, d.Want())
		}
	}
	if Validate(ProfilerSettings{Interval: Duration(Interval.Default)}) != nil {
		t.Errorf("interval: default %v refused", Interval.Default)
	}
}
