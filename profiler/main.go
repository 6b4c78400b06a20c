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
	"unsafe"

	"vbench/internal/attach"
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
func vbGoConfigure() C.int { return configure(envLookup) }

// vbGoConfigureFrom is vbGoConfigure with the settings a diagnostic port
// gave the runtime (KEY=VALUE lines: attach.c vb_runtime_settings) over
// the environment's.
//
//export vbGoConfigureFrom
func vbGoConfigureFrom(settings *C.char) C.int {
	m := attach.ParseClientData([]byte(C.GoString(settings)))
	return configure(func(k string) (string, bool) {
		if v, ok := m[k]; ok {
			return v, true
		}
		return envLookup(k)
	})
}

func configure(get func(string) (string, bool)) C.int {
	cfg, err := configFromEnv(get)
	if err != nil {
		logf("%v; running unprofiled", err)
		return -1
	}
	cfg.command, cfg.ppid = cmdline(), os.Getppid()
	if !cfg.wanted(cfg.command) {
		return 1
	}
	apply(cfg)
	return 0
}

// vbGoConfigureAttach is vbGoConfigure for InitializeForAttach: the
// configuration from the client data (attach.ClientData), messages into
// its log file. 0, or -1 after saying why there.
//
//export vbGoConfigureAttach
func vbGoConfigureAttach(data *C.char, n C.int) C.int {
	b := C.GoBytes(unsafe.Pointer(data), n)
	m := attach.ParseClientData(b)
	if path := m[attach.EnvAttachLog]; path != "" {
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err == nil {
			if old, ok := logOut.(*os.File); ok && old != os.Stderr {
				old.Close()
			}
			logOut = f // kept open: C writes to its descriptor too
			C.vb_log_fd = C.int(f.Fd())
		}
	}
	if s := m["VBENCH_DEBUG"]; s != "" && s != "0" {
		C.vb_debug = 1
	}
	cfg, err := configFromClientData(b)
	if err != nil {
		logf("%v; not attaching", err)
		return -1
	}
	cfg.command, cfg.ppid = cmdline(), os.Getppid()
	C.vb_attach_ns = C.int64_t(cfg.attachFor.Nanoseconds())
	apply(cfg)
	return 0
}

// apply hands a configuration to C and makes it the current one.
func apply(cfg *config) {
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
	p := build(complete != 0, C.GoString(cause))
	t1 := time.Now()
	if err := writeProfile(current.procDir, p); err != nil {
		logf("writing the profile: %v", err)
	}
	if C.vb_debug != 0 { // how long the writer kept the process alive, by phase
		logf("profile written: snapshot %v, files %v", t1.Sub(t0).Round(time.Millisecond), time.Since(t1).Round(time.Millisecond))
	}
}

// held is an attach's profile, built before the detach (names need the
// runtime) and written after it (vbGoHold, vbGoWriteHeld).
var held *profile.Profile

//export vbGoHold
func vbGoHold() {
	if current == nil || current.procDir == "" {
		return
	}
	held = build(true, "")
}

//export vbGoWriteHeld
func vbGoWriteHeld() {
	if held == nil {
		return
	}
	if err := writeProfile(current.procDir, held); err != nil {
		logf("writing the profile: %v", err)
	}
	held = nil
}

// build is the profile as it stands (complete, or why not: cause), with
// the timeline written beside it when asked for.
func build(complete bool, cause string) *profile.Profile {
	p := snapshot(current, complete)
	if !complete {
		p.Cause = cause
	}
	if at := int64(C.vb_cpu_lost_ns); at > 0 { // the program took SIGPROF (sampling.c)
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
	return p
}
