package main

/*
#cgo CFLAGS: -O2 -Wall -Wno-unused-function
#cgo LDFLAGS: -lpthread -lm
#include "vb.h"
*/
import "C"

import (
	"os"
	"time"

	"vbench/internal/profile"
)

// main is required by -buildmode=c-shared and never runs.
func main() {}

// vbGoReady does nothing. Its only job is to be the first call into Go from
// Initialize: a cgo export blocks until the Go runtime (initialised on its own
// thread after dlopen) is ready, so after it returns Go's signal setup is done
// and vb_signals_fix can undo what must be undone.
//
//export vbGoReady
func vbGoReady() {}

// vbGoConfigure reads the environment and hands the configuration to C.
// It returns 0; 1 when this process is not one VBENCH_PROCESSES selects
// (Initialize then declines quietly: the process runs as if no profiler were
// there); or -1 after printing why the profiler will not run.
//
//export vbGoConfigure
func vbGoConfigure() C.int {
	cfg, err := configFromEnv(envLookup)
	if err != nil {
		logf("%v; running unprofiled", err)
		return -1
	}
	cfg.command, cfg.ppid = cmdline(), os.Getppid()
	if !cfg.wanted(cfg.command) {
		return 1
	}
	current = cfg
	if cfg.dirErr != nil {
		logf("%v; no profile will be written", cfg.dirErr)
	}
	inc, exc := C.CString(joinComma(cfg.include)), C.CString(joinComma(cfg.exclude))
	// Kept for the life of the process: C's filter holds its own copies.
	C.vb_configure(C.int(cfg.mode), C.int64_t(cfg.interval.Nanoseconds()), inc, exc)
	C.vb_set_time_sample(C.int(cfg.timeSample))
	if cfg.timeline {
		C.vb_tl_configure(1, C.int64_t(cfg.timelineMin.Nanoseconds()), C.int64_t(cfg.timelineCap))
	}
	C.vb_max_stack = C.uint32_t(cfg.maxStack)
	C.vb_elided_fn.name = C.CString(profile.ElidedFrames) // kept for the life of the process
	C.vb_incomplete_fn.name = C.CString(IncompleteStack)
	for k, name := range map[int]string{C.VB_NATIVE_OTHER: profile.NativeFrame, C.VB_NATIVE_JIT: profile.JITFrame,
		C.VB_NATIVE_RUNTIME: profile.RuntimeFrame, C.VB_NATIVE_GC: profile.GCFrame} {
		C.vb_native_fns[k].name = C.CString(name)
	}
	return 0
}

// vbGoStarted runs when Initialize has succeeded: it makes this process's
// directory under VBENCH_PROFILE_DIR and writes started.json there, so that
// a process killed before it writes its profile is still known.
//
//export vbGoStarted
func vbGoStarted() {
	cfg := current
	if cfg == nil || cfg.dirErr != nil {
		return
	}
	dir, err := profile.NewProcessDir(cfg.dir, os.Getpid())
	if err != nil {
		cfg.dirErr = err
		logf("%v; no profile will be written", err)
		return
	}
	cfg.procDir = dir
	err = profile.WriteStarted(dir, profile.Process{PID: os.Getpid(), ParentPID: cfg.ppid, Command: cfg.command,
		Mode: cfg.engine, RuntimeVersion: C.GoString(&C.vb_runtime_version[0]), Start: startTime()})
	if err != nil {
		logf("writing %s: %v", profile.StartedFile, err)
	}
}

// vbGoWrite writes profile.json and profile.pb.gz into this process's
// directory (once; C guards it). complete is 1 from Shutdown, 0 from the
// exit-path fallback and a crash (crash.c), which say why in cause.
//
//export vbGoWrite
func vbGoWrite(complete C.int, cause *C.char) {
	if current == nil || current.procDir == "" {
		return
	}
	t0 := time.Now()
	p := snapshot(current, complete != 0)
	if complete == 0 {
		p.Cause = C.GoString(cause)
	}
	if at := int64(C.vb_cpu_lost_ns); at > 0 { // the program took SIGPROF (cpusampler.c)
		lost := profile.SamplingStoppedCause(C.GoString(&C.vb_cpu_lost_what[0]), at)
		if p.Complete {
			p.Complete, p.Cause = false, lost
		} else {
			p.Warnings = append(p.Warnings, lost)
		}
	}
	if current.timeline {
		// Before the profile: profile.json's presence means all is there.
		p.Timeline = writeTimeline(current, current.procDir)
		if w := p.Timeline.Warning(); w != "" {
			p.Warnings = append(p.Warnings, w)
		}
	}
	t1 := time.Now()
	if err := writeProfile(current.procDir, p); err != nil {
		logf("writing the profile: %v", err)
	}
	if C.vb_debug != 0 { // how long the writer kept the process alive, by phase
		logf("profile written: snapshot %v, files %v", t1.Sub(t0).Round(time.Millisecond), time.Since(t1).Round(time.Millisecond))
	}
}
