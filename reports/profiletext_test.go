package reports

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"vbench/internal/profile"
)

func profileText(t *testing.T, p *profile.Profile, opts ProfileOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := ProfileText(&b, "profile.json", p, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var treeLine = regexp.MustCompile(`^((?:[│ ]  )*)[├└]─ (.+?)  (calls=\d+  incl=\S+ \(\d+\.\d%\)  excl=\S+|samples=\d+ \(\d+\.\d%\)  self=\d+)$`)

type treeRow struct {
	depth int
	name  string
	data  string
}

// treeRows parses the tree lines of one thread's section.
func treeRows(t *testing.T, text string, osid int) []treeRow {
	t.Helper()
	_, sec, ok := strings.Cut(text, fmt.Sprintf("\nThread %d ", osid))
	if !ok {
		t.Fatalf("no section for thread %d in:\n%s", osid, text)
	}
	sec, _, _ = strings.Cut(sec, "\nThread ")
	var rows []treeRow
	for _, line := range strings.Split(sec, "\n")[1:] {
		if line == "" {
			continue
		}
		m := treeLine.FindStringSubmatch(line)
		if m == nil {
			if !strings.Contains(line, "… ") {
				t.Errorf("unparsable tree line %q", line)
			}
			continue
		}
		rows = append(rows, treeRow{utf8.RuneCountInString(m[1]) / 3, m[2], m[3]})
	}
	return rows
}

// With no cut-off, every node of every thread is printed in order, at its
// depth, with the exact call count and times of the fixture.
func TestProfileTextTreeIsTheFixturesTree(t *testing.T) {
	p := readProfile(t, "profile-tracing.json")
	text := profileText(t, p, ProfileOptions{})
	for ti := range p.Threads {
		th := &p.Threads[ti]
		total := weighOf(p).threadTotal(th)
		var want []treeRow
		var walk func(ns []profile.Node, d int)
		walk = func(ns []profile.Node, d int) {
			for _, n := range ns {
				data := fmt.Sprintf("calls=%d  incl=%s (%.1f%%)  excl=%s", n.Calls, fmtNs(float64(n.InclusiveNs)),
					100*float64(n.InclusiveNs)/float64(total), fmtNs(float64(n.ExclusiveNs)))
				want = append(want, treeRow{d, p.Functions[n.Fn].Name, data})
				walk(n.Children, d+1)
			}
		}
		walk(th.Roots, 0)
		got := treeRows(t, text, th.OSID)
		if len(got) != len(want) {
			t.Fatalf("thread %d: %d tree lines, want %d nodes", th.OSID, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("thread %d line %d: %+v, want %+v", th.OSID, i, got[i], want[i])
			}
		}
	}
	// The recursion is all there: Fib's calls summed over its chain are the
	// function table's count.
	fib := -1
	for _, f := range p.Functions {
		if strings.HasSuffix(f.Name, ".Fib(int)") {
			fib = f.ID
		}
	}
	var sum int64
	for _, r := range treeRows(t, text, p.Threads[0].OSID) {
		if r.name == p.Functions[fib].Name {
			n, _ := strconv.ParseInt(strings.TrimPrefix(strings.Fields(r.data)[0], "calls="), 10, 64)
			sum += n
		}
	}
	if sum != p.Functions[fib].Calls {
		t.Errorf("Fib calls in the tree sum to %d, the function table says %d", sum, p.Functions[fib].Calls)
	}
}

// The top table agrees with the profiler's own function table (which counts
// a recursion once in inclusive time) and is sorted by exclusive time.
func TestProfileTextTopFunctions(t *testing.T) {
	p := readProfile(t, "profile-tracing.json")
	text := profileText(t, p, ProfileOptions{Top: 5})
	_, top, _ := strings.Cut(text, "\nTop 5 of 9 functions by exclusive time")
	top, _, _ = strings.Cut(top, "\n\n")
	lines := strings.Split(strings.TrimSpace(top), "\n")[2:] // total line's rest, header
	if len(lines) != 5 {
		t.Fatalf("%d rows, want 5:\n%s", len(lines), top)
	}
	byName := map[string]profile.Function{}
	for _, f := range p.Functions {
		byName[f.Name] = f
	}
	prev := int64(1 << 62)
	for _, l := range lines {
		f := strings.Fields(l)
		fn, ok := byName[f[len(f)-1]]
		if !ok {
			t.Fatalf("row %q names no function", l)
		}
		want := []string{fmtNs(float64(fn.ExclusiveNs)), fmtNs(float64(fn.InclusiveNs)), fmt.Sprint(fn.Calls)}
		if f[0] != want[0] || f[2] != want[1] || f[4] != want[2] {
			t.Errorf("row %q, want excl %s incl %s calls %s", l, want[0], want[1], want[2])
		}
		if fn.ExclusiveNs > prev {
			t.Errorf("row %q out of order", l)
		}
		prev = fn.ExclusiveNs
	}
}

func TestProfileTextCutOffs(t *testing.T) {
	p := readProfile(t, "profile-tracing.json")
	main := &p.Threads[0]
	total := weighOf(p).threadTotal(main)

	const minPct = 5.0
	text := profileText(t, p, ProfileOptions{MinPercent: minPct})
	rows := treeRows(t, text, main.OSID)
	var kept, hidden int
	var walk func(ns []profile.Node)
	walk = func(ns []profile.Node) {
		for _, n := range ns {
			if pct(n.InclusiveNs, total) < minPct {
				hidden++
				continue
			}
			kept++
			walk(n.Children)
		}
	}
	walk(main.Roots)
	if len(rows) != kept || hidden == 0 {
		t.Fatalf("%d lines at --min-percent %v, want the %d nodes at or above it (%d hidden)", len(rows), minPct, kept, hidden)
	}
	if !strings.Contains(text, fmt.Sprintf("more under %.1f%%", minPct)) {
		t.Error("hidden nodes are not summarised")
	}

	text = profileText(t, p, ProfileOptions{MaxDepth: 3})
	for _, r := range treeRows(t, text, main.OSID) {
		if r.depth >= 3 {
			t.Errorf("line at depth %d with --depth 3: %+v", r.depth, r)
		}
	}
	if !strings.Contains(text, "below the depth limit") {
		t.Error("depth cut-off not summarised")
	}

	text = profileText(t, p, ProfileOptions{Thread: p.Threads[1].OSID})
	if strings.Contains(text, fmt.Sprintf("Thread %d ", main.OSID)) || !strings.Contains(text, fmt.Sprintf("Thread %d ", p.Threads[1].OSID)) {
		t.Errorf("--thread %d printed other threads", p.Threads[1].OSID)
	}
	if err := ProfileText(&bytes.Buffer{}, "x", p, ProfileOptions{Thread: 1}); err == nil {
		t.Error("no error for a thread that is not in the profile")
	}
}

func TestProfileTextSampling(t *testing.T) {
	p := readProfile(t, "profile-sampling.json")
	text := profileText(t, p, ProfileOptions{Top: 3})
	for ti := range p.Threads {
		th := &p.Threads[ti]
		rows := treeRows(t, text, th.OSID)
		root := th.Roots[0]
		want := fmt.Sprintf("samples=%d (100.0%%)  self=%d", root.InclusiveSamples, root.ExclusiveSamples)
		if len(rows) == 0 || rows[0].data != want {
			t.Errorf("thread %d root: %+v, want %s", th.OSID, rows, want)
		}
		if strings.Contains(text, "calls=") {
			t.Error("a sampling profile shows call counts it does not have")
		}
	}
	if !strings.Contains(text, fmt.Sprintf("%d samples every %s", p.Samples, fmtNs(float64(p.IntervalNs)))) {
		t.Errorf("header lacks the sampling rate:\n%s", text)
	}
}

func TestProfileTextNullMode(t *testing.T) {
	p := readProfile(t, "profile-tracing.json")
	p.Mode, p.Threads, p.Functions = "null", nil, nil
	text := profileText(t, p, ProfileOptions{Top: 10})
	if !strings.Contains(text, "null-mode profile") || strings.Contains(text, "Top ") {
		t.Errorf("null profile report:\n%s", text)
	}
	if err := FlameGraph(&bytes.Buffer{}, p, FlameOptions{}); err != ErrNoCallData {
		t.Errorf("flame graph of a null profile: %v", err)
	}
}
