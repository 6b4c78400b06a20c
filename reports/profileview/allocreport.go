package profileview

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"vbench/internal/numfmt"
	"vbench/internal/profile"
	"vbench/reports/shared"
)

// An allocation profile (allocations, allocation-sampling) records objects
// by type and by the path that allocated them, and the GC's collections,
// not calls or time: its report tables the top types and the top
// allocating paths by bytes, then the collections; its flame graph is as
// wide as the bytes each path allocated.

// allocPathFrames is how many frames of an allocating path a table row
// names, from the allocating frame outwards; the rest are counted.
const allocPathFrames = 6

// maxGCRows is how many collections the report lists one by one.
const maxGCRows = 20

// allocSummary is the profile's allocations in one line: "1,150,392 objects
// · 49.8 MB" and, sampled, how many samples the estimate rests on.
func allocSummary(a *profile.Allocations) string {
	s := fmt.Sprintf("%d objects · %s allocated", a.Count, numfmt.Bytes(float64(a.Bytes)))
	if a.Sampled {
		s = fmt.Sprintf("estimated from %d samples (one per ~100 KB): ~%d objects · ~%s allocated", a.Samples, a.Count, numfmt.Bytes(float64(a.Bytes)))
	}
	if a.Folded > 0 {
		s += fmt.Sprintf(" · %d objects' paths folded (counted by type under %s)", a.Folded, profile.FoldedPaths)
	}
	return s + fmt.Sprintf(" · the profiler's tables %s", numfmt.Bytes(float64(a.ProfilerBytes)))
}

// allocText is ProfileText for an allocation profile.
func allocText(w io.Writer, name string, p *profile.Profile, opts ProfileOptions) error {
	ew := shared.NewWriter(w)
	ProfileHeader(ew, name, p)
	writeAllocs(ew, p, opts.Top)
	writeGC(ew, p.GC)
	return ew.Err()
}

// writeAllocs writes the allocation summary, the top types and the top
// allocating paths, n rows each (0: DefaultTop).
func writeAllocs(w io.Writer, p *profile.Profile, n int) {
	if n <= 0 {
		n = DefaultTop
	}
	a := p.Allocations
	fmt.Fprintln(w, allocSummary(a))
	writeAllocTypes(w, a, n)
	writeAllocPaths(w, p, n)
}

// writeAllocTypes tables the heaviest types by bytes.
func writeAllocTypes(w io.Writer, a *profile.Allocations, n int) {
	types := append([]profile.AllocType(nil), a.Types...)
	sort.SliceStable(types, func(i, j int) bool { return types[i].Bytes > types[j].Bytes })
	if len(types) == 0 {
		fmt.Fprintln(w, "\nNo allocations recorded.")
		return
	}
	shown := min(n, len(types))
	fmt.Fprintf(w, "\nTop %d of %d types by bytes allocated\n", shown, len(types))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "bytes\tbytes%\tobjects\tobjects%\t"
	if a.Sampled {
		head += "samples\t"
	}
	fmt.Fprintln(tw, head+"  type")
	for _, t := range types[:shown] {
		line := fmt.Sprintf("%s\t%s\t%d\t%s\t", numfmt.Bytes(float64(t.Bytes)), share(t.Bytes, a.Bytes), t.Count, share(t.Count, a.Count))
		if a.Sampled {
			line += fmt.Sprintf("%d\t", t.Samples)
		}
		fmt.Fprintln(tw, line+"  "+t.Name)
	}
	tw.Flush()
}

// allocPath is one allocating path: what its own frame allocated, over
// every thread (and process) where the same path ran.
type allocPath struct {
	frames []string // the allocating frame first
	count  int64
	bytes  int64
	types  map[string]int64 // bytes by type
}

// allocPaths sums what each path's own frame allocated, by path.
func allocPaths(p *profile.Profile) []*allocPath {
	a := p.Allocations
	byKey := map[string]*allocPath{}
	var out []*allocPath
	for ti := range a.Threads {
		t := &a.Threads[ti]
		for i, n := range t.Nodes {
			if len(n.Types) == 0 {
				continue
			}
			frames := t.Path(p, i)
			key := strings.Join(frames, "\x00")
			ap := byKey[key]
			if ap == nil {
				ap = &allocPath{frames: frames, types: map[string]int64{}}
				byKey[key] = ap
				out = append(out, ap)
			}
			for _, s := range n.Types {
				ap.count += s.Count
				ap.bytes += s.Bytes
				ap.types[a.Types[s.Type].Name] += s.Bytes
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].bytes > out[j].bytes })
	return out
}

// pathText is a path as a row names it: its allocating frame first, then
// its callers, "← … N more" past allocPathFrames.
func pathText(frames []string) string {
	if len(frames) <= allocPathFrames {
		return strings.Join(frames, " ← ")
	}
	return strings.Join(frames[:allocPathFrames], " ← ") + fmt.Sprintf(" ← … %d more", len(frames)-allocPathFrames)
}

// typesText names a path's heaviest types with their share of its bytes:
// "System.String 68.4%, System.Object[] 16.1%, +34 more" (at most two
// named), or the one type it allocated.
func typesText(types map[string]int64, total int64) string {
	if len(types) == 1 {
		for n := range types {
			return n
		}
	}
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if types[names[i]] != types[names[j]] {
			return types[names[i]] > types[names[j]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for i, n := range names {
		if i == 2 {
			parts = append(parts, fmt.Sprintf("+%d more", len(names)-2))
			break
		}
		parts = append(parts, n+" "+share(types[n], total))
	}
	return strings.Join(parts, ", ")
}

// writeAllocPaths tables the paths whose own frame allocated the most bytes.
func writeAllocPaths(w io.Writer, p *profile.Profile, n int) {
	paths := allocPaths(p)
	if len(paths) == 0 {
		return
	}
	total := p.Allocations.Bytes
	shown := min(n, len(paths))
	fmt.Fprintf(w, "\nTop %d of %d allocating paths by bytes (the allocating frame first, then its callers)\n", shown, len(paths))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "bytes\tbytes%\tobjects\t  path [types]")
	for _, ap := range paths[:shown] {
		fmt.Fprintf(tw, "%s\t%s\t%d\t  %s [%s]\n", numfmt.Bytes(float64(ap.bytes)), share(ap.bytes, total), ap.count, pathText(ap.frames), typesText(ap.types, ap.bytes))
	}
	tw.Flush()
}

// writeGC writes the profile's garbage collections: the totals by
// generation, the induced ones and the pause, then each collection up to
// maxGCRows.
func writeGC(w io.Writer, g *profile.GC) {
	if g == nil {
		return
	}
	fmt.Fprintf(w, "\nGarbage collections: %d (gen0 %d, gen1 %d, gen2 %d), %d induced (GC.Collect), pause %s in all\n",
		g.Count, g.Generation[0], g.Generation[1], g.Generation[2], g.Induced, numfmt.Duration(float64(g.PauseNs)))
	if len(g.Collections) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tgeneration\tpause\t  reason")
	for i, c := range g.Collections[:min(maxGCRows, len(g.Collections))] {
		fmt.Fprintf(tw, "%d\t%d\t%s\t  %s\n", i+1, c.Generation, numfmt.Duration(float64(c.PauseNs)), c.Reason)
	}
	tw.Flush()
	if more := g.Count - int64(min(maxGCRows, len(g.Collections))); more > 0 {
		fmt.Fprintf(w, "… %d more (in profile.json's gc.collections", more)
		if g.Dropped > 0 {
			fmt.Fprintf(w, ", of which %d were counted and not listed", g.Dropped)
		}
		fmt.Fprintln(w, ")")
	}
}
