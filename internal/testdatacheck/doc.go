// Package testdatacheck holds the test that keeps every program under a
// testdata folder building. `go build ./...` and `go vet ./...` skip testdata
// folders, so a generator there (reports/testdata/genfixtures) could rot
// unseen while the docs still point to it; C# projects there are built only
// by the tests that happen to use them. It has no code of its own.
package testdatacheck
