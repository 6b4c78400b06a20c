package suite

// yaml.v3 reports syntax errors with a line that is often wrong or missing;
// this file finds the line a user has to fix.

import (
	"bytes"
	"errors"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

var yamlLineRe = regexp.MustCompile(`^(?:yaml: )?(?:line (\d+): )?(.*)$`)

// yamlParserProblems are the problems yaml.v3's parser (not its scanner)
// reports: it gives their line 0-based, and no line at all for line 0.
var yamlParserProblems = map[string]bool{
	"did not find expected ',' or ']'": true, "did not find expected ',' or '}'": true,
	"did not find expected '-' indicator": true, "did not find expected <document start>": true,
	"did not find expected key": true, "did not find expected node content": true,
	"found duplicate %YAML directive": true, "found incompatible YAML document": true,
	"found undefined tag handle": true, "did not find expected <stream-start>": true,
	"found duplicate %TAG directive": true,
}

var unknownAnchorRe = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// yamlErr turns a yaml.v3 error into an Error with a 1-based line. yaml.v3
// numbers scanner errors from 1 and parser errors from 0, leaves out line 0
// (the first line), names the line where the enclosing block starts rather
// than the offending one, and gives no line for bad bytes or unknown anchors.
// So the line is found again: the shortest prefix of the file (in lines)
// that fails with the same problem (or the bad byte, or the alias).
func (p *parser) yamlErr(data []byte, err error) error {
	problem, line := yamlProblem(err)
	if a := unknownAnchorRe.FindStringSubmatch(problem); a != nil {
		if i := bytes.Index(data, []byte("*"+a[1])); i >= 0 {
			line = lineAt(data, i)
		}
	} else if i := badYAMLByte(data); i >= 0 && yamlReaderProblem(problem) {
		line = lineAt(data, i)
	} else {
		// Once a prefix holds the offending line it fails the same way, and
		// so does every longer one: binary-search the shortest.
		ends := yamlLineEnds(data)
		lo := max(line, 1)
		k := lo + sort.Search(len(ends)-lo+1, func(i int) bool {
			var doc yaml.Node
			pp, _ := yamlProblem(yaml.Unmarshal(data[:ends[lo+i-1]], &doc))
			return pp == problem
		})
		if k <= len(ends) {
			line = k
		}
	}
	// An unterminated construct ends at the end of the stream: past the last
	// newline, a line no editor shows. Name the file's last line instead.
	if last := YAMLLines(data); line > last {
		line = last
	}
	return &Error{File: p.file, Line: max(line, 1), Msg: "malformed YAML: " + problem}
}

// yamlProblem splits a yaml.v3 error into its problem and the 1-based line
// it gives (0 when it gives none).
func yamlProblem(err error) (string, int) {
	if err == nil {
		return "", 0
	}
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	m := yamlLineRe.FindStringSubmatch(msg)
	line := 0
	if m[1] != "" {
		line, _ = strconv.Atoi(m[1])
		if yamlParserProblems[m[2]] {
			line++
		}
	}
	return m[2], line
}

// yamlReaderProblem reports whether yaml.v3's reader (bad bytes, not bad
// syntax) raised problem.
func yamlReaderProblem(problem string) bool {
	return strings.Contains(problem, "UTF-") || strings.HasPrefix(problem, "input error") ||
		problem == "control characters are not allowed" || problem == "invalid Unicode character"
}

// badYAMLByte is the offset of the first byte YAML refuses to read (invalid
// UTF-8, or a character outside YAML's printable set), or -1.
func badYAMLByte(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		printable := r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0x7e) || r == 0x85 ||
			(r >= 0xa0 && r <= 0xd7ff) || (r >= 0xe000 && r <= 0xfffd && r != 0xfeff) || (r >= 0x10000 && r <= 0x10ffff)
		if r == 0xfeff && i == 0 {
			printable = true // a byte-order mark
		}
		if (r == utf8.RuneError && n == 1) || !printable {
			return i
		}
		i += n
	}
	return -1
}

// yamlLineEnds returns the offset just past each line of data, counting
// line breaks as YAML does (LF, CRLF, CR, NEL, LS, PS).
func yamlLineEnds(data []byte) []int {
	var ends []int
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == '\r' && i+1 < len(data) && data[i+1] == '\n':
			n = 2
			fallthrough
		case r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029:
			ends = append(ends, i+n)
		}
		i += n
	}
	if len(ends) == 0 || ends[len(ends)-1] < len(data) {
		ends = append(ends, len(data))
	}
	return ends
}

// YAMLLines is how many lines data has for YAML (a last line break does not
// start another line); suite errors name lines in 1..YAMLLines.
func YAMLLines(data []byte) int { return len(yamlLineEnds(data)) }

// lineAt is the 1-based YAML line holding byte off.
func lineAt(data []byte, off int) int {
	ends := yamlLineEnds(data)
	return sort.Search(len(ends), func(i int) bool { return ends[i] > off }) + 1
}
