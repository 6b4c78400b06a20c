// Package reports renders what a user reads after a run, in the forms their
// tools already read: the overhead matrix (thesis table 7.1) as text, Markdown
// for pull requests and a self-contained HTML page with charts; Go benchmark
// format for benchstat; JUnit XML for CI; and, for profiles, the top
// functions, the indented call tree and a flame graph SVG.
//
// Every results renderer draws the same model, Matrix, built from one results
// file or a history of them (oldest first) and optionally a baseline.
package reports
