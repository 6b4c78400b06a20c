package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"vbench/internal/modes"
)

// `vbench profile` has a flag for every row of the settings table, with its
// help; a flag left alone gives nothing (the profiler's default, and an
// engine's own, time_sample's, applies), and a typed 0 that the range holds
// is kept as a value.
func TestProfileFlagsComeFromTheSettingsTable(t *testing.T) {
	cmd := newProfileCmd()
	for i := range modes.Fields {
		fd := &modes.Fields[i]
		if fl := cmd.Flags().Lookup(fd.Flag()); fl == nil || fl.Usage != fd.Help {
			t.Errorf("%s: no flag --%s with the table's help", fd.Key(), fd.Flag())
		}
	}
	for _, c := range []struct {
		args []string
		want modes.ProfilerSettings
		err  string
	}{
		{[]string{"--time-sample", "4"}, modes.ProfilerSettings{TimeSample: 4}, ""},
		{[]string{"--timeline", "--timeline-min", "0"}, modes.ProfilerSettings{Timeline: true, TimelineMin: modes.Duration(time.Nanosecond)}, ""},
		{[]string{"--timeline-min", "1ms"}, modes.ProfilerSettings{}, "--timeline-min does nothing without --timeline"},
		{[]string{"--interval", "1ms"}, modes.ProfilerSettings{}, "--interval does nothing under --mode tracing: only sampling, suspend-sampling read it"},
		{[]string{"--max-stack", "8"}, modes.ProfilerSettings{}, "--max-stack 8: want 16..4194304 frames"},
	} {
		var ps modes.ProfilerSettings
		fl := pflag.NewFlagSet("profile", pflag.ContinueOnError)
		settingFlags(fl, &ps)
		if err := fl.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		err := checkSettingFlags(fl, &ps, modes.EngineTracing, "--mode")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v, want %q", c.args, err, c.err)
			}
			continue
		}
		if err != nil || !(&modes.Spec{ProfilerSettings: ps}).Equal(&modes.Spec{ProfilerSettings: c.want}) {
			t.Errorf("%q: %+v (%v), want %+v", c.args, ps, err, c.want)
		}
	}
}
