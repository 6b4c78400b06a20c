package profileview

import (
	"bytes"
	"encoding/xml"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"vbench/internal/profile"
)

type svgFrame struct {
	Class string `xml:"class,attr"`
	Name  string `xml:"data-name,attr"`
	Incl  int64  `xml:"data-incl,attr"`
	Calls int64  `xml:"data-calls,attr"`
	Depth int    `xml:"data-depth,attr"`
	Title string `xml:"title"`
	Rect  struct {
		X     float64 `xml:"x,attr"`
		Y     float64 `xml:"y,attr"`
		Width float64 `xml:"width,attr"`
	} `xml:"rect"`
	Text string `xml:"text"`
}

type svgDoc struct {
	Width  float64    `xml:"width,attr"`
	Frames []svgFrame `xml:"g"`
}

func flameFrames(t *testing.T, p *profile.Profile, opts FlameOptions) svgDoc {
	t.Helper()
	var b bytes.Buffer
	if err := FlameGraph(&b, p, opts); err != nil {
		t.Fatal(err)
	}
	var doc svgDoc
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("flame graph is not well-formed XML: %v", err)
	}
	return doc
}

// mergedPaths counts the distinct call paths of all threads (what a merged
// flame graph draws) and sums their weights.
func mergedPaths(p *profile.Profile) map[string]int64 {
	wt := weighOf(p)
	paths := map[string]int64{}
	var walk func(ns []profile.Node, prefix string)
	walk = func(ns []profile.Node, prefix string) {
		for i := range ns {
			key := prefix + ";" + p.Functions[ns[i].Fn].Name
			paths[key] += wt.incl(&ns[i])
			walk(ns[i].Children, key)
		}
	}
	for _, th := range p.Threads {
		walk(th.Roots, "")
	}
	return paths
}

func TestFlameGraphFramesAreTheMergedTree(t *testing.T) {
	for _, name := range []string{"profile-tracing.json", "profile-sampling.json"} {
		p := readProfile(t, name)
		doc := flameFrames(t, p, FlameOptions{MinWidth: 1e-9})
		paths := mergedPaths(p)
		if len(doc.Frames) != len(paths)+1 {
			t.Fatalf("%s: %d frames, want one per merged call path (%d) plus the root", name, len(doc.Frames), len(paths))
		}
		root := doc.Frames[0]
		var total int64
		for _, th := range p.Threads {
			total += weighOf(p).threadTotal(&th)
		}
		if root.Name != "all" || root.Incl != total {
			t.Fatalf("%s: root %q weighs %d, want all threads' %d", name, root.Name, root.Incl, total)
		}
		// Width is proportional to inclusive weight.
		perUnit := root.Rect.Width / float64(root.Incl)
		if math.Abs(root.Rect.Width-(doc.Width-2*flameMargin)) > 0.01 {
			t.Errorf("%s: root is %.3f wide in a %.0f graph", name, root.Rect.Width, doc.Width)
		}
		var sum int64
		for _, f := range doc.Frames {
			if math.Abs(f.Rect.Width-float64(f.Incl)*perUnit) > 0.002 {
				t.Errorf("%s: %s is %.3f wide for weight %d (%.6f per unit)", name, f.Name, f.Rect.Width, f.Incl, perUnit)
			}
			if f.Title == "" || !strings.HasPrefix(f.Title, f.Name) {
				t.Errorf("%s: frame %s has tooltip %q", name, f.Name, f.Title)
			}
			if n := utf8.RuneCountInString(f.Text); n > 0 && float64(n)*flameCharPx > f.Rect.Width {
				t.Errorf("%s: label %q (%d chars) overflows a %.1f px frame", name, f.Text, n, f.Rect.Width)
			}
			if f.Text != "" && f.Text != f.Name && !strings.HasSuffix(f.Text, "..") {
				t.Errorf("%s: label %q is cut without a mark", name, f.Text)
			}
			if f.Depth > 0 {
				sum += f.Incl
			}
		}
		// Every merged path's weight is drawn exactly once.
		var want int64
		for _, w := range paths {
			want += w
		}
		if sum != want {
			t.Errorf("%s: frames weigh %d together, the merged paths %d", name, sum, want)
		}
	}
}

// Callees sit on their caller: inside its horizontal extent, one row up.
func TestFlameGraphStacking(t *testing.T) {
	p := readProfile(t, "profile-tracing.json")
	doc := flameFrames(t, p, FlameOptions{MinWidth: 1e-9})
	var stack []svgFrame // frames are written depth-first
	for _, f := range doc.Frames {
		for len(stack) > f.Depth {
			stack = stack[:len(stack)-1]
		}
		if f.Depth > 0 {
			parent := stack[len(stack)-1]
			if f.Rect.X < parent.Rect.X-0.001 || f.Rect.X+f.Rect.Width > parent.Rect.X+parent.Rect.Width+0.002 {
				t.Errorf("%s [%.2f, +%.2f] sticks out of its caller %s [%.2f, +%.2f]", f.Name, f.Rect.X, f.Rect.Width, parent.Name, parent.Rect.X, parent.Rect.Width)
			}
			if math.Abs(parent.Rect.Y-f.Rect.Y-flameFrameH) > 0.01 {
				t.Errorf("%s at y=%.1f is not one row above its caller at y=%.1f", f.Name, f.Rect.Y, parent.Rect.Y)
			}
		}
		stack = append(stack, f)
	}
	// The recursion is not folded: one Fib frame per recursion depth.
	fibs, want := 0, 0
	for _, f := range doc.Frames {
		if strings.HasSuffix(f.Name, ".Fib(int)") {
			fibs++
		}
	}
	for path := range mergedPaths(p) {
		if strings.HasSuffix(path, ".Fib(int)") {
			want++
		}
	}
	if want < 10 || fibs != want {
		t.Errorf("%d Fib frames, want %d (one per recursion depth of the fixture)", fibs, want)
	}
}

func TestFlameGraphPerThread(t *testing.T) {
	p := readProfile(t, "profile-sampling.json")
	doc := flameFrames(t, p, FlameOptions{PerThread: true, MinWidth: 1e-9})
	threads := 0
	for _, f := range doc.Frames {
		if f.Depth == 1 {
			threads++
			if !strings.HasPrefix(f.Name, "thread ") {
				t.Errorf("depth-1 frame %q is not a thread", f.Name)
			}
		}
	}
	if threads != len(p.Threads) {
		t.Errorf("%d thread towers, want %d", threads, len(p.Threads))
	}
	// Merged, the two render threads' identical paths become one frame each.
	merged := flameFrames(t, p, FlameOptions{MinWidth: 1e-9})
	if len(merged.Frames) >= len(doc.Frames) {
		t.Errorf("merging drew %d frames, per thread %d", len(merged.Frames), len(doc.Frames))
	}
}

func TestFlameGraphSkipsSlivers(t *testing.T) {
	p := readProfile(t, "profile-tracing.json")
	all := flameFrames(t, p, FlameOptions{MinWidth: 1e-9})
	some := flameFrames(t, p, FlameOptions{MinWidth: 2})
	for _, f := range some.Frames {
		if f.Rect.Width < 2 {
			t.Errorf("%s drawn %.2f px wide with a 2 px minimum", f.Name, f.Rect.Width)
		}
	}
	if len(some.Frames) >= len(all.Frames) {
		t.Errorf("the minimum width hid nothing (%d vs %d frames)", len(some.Frames), len(all.Frames))
	}
}

func TestFitLabel(t *testing.T) {
	name := "Fibonacci.Program.Fib(int)"
	if got := fitLabel(name, 1000); got != name {
		t.Errorf("wide frame: %q", got)
	}
	if got := fitLabel(name, 10); got != "" {
		t.Errorf("narrow frame: %q", got)
	}
	got := fitLabel(name, 80)
	if !strings.HasSuffix(got, "..") || float64(utf8.RuneCountInString(got))*flameCharPx > 80 {
		t.Errorf("80 px frame: %q", got)
	}
}
