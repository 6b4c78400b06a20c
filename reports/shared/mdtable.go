package shared

import (
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Column alignments of a Markdown table (its separator row: ":--", "--:", ":-:").
const (
	Left   = tw.AlignLeft
	Right  = tw.AlignRight
	Center = tw.AlignCenter
)

// WriteMarkdownTable writes a GitHub-flavoured Markdown table, the one writer
// every Markdown table of vbench goes through (the run table, the report's
// tables, scripts/studies/statquality's). align has one entry per column; missing ones
// are left-aligned. Cells are written as given: escape text that could hold
// "|" or a newline (mdEscape, mdCode) before.
func WriteMarkdownTable(w io.Writer, header []string, rows [][]string, align ...tw.Align) error {
	cols := make([]tw.Align, len(header))
	for i := range cols {
		cols[i] = Left
		if i < len(align) {
			cols[i] = align[i]
		}
	}
	t := tablewriter.NewTable(w, tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: cols}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: cols}))
	t.Header(header)
	if err := t.Bulk(rows); err != nil {
		return err
	}
	return t.Render()
}
