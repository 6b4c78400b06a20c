//go:build vbenchtest

package main

// Test hooks, compiled only with -tags vbenchtest (make test; the stress
// script's crash demonstration): the shipped bin/libvbenchprof.so has none.

/*
#cgo CFLAGS: -DVB_TEST_HOOKS
#include "vb.h"
*/
import "C"

// benchPairs runs n enter/leave pairs through the tracing stubs (kind 0), the
// null stubs (1) or just two rdtsc (2) and returns the elapsed nanoseconds.
func benchPairs(n int64, kind int) int64 { return int64(C.vb_bench_pairs(C.int64_t(n), C.int(kind))) }

// hookPairCalls runs n pairs for a fresh function and returns its node's calls.
func hookPairCalls(n int64) int64 { return int64(C.vb_bench_calls(C.int64_t(n))) }

// cModeName is C's name for mode (state.c vb_mode_name).
func cModeName(mode int) string { return C.GoString(C.vb_mode_name(C.int(mode))) }
