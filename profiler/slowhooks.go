//go:build vbenchslow

package main

// The deliberately slow profiler, compiled only with -tags vbenchslow
// (`make slow-profiler` → bin/libvbenchprof-slow.so): every enter hook adds a
// few cycles to the chain each traced call waits for (slow.h), a known regression to test verdicts with. The
// shipped bin/libvbenchprof.so never has it.

/*
#cgo CFLAGS: -DVB_SLOW_HOOKS
*/
import "C"
