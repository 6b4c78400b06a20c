// Command fuzzseed turns real files into seed corpus entries of a Go fuzz
// target: testdata/fuzz/FuzzX/<name> in the "go test fuzz v1" format, one
// []byte argument each. scripts/fuzz-seeds.sh feeds it the benchmarks'
// suites, results files written by `vbench run` and profiles written by the
// profiler, so the fuzzers start from what vbench really reads.
//
//	fuzzseed [-txtar EXT] [-prefix P] DIR FILE...
//
// With -txtar, each FILE is a txtar archive and its members ending in EXT
// become seeds (the CLI scripts' suites and results files).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"

	"vbench/internal/corpus"
)

func main() {
	fromTxtar := flag.String("txtar", "", "read FILEs as txtar archives and take the members ending in this extension")
	prefix := flag.String("prefix", "", "prefix of the seed names")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: fuzzseed [-txtar EXT] [-prefix P] DIR FILE...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 2 {
		flag.Usage()
		os.Exit(2)
	}
	dir := flag.Arg(0)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fatal(err)
	}
	for _, file := range flag.Args()[1:] {
		if *fromTxtar == "" {
			b, err := os.ReadFile(file)
			if err != nil {
				fatal(err)
			}
			write(dir, *prefix+filepath.Base(file), b)
			continue
		}
		a, err := txtar.ParseFile(file)
		if err != nil {
			fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(file), ".txtar")
		for _, f := range a.Files {
			if strings.HasSuffix(f.Name, *fromTxtar) {
				write(dir, *prefix+base+"-"+f.Name, f.Data)
			}
		}
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// write stores data as one corpus entry.
func write(dir, name string, data []byte) {
	name = unsafeName.ReplaceAllString(name, "_")
	if err := os.WriteFile(filepath.Join(dir, name), corpus.Encode(data), 0o644); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "fuzzseed:", err)
	os.Exit(1)
}
