package runner

import (
	"fmt"
	"strings"
	"testing"
)

// jitstorm's VBENCH line names every generated method: 4,056 calls entries,
// ~140 KB, at its largest scale. It arrives in pipe-sized pieces; the scanner
// must hand it over whole and the parser take every entry.
func TestOutputScannerLongLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("VBENCH elapsed_ns=7 checksum=c0ffee")
	const n = 5000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, " calls.Vbench.JitStorm.Gen.M%04d=%d", i, i+1)
	}
	b.WriteString(" methods=5000\n")
	line := b.String()
	if len(line) < 150_000 {
		t.Fatalf("test line is only %d bytes", len(line))
	}
	var s outputScanner
	for p := line; len(p) > 0; {
		k := min(4096, len(p))
		s.Write([]byte(p[:k]))
		p = p[k:]
	}
	s.flush()
	if len(s.vbench) != 1 {
		t.Fatalf("%d VBENCH lines, want 1", len(s.vbench))
	}
	r, err := ParseLine(s.vbench[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Calls) != n || r.Calls["Vbench.JitStorm.Gen.M0000"] != 1 || r.Calls["Vbench.JitStorm.Gen.M4999"] != n || r.Other["methods"] != "5000" {
		t.Errorf("parsed %d calls entries (M0000=%d, M4999=%d), other %v; want %d", len(r.Calls), r.Calls["Vbench.JitStorm.Gen.M0000"], r.Calls["Vbench.JitStorm.Gen.M4999"], r.Other, n)
	}
}
