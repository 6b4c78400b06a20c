// Package profileview draws profiles: what `vbench show` (top functions,
// call trees, flame graphs, source views), `vbench profile` and `vbench
// diff` print. It stands apart from package reports, which renders results;
// the two share only reports/shared.
//
//   - The top functions and the indented call tree (profiletext.go,
//     proctext.go for a process tree), a flame graph SVG (flame.go), the
//     source view of a profile with lines (source.go), an allocation
//     profile's types, paths and GCs (allocreport.go).
//   - Diffs of two profiles or two allocation profiles (difftext.go,
//     diffflame.go, allocdiff.go).
//   - What `vbench profile` says after the program exits: where the
//     profiles went, their warnings, the processes that wrote none
//     (profilenotes.go), and its JSON summary, ProfileJSON, the schema of
//     --json and --format json (profilejson.go).
//
// Formats is the table of a profile's views; ReadInput reads a file given on
// the command line and tells a profile from a results file.
package profileview
