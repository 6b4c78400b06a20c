package suite

import (
	"strings"
	"testing"
)

// A workload judged against another: the base build of the same program.
func TestWorkloadAgainst(t *testing.T) {
	p := write(t, t.TempDir(), "s.yaml", `name: s
baseline: b.json
modes: [none, sampling]
workloads:
  - name: app
    command: [true, head]
    against: app-base
  - name: app-base
    command: [true, base]
  - name: other
    command: [true]
`)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Workloads[0].Against != "app-base" || s.Workloads[1].Against != "" || s.Workloads[2].Against != "" {
		t.Errorf("against: %q %q %q", s.Workloads[0].Against, s.Workloads[1].Against, s.Workloads[2].Against)
	}
}

// Each against: the harness cannot judge is refused with file, line and
// field.
func TestWorkloadAgainstRefused(t *testing.T) {
	dir := t.TempDir()
	const head = "name: s\nbaseline: b.json\n"
	pair := func(extraA, extraB string) string {
		return "workloads:\n  - name: a\n    command: [true]\n    against: b\n" + extraA + "  - name: b\n    command: [true]\n" + extraB
	}
	cases := []refusal{
		{"unknown", head + "workloads:\n  - name: a\n    command: [true]\n    against: base\n", `s.yaml:6: workloads[0](a).against: unknown workload "base": a workload is judged against another workload of the suite (its workloads: a)`},
		{"itself", head + "workloads:\n  - name: a\n    command: [true]\n    against: a\n", `s.yaml:6: workloads[0](a).against: a workload cannot be judged against itself`},
		{"chain", head + pair("", "    against: c\n  - name: c\n    command: [true]\n"), `s.yaml:6: workloads[0](a).against: workload b is itself judged against c: a pair is two workloads`},
		{"cycle", head + pair("", "    against: a\n"), `s.yaml:6: workloads[0](a).against: workload b is itself judged against a`},
		{"metric", head + pair("    metric: wall\n", ""), `s.yaml:6: workloads[0](a).against: workload b is measured by elapsed and a by wall`},
		{"modes", head + "modes: [none, sampling]\n" + pair("", "    modes: [none]\n"), `s.yaml:7: workloads[0](a).against: workload b does not run under mode sampling, which a does`},
		{"with a mode's against", head + "modes:\n  - tracing\n  - {name: t2, engine: tracing, against: tracing}\n" + pair("", ""), `s.yaml:9: workloads[0](a).against: mode t2 of the suite is judged against mode tracing: a suite judges modes against each other or workloads, not both`},
		{"bad name", head + "workloads:\n  - name: a\n    command: [true]\n    against: [b]\n", `s.yaml:6: workloads[0].against: must be a string, got a list`},
	}
	refusedWithPrefix(t, dir, cases)
}

// refusal is a suite a test expects refused, and the error's start (the
// suite file's directory cut from it).
type refusal struct{ name, yaml, want string }

// refusedWithPrefix loads each case's suite from dir and checks it is
// refused with the error it names.
func refusedWithPrefix(t *testing.T, dir string, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(write(t, dir, "s.yaml", c.yaml))
			if err == nil {
				t.Fatalf("accepted\n%s", c.yaml)
			}
			if got := strings.TrimPrefix(err.Error(), dir+"/"); !strings.HasPrefix(got, c.want) {
				t.Errorf("error\n  %s\nwant prefix\n  %s", got, c.want)
			}
		})
	}
}
