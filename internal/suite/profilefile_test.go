package suite

import (
	"strings"
	"testing"

	"vbench/internal/modes"
)

// A mode names the profile its own profiler writes; vbench reads it after
// each run, so what cannot be read is refused before anything runs.
func TestModeProfile(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "s.yaml", `name: s
modes:
  - none
  - name: eventpipe
    env: {DOTNET_EnableEventPipe: "1", DOTNET_EventPipeOutputPath: "{rundir}/trace.nettrace"}
    profile: {path: "{rundir}/trace.nettrace", format: nettrace}
  - name: pprof-by-hand
    profile: {path: "{rundir}/*/profile.pb.gz", format: pprof}
workloads:
  - name: a
    command: [true]
`)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	ep, _ := s.Spec("eventpipe")
	if ep.Profile == nil || *ep.Profile != (modes.ProfileFile{Path: "{rundir}/trace.nettrace", Format: modes.FormatNettrace}) {
		t.Errorf("eventpipe's profile: %+v", ep.Profile)
	}
	pp, _ := s.Spec("pprof-by-hand")
	if pp.Profile == nil || pp.Profile.Format != modes.FormatPprof {
		t.Errorf("pprof-by-hand's profile: %+v", pp.Profile)
	}
	if ep.Equal(&pp) || !ep.Equal(&ep) {
		t.Errorf("Equal does not tell the profiles apart")
	}

	const head = "name: s\nmodes:\n  - name: x\n"
	const tail = "workloads:\n  - name: a\n    command: [true]\n"
	for _, c := range []struct{ name, yaml, want string }{
		{"unknown format", head + "    profile: {path: \"{rundir}/t.json\", format: chrome}\n" + tail, `s.yaml:4: modes[0].profile.format: unknown profile format "chrome" (known: nettrace, pprof, speedscope, perf-script)`},
		{"no format", head + "    profile: {path: \"{rundir}/t\"}\n" + tail, `s.yaml:4: modes[0].profile.format: missing`},
		{"no path", head + "    profile: {format: pprof}\n" + tail, `s.yaml:4: modes[0].profile.path: missing`},
		{"relative path", head + "    profile: {path: out/t.pb.gz, format: pprof}\n" + tail, `s.yaml:4: modes[0].profile.path: "out/t.pb.gz" is neither in the run's directory ({rundir}/…) nor absolute`},
		{"bad glob", head + "    profile: {path: \"{rundir}/[x\", format: pprof}\n" + tail, `s.yaml:4: modes[0].profile.path: "{rundir}/[x" is not a valid glob pattern`},
		{"not a mapping", head + "    profile: \"{rundir}/t.nettrace\"\n" + tail, `s.yaml:4: modes[0].profile: must be a mapping`},
		{"unknown field", head + "    profile: {path: \"{rundir}/t\", format: pprof, rate: 1}\n" + tail, `s.yaml:4: modes[0].profile.rate: unknown field`},
		{"engine mode", head + "    engine: sampling\n    profile: {path: \"{rundir}/t\", format: pprof}\n" + tail, `s.yaml:5: modes[0](x).profile: an engine mode's profile is vbench's own`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, dir, "s.yaml", c.yaml)
			_, err := Load(p)
			if err == nil {
				t.Fatalf("accepted\n%s", c.yaml)
			}
			if got := strings.TrimPrefix(err.Error(), dir+"/"); !strings.HasPrefix(got, c.want) {
				t.Errorf("error\n  %s\nwant prefix\n  %s", got, c.want)
			}
		})
	}
}
