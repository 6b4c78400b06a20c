// Package reports is vbench's one output layer: everything a user reads
// after a run or a profile, in the forms their tools already read.
//
//   - The results table of `vbench run`, `compare`, `merge` and `baseline
//     update` (WriteResults: aligned text, Markdown, CSV, the JSON file,
//     and the benchstat and JUnit formats).
//   - The report of `vbench report RESULTS.json`: the overhead matrix
//     (workloads × modes, overhead multiples) as text, Markdown for pull requests and a self-contained
//     HTML page with charts; Go benchmark format for benchstat; JUnit XML for
//     CI. Every one draws the same model, Matrix, built from one results file
//     or a history of them (oldest first) and optionally a baseline.
//   - For profiles: the top functions (the table `vbench profile` prints
//     too), the indented call tree and a flame graph SVG.
//   - What `vbench profile` says after the program exits: where the
//     profiles went, their warnings, the processes that wrote none
//     (profilenotes.go), and its JSON summary, ProfileJSON, the schema of
//     --json and --format json (profilejson.go).
//
// Formats is the one table of --format values and what writes each, for
// every command; the CLI maps its flags onto it. A cell's columns are
// computed once, in its CellRow, for every table that lists cells; a run
// counts in a cell's numbers when results.Run.Measured says so. Every
// number goes through internal/numfmt and every Markdown table through
// WriteMarkdownTable, so a figure reads the same wherever it appears.
package reports
