package suite

import (
	"path/filepath"
	"strings"
	"testing"
)

// A scaled workload becomes one workload per size, each with its size in
// its arguments (the instructions: size's too) and its place recorded; a
// pair's against: follows size by size.
func TestScaleExpands(t *testing.T) {
	p := write(t, t.TempDir(), "s.yaml", `name: s
baseline: b.json
workloads:
  - name: sort
    command: [true, --n, "1", --reps, "3"]
    scale: {arg: --n, sizes: [1000, 2000, 4000]}
    instructions: {args: [--n, "1", --reps, "1"]}
    against: sort-base
  - name: sort-base
    command: [true, --n, "1", --reps, "3"]
    scale: {arg: --n, sizes: [1000, 2000, 4000]}
    instructions: {args: [--n, "1", --reps, "1"]}
  - name: other
    command: [true]
`)
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range s.Workloads {
		names = append(names, w.Name)
	}
	if got := strings.Join(names, " "); got != "sort@n=1000 sort@n=2000 sort@n=4000 sort-base@n=1000 sort-base@n=2000 sort-base@n=4000 other" {
		t.Fatalf("workloads %s", got)
	}
	w := s.Workloads[1]
	if got := strings.Join(w.Command[1:], " "); got != "--n 2000 --reps 3" {
		t.Errorf("command %q", got)
	}
	if got := strings.Join(w.Instructions.Args, " "); got != "--n 2000 --reps 1" {
		t.Errorf("instructions args %q", got)
	}
	if w.Scale == nil || w.Scale.Of != "sort" || w.Scale.Size != 2000 || w.Scale.Arg != "--n" {
		t.Errorf("scale %+v", w.Scale)
	}
	if w.Against != "sort-base@n=2000" {
		t.Errorf("against %q", w.Against)
	}
	if s.Workloads[6].Scale != nil {
		t.Errorf("an unscaled workload got a scale")
	}
}

// Issue 53's bad inputs: too few sizes, a size that is no number, an
// argument the workload does not take; each named by file, line and field.
func TestScaleRefused(t *testing.T) {
	const head = "name: s\nbaseline: b.json\nworkloads:\n  - name: a\n    command: [true, --n, \"5\"]\n"
	cases := []struct{ name, yaml, want string }{
		{"two sizes", head + "    scale: {arg: --n, sizes: [10, 20]}\n", `s.yaml:6: workloads[0].scale.sizes: 2 sizes: a growth class needs at least 3`},
		{"not a number", head + "    scale:\n      arg: --n\n      sizes: [10, 2O, 40]\n", `s.yaml:8: workloads[0].scale.sizes[1]: "2O" is not a number`},
		{"negative", head + "    scale: {arg: --n, sizes: [10, -20, 40]}\n", `s.yaml:6: workloads[0].scale.sizes[1]: must be a positive number, got -20`},
		{"twice", head + "    scale: {arg: --n, sizes: [10, 20, 10]}\n", `s.yaml:6: workloads[0].scale.sizes[2]: size 10 is listed twice`},
		{"a list of lists", head + "    scale: {arg: --n, sizes: [10, [20], 40]}\n", `s.yaml:6: workloads[0].scale.sizes[1]: must be a number, got a list`},
		{"arg not taken", head + "    scale:\n      arg: --size\n      sizes: [10, 20, 40]\n", `s.yaml:7: workloads[0](a).scale.arg: the workload does not take --size: its command [--n, 5] must hold it`},
		{"arg without value", "name: s\nbaseline: b.json\nworkloads:\n  - name: a\n    command: [true, --n]\n    scale: {arg: --n, sizes: [1, 2, 3]}\n", `s.yaml:6: workloads[0](a).scale.arg: --n ends the workload's command`},
		{"no arg", head + "    scale: {sizes: [10, 20, 40]}\n", `s.yaml:6: workloads[0].scale.arg: missing`},
		{"checksum", head + "    checksum: \"3\"\n    scale: {arg: --n, sizes: [10, 20, 40]}\n", `s.yaml:7: workloads[0](a).scale: a scaled workload gives no checksum`},
		{"pair scaled unlike", head + "    scale: {arg: --n, sizes: [10, 20, 40]}\n    against: b\n  - name: b\n    command: [true, --n, \"5\"]\n",
			`s.yaml:7: workloads[0](a).against: workload b and a are not scaled alike`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, t.TempDir(), "s.yaml", c.yaml)
			_, err := Load(p)
			if err == nil {
				t.Fatalf("accepted\n%s", c.yaml)
			}
			if got := strings.TrimPrefix(err.Error(), filepath.Dir(p)+"/"); !strings.HasPrefix(got, c.want) {
				t.Errorf("error\n  %s\nwant prefix\n  %s", got, c.want)
			}
		})
	}
}
