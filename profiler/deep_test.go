package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
)

// deepN is how deep the test program recurses: twenty times what a nested
// profile.json could hold, on a thread with a 512 MiB stack.
const deepN = 100_000

const (
	recurseFn = "VbTest.Deep.Recurse"
	bottomFn  = "VbTest.Deep.Bottom"
)

// recursionRun returns the longest run of consecutive Recurse frames on any
// path of the profile's trees, and the deepest path.
func recursionRun(p *profile.Profile) (run, depth int) {
	for _, th := range p.Threads {
		runs := []int{}
		profile.Walk(th.Roots, func(n *profile.Node, d int) bool {
			r := 0
			if p.Functions[n.Fn].Name == recurseFn {
				r = 1
				if d > 0 {
					r += runs[d-1]
				}
			}
			runs = append(runs[:d], r)
			run, depth = max(run, r), max(depth, d+1)
			return true
		}, nil)
	}
	return run, depth
}

// rendered runs the real vbench and go tool pprof on a deep profile: each must
// succeed, and their outputs stay small however deep the tree.
func rendered(t *testing.T, dir string) {
	t.Helper()
	vb := testbin.Vbench(t)
	run := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		start := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, errb.String())
		}
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
		t.Logf("%s: %v, max RSS %d MiB, %d bytes out", name, time.Since(start).Round(time.Millisecond), rss>>10, out.Len())
		return out.Bytes()
	}
	text := run("vbench report", vb, "report", dir)
	if len(text) > 200_000 || !strings.Contains(string(text), fmt.Sprintf("more levels below the depth limit of %d", 100)) {
		t.Errorf("vbench report: %d bytes, depth-limit line missing?\n%.3000s", len(text), text)
	}
	svg := filepath.Join(t.TempDir(), "flame.svg")
	run("vbench report -o flame.svg", vb, "report", dir, "-o", svg)
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("flame.svg: %d bytes", len(b))
	if len(b) > 2_000_000 || !bytes.Contains(b, []byte("more levels below the depth limit")) {
		t.Errorf("flame.svg: %d bytes, depth-limit frame missing?", len(b))
	}
	pdir := testapp.ProcessDir(t, dir)
	top := run("go tool pprof -top", "go", "tool", "pprof", "-top", "-nodefraction=0", filepath.Join(pdir, profile.PprofFile))
	if !bytes.Contains(top, []byte(recurseFn)) || !bytes.Contains(top, []byte(profile.ElidedFrames)) {
		t.Errorf("go tool pprof -top lacks %s or the %s marker:\n%s", recurseFn, profile.ElidedFrames, top)
	}
	for _, f := range []string{profile.JSONFile, profile.PprofFile} {
		if fi, err := os.Stat(filepath.Join(pdir, f)); err == nil {
			t.Logf("%s: %d bytes", f, fi.Size())
		}
	}
}

// Tracing a recursion 100,000 deep: exact counts, the whole chain in the
// tree, and a profile every reader takes.
func TestDeepRecursionTracing(t *testing.T) { deepRecursionCounted(t, modes.EngineTracing) }

// The same under instrumentation, whose rewritten frames are larger (three
// more locals, a try/fault): 100,000 of them still fit the thread's stack.
func TestDeepRecursionInstrumentation(t *testing.T) {
	deepRecursionCounted(t, modes.EngineInstrumentation)
}

func deepRecursionCounted(t *testing.T, engine modes.Engine) {
	start := time.Now()
	r, p := profiled(t, engine, nil, 0, "deep", fmt.Sprint(deepN))
	t.Logf("profiled run and decode: %v", time.Since(start).Round(time.Millisecond))
	exp := map[string]int64{recurseFn: deepN, bottomFn: 1}
	printed := testapp.Expectations(r.Stdout)
	for name, want := range exp {
		if got := printed[name]; got != want {
			t.Fatalf("the program expects %s=%d, the test %d", name, got, want)
		}
		if f := p.Function(name); f == nil || f.Calls != want {
			t.Errorf("%s: %+v, want %d calls", name, f, want)
		}
	}
	run, depth := recursionRun(p)
	if run != deepN || depth != deepN+2 {
		t.Errorf("longest Recurse chain %d, tree depth %d; want %d and %d (lambda, Recurse ×N, Bottom)", run, depth, deepN, deepN+2)
	}
	rec := p.Function(recurseFn)
	if c := callers(rec); len(c) != 2 || c[recurseFn] != deepN-1 {
		t.Errorf("Recurse callers %v", c)
	}
	// Inclusive time counts the recursion once: its outermost frame's.
	for _, th := range p.Threads {
		profile.Walk(th.Roots, func(n *profile.Node, _ int) bool {
			if p.Functions[n.Fn].Name == recurseFn {
				if n.InclusiveNs != rec.InclusiveNs {
					t.Errorf("Recurse inclusive %d, outermost frame %d", rec.InclusiveNs, n.InclusiveNs)
				}
				return false
			}
			return true
		}, nil)
	}
	rendered(t, r.Dir)
}

// Sampling the same recursion with the suspending sampler, holding at the
// bottom for a second: whole stacks, 100,000 frames each, land in the tree.
func TestDeepRecursionSampling(t *testing.T) {
	r, p := profiled(t, modes.EngineSuspendSampling, nil, 0, "deep", fmt.Sprint(deepN), "1000")
	if run, _ := recursionRun(p); run != deepN {
		t.Errorf("longest Recurse chain %d, want %d: no whole stack was sampled", run, deepN)
	}
	if f := p.Function(bottomFn); f == nil || f.ExclusiveSamples == 0 {
		t.Errorf("Bottom: %+v, want exclusive samples", f)
	}
	if p.Function(profile.ElidedFrames) != nil || len(p.Warnings) != 0 {
		t.Errorf("stacks cut below the default VBENCH_MAX_STACK: warnings %q", p.Warnings)
	}
	rendered(t, r.Dir)
}

// With VBENCH_MAX_STACK=1000 every stack keeps 500 frames at each end around
// one marker frame, says so, and still credits Bottom with its samples.
func TestDeepRecursionSampledStackLimit(t *testing.T) {
	_, p := profiled(t, modes.EngineSuspendSampling, []string{modes.EnvVar("max_stack") + "=1000"}, 0, "deep", fmt.Sprint(deepN), "500")
	marker := p.Function(profile.ElidedFrames)
	bottom := p.Function(bottomFn)
	if marker == nil || bottom == nil || bottom.ExclusiveSamples == 0 || marker.InclusiveSamples < bottom.ExclusiveSamples {
		t.Fatalf("marker %+v, Bottom %+v", marker, bottom)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "deeper than 1000 frames") || !strings.Contains(p.Warnings[0], modes.EnvVar("max_stack")) {
		t.Errorf("warnings %q", p.Warnings)
	}
	// The marker sits under the root-most 500 frames (fewer after the
	// user-code filter), with at most 499 frames (and Bottom) above it.
	for _, th := range p.Threads {
		profile.Walk(th.Roots, func(n *profile.Node, d int) bool {
			if p.Functions[n.Fn].Name == profile.ElidedFrames {
				if d > 500 {
					t.Errorf("marker at depth %d, below more than 500 root-side frames", d)
				}
				if below := profile.Depth(n.Children); below > 500 {
					t.Errorf("%d levels above the marker, want at most 500", below)
				}
			}
			return true
		}, nil)
	}
	if run, depth := recursionRun(p); run >= 1000 || depth > 1001 {
		t.Errorf("Recurse chain %d, depth %d with a 1000-frame limit", run, depth)
	}
}

// The sampling engine's signal handler keeps 128 leaf-most and 128
// root-most frames of a deeper stack, whatever VBENCH_MAX_STACK says: the
// same recursion keeps Bottom (its samples) and the thread's root, one
// marker frame between, and the warning says how many frames were kept.
func TestDeepRecursionSignalSampler(t *testing.T) {
	_, p := profiled(t, modes.EngineSampling, nil, 0, "deep", fmt.Sprint(deepN), "500")
	marker, bottom := p.Function(profile.ElidedFrames), p.Function(bottomFn)
	if marker == nil || bottom == nil || bottom.ExclusiveSamples == 0 {
		t.Fatalf("marker %+v, Bottom %+v", marker, bottom)
	}
	want := "were deeper than 256 frames: each kept its 128 leaf-most and 128 root-most frames"
	if len(p.Warnings) == 0 || !strings.Contains(strings.Join(p.Warnings, "\n"), want) {
		t.Errorf("warnings %q, want one that says %q", p.Warnings, want)
	}
	if run, _ := recursionRun(p); run > 256 {
		t.Errorf("Recurse chain %d, over the 256 frames kept", run)
	}
}
