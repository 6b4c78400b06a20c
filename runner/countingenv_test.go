package runner

import (
	"slices"
	"testing"
)

// A counted run's environment gets what holds a count still only where the
// user's leaves it unset, under either of the runtime's names; a GODEBUG of
// the user's keeps its settings and gains the preemption one.
func TestCountingEnv(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
	}{
		{nil, []string{"DOTNET_TieredCompilation=0", "DOTNET_TC_CallCountingDelayMs=0", "GODEBUG=asyncpreemptoff=1"}},
		{[]string{"COMPlus_TieredCompilation=1"}, []string{"COMPlus_TieredCompilation=1", "DOTNET_TC_CallCountingDelayMs=0", "GODEBUG=asyncpreemptoff=1"}},
		{[]string{"DOTNET_TieredCompilation=1", "GODEBUG=gctrace=1"}, []string{"DOTNET_TieredCompilation=1", "GODEBUG=gctrace=1,asyncpreemptoff=1", "DOTNET_TC_CallCountingDelayMs=0"}},
		{[]string{"GODEBUG=asyncpreemptoff=0"}, []string{"GODEBUG=asyncpreemptoff=0", "DOTNET_TieredCompilation=0", "DOTNET_TC_CallCountingDelayMs=0"}},
	} {
		in := slices.Clone(tc.in)
		if got := countingEnv(in); !sameSet(got, tc.want) {
			t.Errorf("countingEnv(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if !slices.Equal(in, tc.in) {
			t.Errorf("countingEnv changed its argument: %q", in)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
