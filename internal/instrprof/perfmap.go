package instrprof

import (
	"bufio"
	"os"
	"sort"
	"strconv"
	"strings"
)

// PerfMap is a process's map of JIT-compiled code, as the .NET runtime
// writes it with DOTNET_PerfMapEnabled (/tmp/perf-<pid>.map, or under
// DOTNET_PerfMapJitDumpPath): "<start hex> <size hex> <name>" a line.
type PerfMap struct {
	entries []perfEntry // by start
}

type perfEntry struct {
	start, end uint64
	name       string
}

// ReadPerfMap reads a perf map file.
func ReadPerfMap(path string) (*PerfMap, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pm := &PerfMap{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		a, rest, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		s, name, ok := strings.Cut(rest, " ")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(strings.TrimPrefix(a, "0x"), 16, 64)
		size, err2 := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
		if err1 != nil || err2 != nil || size == 0 {
			continue
		}
		pm.entries = append(pm.entries, perfEntry{start, start + size, MethodName(name)})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	// A method compiled again (tier 0, then tier 1) has an entry for each
	// body; later entries of one address replace none: bodies do not overlap.
	sort.SliceStable(pm.entries, func(i, j int) bool { return pm.entries[i].start < pm.entries[j].start })
	return pm, nil
}

// Lookup is the method whose code holds addr; none in a nil map.
func (pm *PerfMap) Lookup(addr uint64) (string, bool) {
	if pm == nil {
		return "", false
	}
	i := sort.Search(len(pm.entries), func(i int) bool { return pm.entries[i].start > addr }) - 1
	if i >= 0 && addr < pm.entries[i].end {
		return pm.entries[i].name, true
	}
	return "", false
}

// MethodName turns a perf map's method, "int32 [Fibonacci]
// Vbench.Fibonacci.Program::Fib(int32)[Optimized]", into the name vbench's
// profiles give it, "Vbench.Fibonacci.Program.Fib". Stubs and other
// entries that are not methods ("stub<1> AllocateTemporaryEntryPoints")
// keep their text.
func MethodName(s string) string {
	// The return type and the module come first: the method is the word
	// holding "::".
	i := strings.Index(s, "::")
	if i < 0 {
		return s
	}
	start := strings.LastIndexByte(s[:i], ' ') + 1
	if m := strings.Index(s[:i], "] "); m >= 0 { // after "[Module] ": a generic type's "[T]" is not it
		start = m + 2
	}
	end := strings.IndexByte(s[i:], '(')
	if end < 0 {
		end = len(s) - i
	}
	return s[start:i] + "." + s[i+2:i+end]
}
