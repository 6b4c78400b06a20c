// Package valgrindtest holds the vbench command's tests that count
// instructions under valgrind (metric instructions and kernel-instructions):
// each .NET launch is 30-50x slower there, so these tests take minutes of
// CPU. Apart from cmd/vbench/cli's other tests, `go test ./...` runs them as
// a package of their own beside that one instead of after it. It has no code
// of its own.
package valgrindtest
