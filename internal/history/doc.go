// Package history is the store of a suite's history: every run of a branch
// appended, one JSON object a line (Entry), with its commit, date, machine
// and every cell's runs. Appending is atomic and locked like a baseline's
// write (Append); Read checks every line. series.go turns the entries into
// one series per cell and kind (the cell's time, its overhead multiple);
// changes.go finds where each shifts for good (stats.ChangePoints) and
// which change points a newly appended run brought; base.go builds, from
// each cell's last stable segment, the reference a new run is judged
// against (internal/verdict, as a stored baseline would be).
package history
