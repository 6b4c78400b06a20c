package suite

// The typed readers: each takes a node and the field path naming it, and
// records the first error (file, line, field) on the parser.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"vbench/internal/modes"
)

func (p *parser) fail(n *yaml.Node, field, format string, args ...any) {
	if p.err != nil {
		return
	}
	line := 0
	if n != nil {
		line = n.Line
	}
	p.err = &Error{File: p.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// fields iterates a mapping node, rejecting keys not in known.
func (p *parser) fields(n *yaml.Node, field string, known []string, fn func(key string, k, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		p.fail(n, field, "must be a mapping (key: value), got %s", kindName(n))
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if line, dup := seen[k.Value]; dup {
			p.fail(k, join(field, k.Value), "defined twice (first at line %d)", line)
			return
		}
		seen[k.Value] = k.Line
		ok := false
		for _, x := range known {
			if k.Value == x {
				ok = true
			}
		}
		if !ok {
			// A typo is found before the entry's name is read: say which
			// entry by its name, as later errors do ("modes[1](fast).intervall").
			p.fail(k, join(namedField(n, field), k.Value), "unknown field (known: %s)", strings.Join(known, ", "))
			return
		}
		fn(k.Value, k, v)
		if p.err != nil {
			return
		}
	}
}

// namedField is field with the name the mapping n gives itself, if any:
// "workloads[0]" becomes "workloads[0](fib)". A list entry's field ends in ].
func namedField(n *yaml.Node, field string) string {
	if !strings.HasSuffix(field, "]") {
		return field
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, v := n.Content[i], n.Content[i+1]; k.Value == "name" && v.Kind == yaml.ScalarNode && v.Value != "" {
			return fmt.Sprintf("%s(%s)", field, v.Value)
		}
	}
	return field
}

func join(parent, child string) string {
	if parent == "" {
		return child
	}
	return parent + "." + child
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return fmt.Sprintf("%q", n.Value)
}

func (p *parser) str(n *yaml.Node, field string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.fail(n, field, "must be a string, got %s", kindName(n))
		return ""
	}
	return n.Value
}

// name reads a suite or workload name, which becomes a file name.
func (p *parser) name(n *yaml.Node, field string) string {
	s := p.str(n, field)
	if p.err == nil && !ValidName(s) {
		p.fail(n, field, "invalid name %q: use %s", s, NameRule)
	}
	return s
}

func (p *parser) integer(n *yaml.Node, field string, min int) int {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		p.fail(n, field, "must be an integer, got %s", kindName(n))
		return 0
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil {
		p.fail(n, field, "must be an integer, got %q", n.Value)
		return 0
	}
	if v < min {
		p.fail(n, field, "must be >= %d, got %d", min, v)
	}
	return v
}

// count is integer for a number of launches per cell: at most RunsLimit.
func (p *parser) count(n *yaml.Node, field string, min int) int {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		if _, err := strconv.Atoi(n.Value); errors.Is(err, strconv.ErrRange) {
			p.fail(n, field, "must be at most %d (the runs vbench launches per cell), got %s", RunsLimit, n.Value)
			return 0
		}
	}
	v := p.integer(n, field, min)
	if v > RunsLimit {
		p.fail(n, field, "must be at most %d (the runs vbench launches per cell), got %d", RunsLimit, v)
	}
	return v
}

func (p *parser) duration(n *yaml.Node, field string) time.Duration {
	s := p.str(n, field)
	if p.err != nil {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		p.fail(n, field, "must be a duration like 30s, 2m or 10ms, got %q", s)
		return 0
	}
	if d <= 0 {
		p.fail(n, field, "must be > 0, got %s", s)
	}
	return d
}

func (p *parser) strList(n *yaml.Node, field string) []string {
	if n.Kind != yaml.SequenceNode {
		p.fail(n, field, "must be a list, got %s", kindName(n))
		return nil
	}
	out := []string{}
	for i, e := range n.Content {
		out = append(out, p.str(e, fmt.Sprintf("%s[%d]", field, i)))
	}
	return out
}

// modeNames reads a workload's modes: names, each once (whether the suite
// has them is checked once the workload is read).
func (p *parser) modeNames(n *yaml.Node, field string) []modes.Mode {
	// YAML reads a bare null as "no value"; in a mode list it is the null mode.
	if n.Kind == yaml.SequenceNode {
		for _, e := range n.Content {
			if e.Kind == yaml.ScalarNode && e.Tag == "!!null" && e.Value == "null" {
				e.Tag = "!!str"
			}
		}
	}
	names := p.strList(n, field)
	if p.err != nil {
		return nil
	}
	if len(names) == 0 {
		p.fail(n, field, "must list at least one of the suite's modes")
		return nil
	}
	ms := make([]modes.Mode, len(names))
	seen := map[modes.Mode]bool{}
	for i, name := range names {
		m := modes.Mode(name)
		ms[i] = m
		if seen[m] {
			p.fail(n.Content[i], fmt.Sprintf("%s[%d]", field, i), "mode %q listed twice", m)
			return nil
		}
		seen[m] = true
	}
	return ms
}

// boolean reads true or false.
func (p *parser) boolean(n *yaml.Node, field string) bool {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		p.fail(n, field, "must be true or false, got %s", kindName(n))
		return false
	}
	return n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
}

// fraction reads "5%" or 0.05.
func (p *parser) fraction(n *yaml.Node, field string) float64 {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.fail(n, field, "must be a number or a percentage, got %s", kindName(n))
		return 0
	}
	s := strings.TrimSpace(n.Value)
	var v float64
	var err error
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		v, err = strconv.ParseFloat(strings.TrimSpace(pct), 64)
		v /= 100
	} else {
		v, err = strconv.ParseFloat(s, 64)
	}
	if err != nil {
		p.fail(n, field, "must be a number like 0.05 or a percentage like 5%%, got %q", s)
		return 0
	}
	return v
}
