package foreignprof

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// perf script's text (`perf script`, its default fields or -F with tid and
// time): each sample is a header line ("comm tid time: period event:") and
// its frames, one an indented line each, leaf first ("addr sym+off (dso)"),
// then a blank line. JIT-compiled frames are named from the runtime's perf
// map (/tmp/perf-PID.map, DOTNET_PerfMapEnabled): "int32 [Module]
// Ns.Type::Method(int32)[Optimized]"; everything else is native code
// (the runtime, libc, the kernel), which vbench's own profiles leave out
// too: a sample keeps its managed frames, and one with none counts as a
// sample taken but has no stack.

// perfHeader finds a header's thread and time: "tid time:" or
// "pid/tid time:", after a command name that may hold spaces.
var perfHeader = regexp.MustCompile(`(?:^|\s)(?:\d+/)?(\d+)\s+(?:\[\d+\]\s+)?(\d+\.\d+):`)

// perfOffset is the "+0x1f" perf script puts after a symbol.
var perfOffset = regexp.MustCompile(`\+0x[0-9a-f]+$`)

// perfScript is what one file of perf script text holds.
type perfScript struct {
	stacks   []Stack
	native   int64 // samples without a managed frame
	spanNs   int64 // first sample to last
	nSamples int64
}

// perfScriptStacks reads a perf script text file into weighted stacks
// (each sample counts 1, as every sample is one interval of CPU at a fixed
// frequency), the samples with no managed frame, and the time from the
// first sample to the last.
func perfScriptStacks(path string) (perfScript, error) {
	var out perfScript
	f, err := os.Open(path)
	if err != nil {
		return out, err
	}
	defer f.Close()
	type key struct {
		tid    int
		frames string
	}
	counts := map[key]int64{}
	var order []key
	var first, last float64
	tid := -1
	var frames []string      // leaf first
	lineNo, seen := 0, false // seen: a header read, first and last set
	flush := func() {
		if tid < 0 {
			return
		}
		out.nSamples++
		if len(frames) == 0 {
			out.native++
		} else {
			slices.Reverse(frames)
			k := key{tid, strings.Join(frames, "\x00")}
			if counts[k] == 0 {
				order = append(order, k)
			}
			counts[k]++
		}
		tid, frames = -1, frames[:0]
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case line[0] == ' ' || line[0] == '\t':
			if tid < 0 {
				return out, fmt.Errorf("%s:%d: a frame line outside a sample (no header line before it): not perf script output", path, lineNo)
			}
			if name, ok := perfManagedFrame(line); ok {
				frames = append(frames, name)
			}
		default:
			flush()
			m := perfHeader.FindStringSubmatch(line)
			if m == nil {
				return out, fmt.Errorf("%s:%d: %q is no sample header (\"comm tid time: …\"): perf script needs its tid and time fields", path, lineNo, line)
			}
			tid, _ = strconv.Atoi(m[1])
			t, _ := strconv.ParseFloat(m[2], 64)
			if !seen || t < first {
				first = t
			}
			if !seen || t > last {
				last = t
			}
			seen = true
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%s: %v", path, err)
	}
	flush()
	if out.nSamples == 0 {
		return out, fmt.Errorf("%s: no samples (an empty perf script output: did perf record the program?)", path)
	}
	for _, k := range order {
		out.stacks = append(out.stacks, Stack{Thread: k.tid, Count: counts[k], Frames: strings.Split(k.frames, "\x00")})
	}
	out.spanNs = int64(math.Round((last - first) * 1e9))
	return out, nil
}

// perfManagedFrame is a frame line's function when it is JIT-compiled code
// named by the runtime's perf map (or jitdump), as vbench names functions
// (Ns.Type.Method); ok is false for native code and the runtime's stubs.
func perfManagedFrame(line string) (string, bool) {
	rest := strings.TrimSpace(line)
	_, rest, _ = strings.Cut(rest, " ") // the address
	rest = strings.TrimSpace(rest)
	sym, dso := rest, ""
	if i := strings.LastIndex(rest, " ("); i >= 0 && strings.HasSuffix(rest, ")") {
		sym, dso = rest[:i], rest[i+2:len(rest)-1]
	}
	base := filepath.Base(dso)
	jitted := strings.HasPrefix(base, "perf-") && strings.HasSuffix(base, ".map") || strings.HasPrefix(base, "jitted-")
	if !jitted || strings.HasPrefix(sym, "stub ") || sym == "[unknown]" {
		return "", false
	}
	sym = perfOffset.ReplaceAllString(sym, "")
	i := strings.Index(sym, "::")
	if i < 0 {
		return "", false
	}
	// The module ("[Fibonacci] ") is the last "] " before the type: a
	// return type may hold brackets ("string[]"), a generic type's
	// instantiation closes with "]::", never "] ".
	typ := sym[:i]
	if j := strings.LastIndex(typ, "] "); j >= 0 {
		typ = typ[j+2:]
	} else if j := strings.LastIndexByte(typ, ' '); j >= 0 {
		typ = typ[j+1:]
	}
	return Name(typ + "." + sym[i+2:]), true
}
