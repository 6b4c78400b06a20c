// Command vbench measures the overhead of .NET profilers and guards it against
// regressions. See README.md, or `vbench --help`.
package main

import (
	"os"

	"vbench/cmd/vbench/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
