// Package jsonpos says where in a file encoding/json gave up: errors count
// bytes, people count lines and columns. Error rewrites a decoding error as
// "file:line:col: what", naming the field of a wrongly typed value and
// calling a file that ends early truncated.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Error rewrites err, returned by json.Unmarshal or a json.Decoder reading
// data, as "name:line:col: what": for a syntax error the position is the
// offending character, for a wrongly typed value its last character, for a
// file that ends early its last character. Errors that are not about the
// JSON are returned as "name: err".
func Error(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn) && strings.HasPrefix(syn.Error(), "unexpected end of JSON input"),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Errorf("%s: truncated JSON (file ends early)", At(name, data, int64(len(bytes.TrimRight(data, " \t\r\n")))))
	case errors.As(err, &syn):
		return fmt.Errorf("%s: malformed JSON: %w", At(name, data, syn.Offset), err)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "(top level)"
		}
		return fmt.Errorf("%s: field %s: %s cannot hold a JSON %s", At(name, data, typ.Offset), field, typ.Type, typ.Value)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// At is "name:line:col" of the byte at offset off-1, the last byte a decoder
// read before it failed.
func At(name string, data []byte, off int64) string {
	line, col := LineCol(data, off)
	return fmt.Sprintf("%s:%d:%d", name, line, col)
}

// LineCol converts the count of bytes read into the 1-based line and column
// of the last byte read.
func LineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	if col == 0 {
		col = 1
	}
	return line, col
}

// Find is the offset just past the key (or array element's start) that
// path names in data: object keys as strings (matched as encoding/json
// matches them, case-insensitively), array indices as ints. At of it is the
// line of the field a check of the decoded value refused. Not ok when data
// has no such field.
func Find(data []byte, path ...any) (int64, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	off := int64(0)
	for _, step := range path {
		tok, err := dec.Token()
		if err != nil {
			return 0, false
		}
		switch s := step.(type) {
		case string:
			if tok != json.Delim('{') {
				return 0, false
			}
			for {
				if !dec.More() {
					return 0, false
				}
				k, err := dec.Token()
				if err != nil {
					return 0, false
				}
				if key, _ := k.(string); strings.EqualFold(key, s) {
					off = dec.InputOffset()
					break
				}
				if skip(dec) != nil {
					return 0, false
				}
			}
		case int:
			if tok != json.Delim('[') {
				return 0, false
			}
			for i := 0; i < s; i++ {
				if !dec.More() || skip(dec) != nil {
					return 0, false
				}
			}
			if !dec.More() {
				return 0, false
			}
			// The element starts after the separator and blanks.
			off = dec.InputOffset()
			rest := data[off:]
			off += int64(len(rest) - len(bytes.TrimLeft(rest, ", \t\r\n")) + 1)
		default:
			return 0, false
		}
	}
	return off, true
}

func skip(dec *json.Decoder) error {
	var v json.RawMessage
	return dec.Decode(&v)
}
