package shared

import (
	"io"

	"github.com/olekukonko/tablewriter/tw"
)

// Writer keeps the first write error so a renderer checks once, at the end.
type Writer struct {
	w   io.Writer
	err error
}

// NewWriter wraps w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

func (e *Writer) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// Err is the first error a write (or a table) met.
func (e *Writer) Err() error { return e.err }

// Table writes a Markdown table, keeping its error like a write's.
func (e *Writer) Table(header []string, rows [][]string, align ...tw.Align) {
	if err := WriteMarkdownTable(e, header, rows, align...); err != nil && e.err == nil {
		e.err = err
	}
}
