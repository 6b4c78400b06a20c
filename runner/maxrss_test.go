package runner

import (
	"context"
	"os"
	"runtime"
	"testing"

	"vbench/internal/testbin"
)

// A child's max RSS is its own, not the harness's: Go vforks, and at exec
// the kernel folds the parent's peak into the child's rusage, so /bin/true
// read 502 MiB under a big vbench. A tiny program started from a grown
// harness is far below the harness; a program bigger than the harness gets
// its own figure.
func TestMaxRSSIsTheChildsAlone(t *testing.T) {
	fw := testbin.Fakework(t)
	ballast := make([]byte, 400<<20)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1
	}
	own := selfHWM()
	if own < 400<<20 {
		t.Fatalf("the harness's own peak is %d bytes, not grown", own)
	}
	tiny := Exec(context.Background(), Spec{Argv: []string{fw, "-elapsed", "1"}, Env: os.Environ(), Dir: t.TempDir()})
	if tiny.Failure(0) != "" {
		t.Fatal(tiny.Failure(0))
	}
	if tiny.MaxRSS > 100<<20 {
		t.Errorf("a tiny program's max RSS %.0f MiB: the harness's (%.0f MiB), not its own", float64(tiny.MaxRSS)/(1<<20), float64(own)/(1<<20))
	}
	big := Exec(context.Background(), Spec{Argv: []string{fw, "-elapsed", "1", "-touch-mib", "700"}, Env: os.Environ(), Dir: t.TempDir()})
	if big.Failure(0) != "" {
		t.Fatal(big.Failure(0))
	}
	if big.MaxRSS < 700<<20 || big.MaxRSS > 800<<20 {
		t.Errorf("a 700 MiB program's max RSS %.0f MiB", float64(big.MaxRSS)/(1<<20))
	}
	runtime.KeepAlive(ballast)
}
