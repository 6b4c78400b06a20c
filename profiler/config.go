package main

// #include "vb.h"
import "C"

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"vbench/internal/attach"
	"vbench/internal/modes"
)

// Modes as the C core numbers them: vb.h's enum is their one definition,
// read here through cgo (state.c's vb_mode_name names each).
const (
	cModeNull            = C.VB_MODE_NULL
	cModeTracing         = C.VB_MODE_TRACING
	cModeSuspendSampling = C.VB_MODE_SUSPEND_SAMPLING
	cModeInstrumentation = C.VB_MODE_INSTRUMENTATION
	cModeSampling        = C.VB_MODE_SAMPLING
	cModeAllocations     = C.VB_MODE_ALLOCATIONS
	cModeAllocSampling   = C.VB_MODE_ALLOCATION_SAMPLING
)

// The profiler's defaults are modes.Interval.Default, modes.MaxStack.Default
// and modes.TimeSample.Default (tracing), but for instrumentation:
const (
	// Instrumentation counts a call in ~1.5 ns, a timed one costs two rdtsc
	// (~11 ns each on our VM) and two native calls: at 1/16 timing would
	// triple its cost on call-heavy code, at 1/256 it adds ~0.1 ns a call.
	defaultTimeSampleInstrumentation = 256
)

// IncompleteStack names the root under which the sampling engine puts
// the frames of a stack whose walk stopped short of the thread's first
// frame: they are real frames, their callers unknown.
const IncompleteStack = "[vbench: stack incomplete]"

// config is what the profiler was asked to do, from the environment.
type config struct {
	engine           modes.Engine
	mode             int
	interval         time.Duration
	timeSample       int // tracing, instrumentation: 1 times every call; N: hot nodes ~1 call in N
	maxStack         int // suspend-sampling: frames kept per stack
	timeline         bool
	timelineMin      time.Duration // calls shorter than this fold into their caller
	timelineCap      int           // events at most
	include, exclude []string
	processes        *regexp.Regexp // VBENCH_PROCESSES; nil: every process
	dir              string
	dirErr           error // set: profile goes nowhere (reported once at startup)

	// This process, as it was when the profiler started (its parent may
	// exit first, and the kernel then gives it another).
	command []string
	ppid    int
	procDir string // its directory under dir, once Initialize has succeeded

	attachFor time.Duration // attached (InitializeForAttach): how long to profile before detaching
}

var current *config

func envLookup(k string) (string, bool) { return os.LookupEnv(k) }

// configFromEnv parses the VBENCH_* variables. A bad mode or interval is an
// error (the profiler then declines to load); a missing or unwritable profile
// directory is not: the program still runs, profiled, and nothing is written.
func configFromEnv(get func(string) (string, bool)) (*config, error) {
	c := &config{interval: modes.Interval.Default, timeSample: modes.TimeSample.Default, maxStack: modes.MaxStack.Default,
		timelineMin: modes.TimelineMin.Default, timelineCap: modes.TimelineCap.Default}
	name, _ := get(attach.EnvMode)
	c.engine = modes.Engine(name)
	switch c.engine {
	case modes.EngineTracing:
		c.mode = cModeTracing
	case modes.EngineInstrumentation:
		c.mode = cModeInstrumentation
		c.timeSample = defaultTimeSampleInstrumentation
	case modes.EngineSampling, modes.EngineCPUSampling:
		c.mode = cModeSampling
	case modes.EngineSuspendSampling:
		c.mode = cModeSuspendSampling
	case modes.EngineNull:
		c.mode = cModeNull
	case modes.EngineAllocations:
		c.mode = cModeAllocations
	case modes.EngineAllocationSampling:
		c.mode = cModeAllocSampling
	default:
		return nil, fmt.Errorf("%s=%q is not %s", attach.EnvMode, name, modes.OneOf(modes.Engines))
	}
	if s, ok := get(modes.EnvVar("interval")); ok && s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("%s=%q is not a duration like 10ms", modes.EnvVar("interval"), s)
		}
		// A typed 0 is a value here, not the default it is in modes.ProfilerSettings.
		if d == 0 || modes.Validate(modes.ProfilerSettings{Interval: modes.Duration(d)}) != nil {
			return nil, fmt.Errorf("%s=%s is outside %s", modes.EnvVar("interval"), d, modes.Interval.Want())
		}
		c.interval = d
	}
	if s, ok := get(modes.EnvVar("time_sample")); ok && s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n == 0 || modes.Validate(modes.ProfilerSettings{TimeSample: n}) != nil {
			return nil, fmt.Errorf("%s=%q is not %s", modes.EnvVar("time_sample"), s, modes.TimeSample.Want())
		}
		c.timeSample = n
	}
	if s, ok := get(modes.EnvVar("max_stack")); ok && s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n == 0 || modes.Validate(modes.ProfilerSettings{MaxStack: n}) != nil {
			return nil, fmt.Errorf("%s=%q is not a number of frames in %s", modes.EnvVar("max_stack"), s, modes.MaxStack.Want())
		}
		c.maxStack = n
	}
	if s, ok := get(modes.EnvVar("timeline")); ok && s != "" && s != "0" {
		if c.mode == cModeNull || c.mode == cModeInstrumentation {
			return nil, fmt.Errorf("%s=%s: only the tracing, sampling and allocation engines write a timeline", modes.EnvVar("timeline"), s)
		}
		c.timeline = true
	}
	if s, ok := get(modes.EnvVar("timeline_min")); ok && s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || modes.Validate(modes.ProfilerSettings{TimelineMin: modes.Duration(d)}) != nil {
			return nil, fmt.Errorf("%s=%q is not a duration in %s", modes.EnvVar("timeline_min"), s, modes.TimelineMin.Want())
		}
		c.timelineMin = d
	}
	if s, ok := get(modes.EnvVar("timeline_cap")); ok && s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n == 0 || modes.Validate(modes.ProfilerSettings{TimelineCap: n}) != nil {
			return nil, fmt.Errorf("%s=%q is not a number of events in %s", modes.EnvVar("timeline_cap"), s, modes.TimelineCap.Want())
		}
		c.timelineCap = n
	}
	if s, ok := get(attach.EnvProcesses); ok && s != "" {
		re, err := attach.CheckProcesses(s)
		if err != nil {
			return nil, fmt.Errorf("%s=%v", attach.EnvProcesses, err)
		}
		c.processes = re
	}
	c.include = splitPatterns(get(modes.EnvVar("include")))
	c.exclude = splitPatterns(get(modes.EnvVar("exclude")))
	c.dir, _ = get(attach.EnvProfileDir)
	c.dirErr = checkDir(c.dir)
	return c, nil
}

func splitPatterns(s string, _ bool) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func joinComma(ps []string) string { return strings.Join(ps, ",") }

// wanted reports whether the process with this command line is one to
// profile (VBENCH_PROCESSES).
func (c *config) wanted(command []string) bool {
	return c.processes == nil || c.processes.MatchString(strings.Join(command, " "))
}

// checkDir verifies that dir exists and that a file can be created in it.
func checkDir(dir string) error {
	if dir == "" {
		return fmt.Errorf("%s is not set", attach.EnvProfileDir)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s=%s: %v", attach.EnvProfileDir, dir, errors.Unwrap(err))
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s=%s is not a directory", attach.EnvProfileDir, dir)
	}
	f, err := os.CreateTemp(dir, ".vbench-probe-*")
	if err != nil {
		return fmt.Errorf("%s=%s is not writable: %v", attach.EnvProfileDir, dir, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// logOut is where logf writes: stderr, or an attach's log file (the
// target's stderr is the program's own).
var logOut io.Writer = os.Stderr

func logf(format string, args ...any) {
	fmt.Fprintf(logOut, "vbench-profiler: "+format+"\n", args...)
}

// configFromClientData is an attach's configuration (attach.ClientData):
// the variables Initialize reads from the environment, the duration, and
// only an engine that can start after attach.
func configFromClientData(data []byte) (*config, error) {
	m := attach.ParseClientData(data)
	c, err := configFromEnv(func(k string) (string, bool) { v, ok := m[k]; return v, ok })
	if err != nil {
		return nil, err
	}
	if err := attach.AfterAttach(c.engine); err != nil {
		return nil, err
	}
	if c.timeline {
		return nil, fmt.Errorf("%s: no timeline after attach", modes.FieldNamed("timeline").Env)
	}
	s := m[attach.EnvAttachDuration]
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return nil, fmt.Errorf("%s=%q is not a duration like 30s", attach.EnvAttachDuration, s)
	}
	c.attachFor = d
	return c, nil
}
