package reports

import "vbench/reports/shared"

// The one Markdown table writer lives in reports/shared, which the profile
// views share; these names are the results side's (and the study tools').
var WriteMarkdownTable = shared.WriteMarkdownTable

// Column alignments of a Markdown table.
const (
	Left   = shared.Left
	Right  = shared.Right
	Center = shared.Center
)
