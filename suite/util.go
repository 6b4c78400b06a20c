package suite

import (
	"os/exec"
	"sort"
)

var lookPath = exec.LookPath

func sortStrings(s []string) { sort.Strings(s) }
