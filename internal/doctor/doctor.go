// Package doctor judges whether this machine can run vbench (the .NET
// runtime, a profiler library that really loads) and what makes its timings
// noisy (frequency scaling, turbo, load, CPU quotas, a hypervisor).
//
// internal/machine reads the machine; doctor only judges what it reports
// (judge.go, pure functions), except for the one thing no file tells: whether
// the profiler really loads, which takes launching CoreCLR (profiler.go).
package doctor

import (
	"context"
	"time"

	"vbench/internal/machine"
)

// Status of one check.
type Status int

const (
	OK   Status = iota // as it should be
	Info               // worth knowing, no action needed
	Warn               // makes timings noisier
	Fail               // vbench cannot work
)

func (s Status) String() string { return [...]string{"ok", "info", "warn", "fail"}[s] }

// Check is one line of the doctor's report.
type Check struct {
	Name   string
	Status Status
	Detail string // what was found
	Advice string // what to do about it, when anything
}

// Options say where things are; zero values mean the defaults.
type Options struct {
	Dotnet      string // dotnet host; default: from PATH
	ProfilerLib string // default: attach.DefaultLibrary()
	Timeout     time.Duration
}

// Run probes the machine and performs every check. Required checks come first.
func Run(ctx context.Context, o Options) []Check {
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
	r := machine.Probe(ctx, o.Dotnet)
	lib, libCheck := checkLibrary(o.ProfilerLib)
	out := []Check{checkRuntime(r.Dotnet), libCheck, checkLoads(ctx, r.Dotnet.Host, lib, o.Timeout)}
	return append(out, checkMachine(r)...)
}

// Failed reports whether any required check failed.
func Failed(cs []Check) bool {
	for _, c := range cs {
		if c.Status == Fail {
			return true
		}
	}
	return false
}
