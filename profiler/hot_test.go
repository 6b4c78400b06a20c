//go:build vbenchtest

package main

import (
	"testing"
	"time"
)

// The hook microbenchmarks report the cost of one enter+leave pair outside
// any runtime: the CLR's own cost of calling hooks is the null engine's
// floor, measured end to end by ./scripts/studies/overhead.
func benchmarkPairs(b *testing.B, kind int) {
	benchPairs(1000, kind) // warm up: creates this thread's tree
	b.ResetTimer()
	ns := benchPairs(int64(b.N), kind)
	b.ReportMetric(float64(ns)/float64(b.N), "ns/pair")
	_ = time.Nanosecond
}

func BenchmarkHookPairTracing(b *testing.B) { benchmarkPairs(b, 0) }
func BenchmarkHookPairNull(b *testing.B)    { benchmarkPairs(b, 1) }
func BenchmarkTwoRdtsc(b *testing.B)        { benchmarkPairs(b, 2) }

// TestHookPairCounts drives the stubs directly and checks the tree they
// built: a test of the asm fast paths themselves, independent of CoreCLR.
func TestHookPairCounts(t *testing.T) {
	if got := hookPairCalls(12345); got != 12345 {
		t.Fatalf("after 12345 enter/leave pairs the node has %d calls", got)
	}
}
