package profileview

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"vbench/internal/modes"
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
// depth, with the exact call count of the fixture (the printed times are
// compared literally in TestProfileTextGolden).
func TestProfileTextTreeIsTheFixturesTree(t *testing.T) {
	p := readProfile(t, "profile-tracing.json")
	text := profileText(t, p, ProfileOptions{})
	for ti := range p.Threads {
		th := &p.Threads[ti]
		var want []treeRow
		var walk func(ns []profile.Node, d int)
		walk = func(ns []profile.Node, d int) {
			for _, n := range ns {
				want = append(want, treeRow{d, p.Functions[n.Fn].Name, fmt.Sprintf("calls=%d", n.Calls)})
				walk(n.Children, d+1)
			}
		}
		walk(th.Roots, 0)
		got := treeRows(t, text, th.OSID)
		for i := range got {
			got[i].data = strings.Fields(got[i].data)[0]
		}
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
// a recursion once in inclusive time: Fib's 2.093ms, not the sum over its
// chain) and is sorted by exclusive time; shares are of all threads' 10.79ms.
func TestProfileTextTopFunctions(t *testing.T) {
	p := readProfile(t, "profile-tracing.json")
	text := profileText(t, p, ProfileOptions{Top: 5})
	_, top, _ := strings.Cut(text, "\nTop 5 of 9 functions by exclusive wall-clock time (total 10.79ms on 3 threads)\n")
	top, _, _ = strings.Cut(top, "\n\n")
	want := []string{
		"excl excl% incl incl% calls function",
		"3.400ms 31.5% 6.028ms 55.9% 1 Fibonacci.Worker.Loop()",
		"2.093ms 19.4% 2.093ms 19.4% 11625 Fibonacci.Program.Fib(int)",
		"1.900ms 17.6% 2.628ms 24.4% 20000 Fibonacci.Worker+Buffer<System.Int32>.Add(int)",
		"1.250ms 11.6% 4.742ms 43.9% 1 Fibonacci.Program.Main(string[])",
		"1.025ms 9.5% 1.025ms 9.5% 25 Fibonacci.Report.Format<long>(long)",
	}
	lines := strings.Split(top, "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), top)
	}
	for i, l := range lines {
		if got := strings.Join(strings.Fields(l), " "); got != want[i] {
			t.Errorf("line %d: %q, want %q", i, got, want[i])
		}
	}
	// Fib's row is the profiler's own function table: 11625 calls, 2,092,500ns.
	if fib := p.Function("Fibonacci.Program.Fib(int)"); fib.Calls != 11625 || fib.ExclusiveNs != 2_092_500 || fib.InclusiveNs != 2_092_500 {
		t.Errorf("the fixture's Fib changed: %+v", fib)
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
	if !strings.Contains(text, "more under 5% (") {
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
	if !strings.Contains(text, "· 1.744s · 2462 samples every 1.000ms · 3 threads ·") {
		t.Errorf("header lacks the sampling rate:\n%s", text)
	}
	// The suspending sampler's count is of ticks, each a snapshot of every
	// thread, not of the threads' samples.
	p.Mode = modes.EngineSuspendSampling
	if text := profileText(t, p, ProfileOptions{Top: 3}); !strings.Contains(text, "· 2462 ticks every 1.000ms · 3 threads ·") {
		t.Errorf("suspend-sampling header:\n%s", text)
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

// hasRow reports whether text has a line whose space-separated fields are
// row's: table rows compared whatever their column padding.
func hasRow(text, row string) bool {
	want := strings.Join(strings.Fields(row), " ")
	for _, line := range strings.Split(text, "\n") {
		if strings.Join(strings.Fields(line), " ") == want {
			return true
		}
	}
	return false
}

// One thread and one function are counted in the singular ("1 threads · 1
// functions" it used to say), and the null-mode note names every engine
// that records calls, instrumentation included.
func TestProfileTextSingularAndNullNote(t *testing.T) {
	p := readProfile(t, "profile-tracing.json")
	p.Threads = p.Threads[:1]
	if text := profileText(t, p, ProfileOptions{Top: 10}); !strings.Contains(text, " · 1 thread · 9 functions") {
		t.Errorf("header of a one-thread, one-function profile:\n%s", strings.SplitN(text, "\n", 3)[1])
	}
	p.Mode, p.Threads, p.Functions = "null", nil, nil
	if text := profileText(t, p, ProfileOptions{Top: 10}); !strings.Contains(text, "Profile in tracing, instrumentation or sampling mode") {
		t.Errorf("null profile report:\n%s", text)
	}
}
