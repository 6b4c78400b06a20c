package suite

// A workload's scale: the argument that sets the size of its work and the
// sizes to run it at. Each size becomes a workload of its own (a cell per
// mode, interleaved with the others as any cell is), named
// "<name>@<arg>=<size>" and marked with its place (results.Scale), so that
// the growth of its cost can be fitted (internal/verdict).

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"vbench/internal/results"
)

// MinSizes is the fewest sizes a scale takes: a growth class has two
// coefficients, so two sizes fit every class exactly.
const MinSizes = 3

// scaleSpec is a workload's scale: field as read, before expansion.
type scaleSpec struct {
	Arg   string
	Sizes []string // as written: the argument's values
	Of    []float64
	node  *yaml.Node
	field string
}

// scale reads scale: {arg: --n, sizes: [1000, 2000, 4000]}.
func (p *parser) scale(n *yaml.Node, field string) *scaleSpec {
	sc := &scaleSpec{node: n, field: field}
	var argNode, sizesNode *yaml.Node
	p.fields(n, field, []string{"arg", "sizes"}, func(key string, k, v *yaml.Node) {
		f := join(field, key)
		switch key {
		case "arg":
			argNode = v
			sc.Arg = p.str(v, f)
			if p.err == nil && sc.Arg == "" {
				p.fail(v, f, "must not be empty: the argument that sets the size, e.g. --n")
			}
		case "sizes":
			sizesNode = v
			if v.Kind != yaml.SequenceNode {
				p.fail(v, f, "must be a list of sizes, e.g. [1000, 2000, 4000, 8000], got %s", kindName(v))
				return
			}
			for i, e := range v.Content {
				ef := fmt.Sprintf("%s[%d]", f, i)
				x, err := strconv.ParseFloat(e.Value, 64)
				switch {
				case e.Kind != yaml.ScalarNode || e.Tag == "!!null":
					p.fail(e, ef, "must be a number, got %s", kindName(e))
				case err != nil:
					p.fail(e, ef, "%q is not a number: a size is the value its argument takes, e.g. 1000", e.Value)
				case !(x > 0) || x > 1e15:
					p.fail(e, ef, "must be a positive number, got %s", e.Value)
				case slices.Contains(sc.Of, x):
					p.fail(e, ef, "size %s is listed twice", e.Value)
				}
				if p.err != nil {
					return
				}
				sc.Sizes, sc.Of = append(sc.Sizes, e.Value), append(sc.Of, x)
			}
		}
	})
	switch {
	case p.err != nil:
	case argNode == nil:
		p.fail(n, field+".arg", "missing: the argument that sets the size, e.g. --n")
	case sizesNode == nil:
		p.fail(n, field+".sizes", "missing: the sizes to run at, at least %d", MinSizes)
	case len(sc.Sizes) < MinSizes:
		p.fail(sizesNode, field+".sizes", "%d sizes: a growth class needs at least %d (with two, every class fits exactly)", len(sc.Sizes), MinSizes)
	}
	return sc
}

// scaledArgs are where a scaled workload's size goes: the argument lists that
// hold sc.Arg, each followed by the value a size replaces.
func scaledArgs(w *Workload) [][]string {
	lists := [][]string{w.Args}
	if w.Project == "" && len(w.Command) > 0 {
		lists[0] = w.Command[1:]
	}
	if w.Instructions != nil {
		lists = append(lists, w.Instructions.Args)
	}
	return lists
}

// checkScale refuses a scale the workload cannot take: an argument its
// args lack (or give no value), a service, a checksum (each size has its
// own).
func (p *parser) checkScale(field string, w *Workload, sc *scaleSpec) {
	if sc == nil || p.err != nil {
		return
	}
	f := field + ".scale.arg"
	switch {
	case w.Server != nil:
		p.fail(sc.node, field+".scale", "a service cannot be scaled: its load, not an argument, sets its work")
		return
	case w.Checksum != "", w.Instructions != nil && w.Instructions.Checksum != "":
		p.fail(sc.node, field+".scale", "a scaled workload gives no checksum: each size computes its own")
		return
	}
	for i, args := range scaledArgs(w) {
		where := "args"
		if w.Project == "" {
			where = "command"
		}
		if i == 1 {
			where = "instructions.args"
		}
		j := slices.Index(args, sc.Arg)
		switch {
		case j < 0:
			p.fail(valueOf(sc.node, "arg"), f, "the workload does not take %s: its %s [%s] must hold it, followed by the value each size replaces", sc.Arg, where, strings.Join(args, ", "))
		case j+1 >= len(args):
			p.fail(valueOf(sc.node, "arg"), f, "%s ends the workload's %s: it must be followed by the value each size replaces", sc.Arg, where)
		}
		if p.err != nil {
			return
		}
	}
}

// sameScale reports whether a pair's two scales agree (or both are nil).
func sameScale(a, b *scaleSpec) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Arg == b.Arg && slices.Equal(a.Sizes, b.Sizes)
}

// ScaledName is the name of workload name's cell at size: "sort@n=1000".
// Only the argument's letters, digits, '-' and '_' are kept: the name
// becomes a directory name.
func ScaledName(name, arg string, size float64) string {
	arg = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, arg)
	return name + "@" + strings.TrimLeft(arg, "-") + "=" + strconv.FormatFloat(size, 'g', -1, 64)
}

// expandScales replaces each scaled workload by one workload per size.
func (p *parser) expandScales(s *Suite) {
	var out []Workload
	names := map[string]bool{}
	for _, w := range s.Workloads {
		names[w.Name] = true
	}
	for _, w := range s.Workloads {
		sc := p.scales[w.Name]
		if sc == nil {
			out = append(out, w)
			continue
		}
		for i, size := range sc.Sizes {
			c := w
			c.Name = ScaledName(w.Name, sc.Arg, sc.Of[i])
			if names[c.Name] {
				p.fail(sc.node, sc.field, "workload %s's size %s is named %s, which another workload is named", w.Name, size, c.Name)
				return
			}
			c.Scale = &results.Scale{Of: w.Name, Arg: sc.Arg, Size: sc.Of[i]}
			if w.Against != "" {
				c.Against = ScaledName(w.Against, sc.Arg, sc.Of[i])
			}
			c.Args = withSize(w.Args, sc.Arg, size)
			if w.Project == "" && len(w.Command) > 0 {
				c.Command = append([]string{w.Command[0]}, withSize(w.Command[1:], sc.Arg, size)...)
			}
			if w.Instructions != nil {
				in := *w.Instructions
				in.Args = withSize(in.Args, sc.Arg, size)
				c.Instructions = &in
			}
			out = append(out, c)
		}
	}
	s.Workloads = out
}

// withSize is args with the value after arg replaced by size.
func withSize(args []string, arg, size string) []string {
	out := slices.Clone(args)
	if j := slices.Index(out, arg); j >= 0 && j+1 < len(out) {
		out[j+1] = size
	}
	return out
}
