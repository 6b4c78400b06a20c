// Package render holds what both output rooms write with: results
// (package reports) and profiles (reports/profileview) — a writer that
// keeps its first error and the one Markdown table writer. Numbers go
// through internal/numfmt and a program's text through internal/safetext,
// which both use too.
package shared
