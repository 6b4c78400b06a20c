// Package reports renders results: everything a user reads after a run,
// in the forms their tools already read. It renders judgements, it does not
// make them: a command judges (internal/verdict) and hands the judged file
// over. Profiles are drawn by reports/profileview; the two share only
// reports/shared.
//
//   - The results table of `vbench run`, `compare`, `merge` and `baseline
//     update` (WriteResults: aligned text, Markdown, CSV, the JSON file,
//     and the benchstat and JUnit formats).
//   - The report of `vbench report RESULTS.json`: the overhead matrix
//     (workloads × modes, overhead multiples) as text, Markdown for pull requests and a self-contained
//     HTML page with charts; Go benchmark format for benchstat; JUnit XML for
//     CI. Every one draws the same model, Matrix, built from one results file
//     or a history of them (oldest first).
//   - The --across table of several runs, and a history's change points.
//
// Formats is the one table of results --format values and what writes each,
// for every command; the CLI maps its flags onto it. A cell's columns are
// computed once, in its CellRow, for every table that lists cells; a run
// counts in a cell's numbers when results.Run.Measured says so. Every
// number goes through internal/numfmt and every Markdown table through
// shared.WriteMarkdownTable, so a figure reads the same wherever it appears.
package reports
