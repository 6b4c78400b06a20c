// Package corpus reads and writes seed corpus entries of Go fuzz targets that
// take one []byte: testdata/fuzz/FuzzX/<name> files in the "go test fuzz v1"
// format. internal/fuzzseed writes them from real files; tests replay a
// corpus through paths too slow for the fuzz loop (atomic writes, fsync).
package corpus

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

const header = "go test fuzz v1"

// Encode is the corpus file holding data, as `go test -fuzz` writes it.
func Encode(data []byte) []byte {
	return []byte(fmt.Sprintf("%s\n[]byte(%q)\n", header, data))
}

// Decode returns the []byte a corpus file holds.
func Decode(file []byte) ([]byte, error) {
	lines := strings.SplitN(string(file), "\n", 3)
	if len(lines) < 2 || lines[0] != header || !strings.HasPrefix(lines[1], "[]byte(") || !strings.HasSuffix(lines[1], ")") {
		return nil, fmt.Errorf("not a one-argument %q corpus file", header)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		return nil, fmt.Errorf("corpus value: %w", err)
	}
	return []byte(s), nil
}

// ReadFile decodes the corpus file at path.
func ReadFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	data, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}
