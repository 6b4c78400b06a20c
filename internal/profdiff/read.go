package profdiff

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	pprof "github.com/google/pprof/profile"

	"vbench/internal/foreignprof"
	"vbench/internal/profile"
)

// RunsDir is the directory, inside a profile directory vbench run keeps
// (profiles/<workload>/<mode>), holding every measured run's profiles:
// runs/<seq>/, each a profile directory of that run's processes.
const RunsDir = "runs"

// Input is one side of `vbench diff` read from disk.
type Input struct {
	Side   *Side
	Paths  *Paths
	Allocs *Allocs // allocation profiles' objects by type and path; nil for others
	// What was read, for messages: "3 runs of profiles/fib/tracing",
	// "profile.json (pid 4242)".
	About string
}

// Read reads one side: a profile directory as vbench run keeps them (every
// measured run under runs/, each a run), a profile directory of one run's
// processes or a profile.json (one run), or a pprof file (profile.pb.gz,
// one run), or another tool's profile file (foreignprof.Formats; a nettrace
// read by nettrace), one run. In a profile directory of several processes,
// processes picks those whose command line matches (nil: all); a run's
// chosen processes are merged.
func Read(path string, processes *regexp.Regexp, nettrace foreignprof.NettraceReader) (*Input, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	in := &Input{Side: &Side{}, Paths: NewPaths()}
	if fi.IsDir() {
		runs := filepath.Join(path, RunsDir)
		if seqs, err := runDirs(runs); err != nil {
			return nil, err
		} else if len(seqs) > 0 {
			for _, s := range seqs {
				if err := in.addTree(filepath.Join(runs, s), processes); err != nil {
					return nil, err
				}
			}
			in.About = fmt.Sprintf("%d %s of %s", len(seqs), plural(len(seqs), "run", "runs"), path)
			return in, nil
		}
	} else if isPprof(path) {
		if processes != nil {
			return nil, fmt.Errorf("%s: a pprof file does not record command lines; --processes applies to profile directories", path)
		}
		if err := in.addPprof(path); err != nil {
			return nil, err
		}
		in.About = path + " (pprof)"
		return in, nil
	} else if format, ok := foreignprof.Detect(path); ok {
		if processes != nil {
			return nil, fmt.Errorf("%s: a %s file is one profile; --processes applies to profile directories", path, format)
		}
		p, _, err := foreignprof.ReadFile(path, nettrace)
		if err != nil {
			return nil, err
		}
		if err := in.addProfile(path, p); err != nil {
			return nil, err
		}
		in.About = fmt.Sprintf("%s (%s)", path, format)
		return in, nil
	}
	if err := in.addTree(path, processes); err != nil {
		return nil, err
	}
	in.About = path
	return in, nil
}

// runDirs lists the run directories under dir (names are run numbers), in
// run order; none when dir does not exist.
func runDirs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var seqs []int
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && e.IsDir() {
			seqs = append(seqs, n)
		}
	}
	sort.Ints(seqs)
	out := make([]string, len(seqs))
	for i, n := range seqs {
		out[i] = strconv.Itoa(n)
	}
	return out, nil
}

// addTree adds one run: the profile directory (or profile.json) at path,
// its chosen processes merged.
func (in *Input) addTree(path string, processes *regexp.Regexp) error {
	t, err := profile.ReadTree(path)
	if err != nil {
		return err
	}
	if processes != nil {
		kept := *t
		kept.Processes, kept.Paths = nil, nil
		for i, p := range t.Processes {
			if processes.MatchString(p.Process().CommandLine()) {
				kept.Processes = append(kept.Processes, p)
				kept.Paths = append(kept.Paths, t.Paths[i])
			}
		}
		if len(kept.Processes) == 0 {
			return fmt.Errorf("%s: no process's command line matches --processes %q (%s)", path, processes, commandLines(t))
		}
		t = &kept
	}
	if len(t.Processes) == 0 {
		return fmt.Errorf("%s: no process wrote its profile", path)
	}
	return in.addProfile(path, t.Merge())
}

// addProfile adds one run's profile, read from path.
func (in *Input) addProfile(path string, p *profile.Profile) error {
	if p.Allocations != nil {
		if in.Allocs == nil {
			in.Allocs = &Allocs{}
		}
		if err := in.Allocs.AddAllocs(p); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := in.Side.Add(p); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	in.Paths.AddProfile(p)
	in.Paths.Runs++
	return nil
}

func commandLines(t *profile.Tree) string {
	var b bytes.Buffer
	for i, p := range t.Processes {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Process().String())
	}
	return b.String()
}

// isPprof reports whether path holds a gzipped protocol buffer (pprof's
// format) rather than JSON.
func isPprof(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [2]byte
	n, _ := f.Read(magic[:])
	return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b
}

// addPprof adds a pprof file as one run: its "samples" values when it has
// them (a sampling profile: unit Share), else its nanoseconds values (a
// tracing profile's wall time, or any pprof CPU profile). A function's self
// weight is its samples' as the innermost frame, its inclusive weight its
// samples' anywhere on the stack, once per sample.
func (in *Input) addPprof(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	p, err := pprof.Parse(f)
	if err != nil {
		return fmt.Errorf("%s: not a pprof profile: %w", path, err)
	}
	idx, unit, callsIdx := -1, Nanoseconds, -1
	for i, st := range p.SampleType {
		if st.Type == "samples" {
			idx, unit = i, Share
			break
		}
		if st.Type == "instructions" { // vbench's instruction profiles (instrprof)
			idx, unit = i, Instructions
			continue
		}
		if st.Type == "calls" {
			callsIdx = i
			continue
		}
		if st.Unit == "nanoseconds" {
			idx = i
		}
	}
	if idx < 0 {
		return fmt.Errorf("%s: no sample type counts samples, nanoseconds or instructions (types: %v)", path, p.SampleType)
	}
	fns, paths := map[string]Weight{}, map[string]Weight{}
	var calls map[string]int64 // an instruction profile's calls, a function's on its leaf samples
	if callsIdx >= 0 && unit == Instructions {
		calls = map[string]int64{}
	}
	var total int64
	var stack []string
	seen := map[string]bool{}
	for _, s := range p.Sample {
		v := s.Value[idx]
		if calls != nil && len(s.Location) > 0 && len(s.Location[0].Line) > 0 && s.Location[0].Line[0].Function != nil {
			calls[s.Location[0].Line[0].Function.Name] += s.Value[callsIdx]
		}
		if v == 0 {
			continue
		}
		stack = stack[:0]
		for li := len(s.Location) - 1; li >= 0; li-- { // root first
			loc := s.Location[li]
			for k := len(loc.Line) - 1; k >= 0; k-- { // inlined callers first
				if fn := loc.Line[k].Function; fn != nil {
					stack = append(stack, fn.Name)
				}
			}
			if len(loc.Line) == 0 {
				stack = append(stack, fmt.Sprintf("0x%x", loc.Address))
			}
		}
		if len(stack) == 0 {
			continue
		}
		clear(seen)
		for i, name := range stack {
			w := fns[name]
			if !seen[name] {
				w.Incl += v
				seen[name] = true
			}
			if i == len(stack)-1 {
				w.Self += v
			}
			fns[name] = w
		}
		total += v
		in.Paths.AddStack(stack, v)
		for i := range stack { // every prefix of the stack is a path it passes through
			k := pathKey(stack[:i+1])
			w := paths[k]
			w.Incl += v
			if i == len(stack)-1 {
				w.Self += v
			}
			paths[k] = w
		}
	}
	in.Paths.Runs++
	if unit == Instructions {
		return in.Side.AddCounted(total, fns, calls, paths, nil)
	}
	if err := in.Side.AddRun(unit, total, fns); err != nil {
		return err
	}
	in.Side.setPaths(paths)
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
