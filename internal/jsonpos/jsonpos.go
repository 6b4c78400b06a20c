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
