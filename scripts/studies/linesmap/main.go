//go:build vbenchstudy

// Command linesmap measures what mapping a suite run's sampled profiles to
// source lines costs after the run, both ways: one PDB helper process per
// profile (lines.Resolve, as the runner does) and one for all of them
// (lines.ResolveAll). It reads every profile.json with line counts under
// DIR (a results file's kept profiles: <workload>/<mode>/runs/<seq>/<pid>/),
// alternates the two ways -rounds times and prints each way's wall time and
// its children's CPU (user + system).
//
//	go run -tags vbenchstudy ./scripts/studies/linesmap -rounds 3 out/r.profiles
//
// docs/notebook/measurements.md holds what it measured.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"vbench/internal/lines"
	"vbench/internal/profile"
)

func main() {
	rounds := flag.Int("rounds", 3, "alternations of the two ways")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: linesmap [-rounds N] DIR")
		os.Exit(2)
	}
	var paths []string
	filepath.WalkDir(flag.Arg(0), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == profile.JSONFile && strings.Contains(path, "/runs/") {
			paths = append(paths, path)
		}
		return nil
	})
	read := func() []*profile.Profile {
		var ps []*profile.Profile
		for _, path := range paths {
			p, err := profile.ReadFile(path)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			if p.HasLines() {
				ps = append(ps, p)
			}
		}
		return ps
	}
	ctx := context.Background()
	if _, err := lines.Helper(ctx); err != nil { // built before anything is timed
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ways := []struct {
		name string
		do   func([]*profile.Profile) error
	}{
		{"one helper per profile", func(ps []*profile.Profile) error {
			for _, p := range ps {
				if err := lines.Resolve(ctx, p); err != nil {
					return err
				}
			}
			return nil
		}},
		{"one helper for all", func(ps []*profile.Profile) error { return lines.ResolveAll(ctx, ps...) }},
	}
	for r := 0; r < *rounds; r++ {
		for _, w := range ways {
			ps := read()
			load, _ := os.ReadFile("/proc/loadavg")
			cpu0 := childCPU()
			t0 := time.Now()
			if err := w.do(ps); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			wall, cpu := time.Since(t0), childCPU()-cpu0
			fmt.Printf("round %d  %-24s %3d profiles  wall %6.2f s  helper CPU %6.2f s  load %s\n",
				r+1, w.name, len(ps), wall.Seconds(), cpu.Seconds(), strings.Fields(string(load))[0])
		}
	}
}

// childCPU is the user and system time of the children reaped so far.
func childCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
