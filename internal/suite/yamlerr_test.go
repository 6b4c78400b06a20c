package suite

import (
	"strconv"
	"strings"
	"testing"
)

// Malformed YAML is reported at the line that holds the problem, however
// yaml.v3 numbers it (scanner errors from 1, parser errors from 0, the first
// line and bad bytes without a number at all). Found by FuzzParse: errors on
// the first line, control characters and invalid UTF-8 came without a line,
// and parser errors one line too early.
func TestMalformedYAMLLines(t *testing.T) {
	cases := []struct {
		in   string
		want string
	}{
		{"\"", "s.yaml:1: malformed YAML: found unexpected end of stream"},
		{"name: s\nruns: 3\n\"x", "s.yaml:3: malformed YAML: found unexpected end of stream"},
		{"name: s: t\n", "s.yaml:1: malformed YAML: mapping values are not allowed in this context"},
		{"name: s\nruns: \x01\n", "s.yaml:2: malformed YAML: control characters are not allowed"},
		{"name: s\n\nruns: \xff\n", "s.yaml:3: malformed YAML: invalid leading UTF-8 octet"},
		{"name: s\nbaseline: b.json\nwarmup: *nope\n", "s.yaml:3: malformed YAML: unknown anchor 'nope' referenced"},
		{"name: s\n- b\n", "s.yaml:2: malformed YAML: did not find expected key"},
		{"name: s\nruns: 2\nmodes: [none\n\nwarmup: 1\n", "s.yaml:3: malformed YAML: did not find expected ',' or ']'"},
		{"name: s\nworkloads:\n  - name: a\n    command: [true]\n   runs: 3\n", "s.yaml:5: malformed YAML: did not find expected '-' indicator"},
		{"name: s\nworkloads: [\n", "s.yaml:2: malformed YAML: did not find expected node content"},
		{"name: s\n\tworkloads: []\n", "s.yaml:2: malformed YAML: found a tab character that violates indentation"},
	}
	for _, c := range cases {
		_, err := Parse("s.yaml", []byte(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Parse(%q):\n got %v\nwant %s", c.in, err, c.want)
		}
	}
}

// Deep inside a long block the offending line is still found (yaml.v3 names
// the block's first line, 296 lines earlier).
func TestMalformedYAMLLineInLongBlock(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: s\nworkloads:\n")
	for i := 0; i < 99; i++ {
		b.WriteString("  - name: w" + strconv.Itoa(i) + "\n    command: [true]\n    runs: 2\n")
	}
	b.WriteString("   runs: 3\n") // line 300: indented under nothing
	_, err := Parse("s.yaml", []byte(b.String()))
	if err == nil || !strings.HasPrefix(err.Error(), "s.yaml:300: malformed YAML: ") {
		t.Errorf("Parse = %v, want line 300", err)
	}
}

// When yaml.v3 reports a syntax error, a bad byte further on does not move
// the line (yaml.v3 reads ahead in chunks: with 5000 filler lines it meets the
// syntax error first, with 200 the control character).
func TestMalformedYAMLSyntaxBeforeBadByte(t *testing.T) {
	in := "name: s\n- x\n" + strings.Repeat("# filler\n", 5000) + "runs: \x01\n"
	_, err := Parse("s.yaml", []byte(in))
	if err == nil || !strings.HasPrefix(err.Error(), "s.yaml:2: malformed YAML: did not find expected key") {
		t.Errorf("Parse = %v, want line 2", err)
	}
}
