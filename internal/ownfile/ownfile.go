// Package ownfile keeps vbench's writers to their own files: a writer
// replaces what is at its path only when that is missing, empty, or a file
// of the kind it writes. A results file written over the suite, a baseline
// over a notes file, were lost without a word.
package ownfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
)

// Kind is what a writer writes: its name in messages ("a vbench results
// file") and how to recognise one from its bytes.
type Kind struct {
	Name string
	Is   func(data []byte) bool
}

// Check refuses path (named by flag, e.g. "--json") when a file is there
// that is not of kind k: replacing it would lose what the user had. A
// missing or empty file passes, and so does a path that is no file at all
// (a directory, a path through a file): the writer's own check of its
// directory names what is wrong there.
func Check(flag, path string, k Kind) error {
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() || fi.Size() == 0 {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s %s: cannot read the file there to check that vbench may replace it: %v", flag, path, errors.Unwrap(err))
	}
	if len(bytes.TrimSpace(data)) == 0 || k.Is(data) {
		return nil
	}
	return fmt.Errorf("%s %s: the file there is not %s, and vbench replaces only its own kind of file: remove it, or give another path", flag, path, k.Name)
}

// Head is the start of data that signatures look at.
func Head(data []byte) []byte {
	return data[:min(len(data), 4096)]
}
