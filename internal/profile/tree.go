package profile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"vbench/internal/atomicfile"
	"vbench/internal/jsonpos"
	"vbench/internal/modes"
)

// Process trees. Every .NET process started with the profiling environment
// loads the profiler (`dotnet test` is the SDK's process, then a test host;
// an application may start workers), so each writes into a directory of its
// own under VBENCH_PROFILE_DIR, named by its pid:
//
//	DIR/<pid>/started.json   when the profiler has started in the process
//	DIR/<pid>/profile.pb.gz  at exit, first
//	DIR/<pid>/profile.json   at exit, last: its presence means both are there
//
// A process directory with started.json and no profile.json is a process
// that never wrote its profile: killed, crashed, or still running. vbench
// before process trees wrote DIR/profile.json itself; such a directory (and a
// single profile.json file) still reads as a tree of one process.

// StartedFile is the marker a process writes when the profiler starts in it.
const StartedFile = "started.json"

// Process identifies one profiled process. started.json holds it; a profile
// repeats it (Profile.Process).
type Process struct {
	PID            int          `json:"pid"`
	ParentPID      int          `json:"parent_pid"`
	Command        []string     `json:"command,omitempty"`
	Mode           modes.Engine `json:"mode"`
	RuntimeVersion string       `json:"runtime_version,omitempty"`
	Start          time.Time    `json:"start"`
}

// CommandLine is the command line as one string, arguments joined by spaces:
// what `vbench profile --processes` matches and messages quote.
func (pr Process) CommandLine() string { return strings.Join(pr.Command, " ") }

// String names the process in messages: "pid 4242 (dotnet child.dll)".
func (pr Process) String() string {
	if len(pr.Command) == 0 {
		return "pid " + strconv.Itoa(pr.PID)
	}
	cmd := pr.CommandLine()
	if len(cmd) > 120 {
		cmd = cmd[:117] + "..."
	}
	return fmt.Sprintf("pid %d (%s)", pr.PID, cmd)
}

// Process returns the identity of the process p profiled.
func (p *Profile) Process() Process {
	return Process{PID: p.PID, ParentPID: p.ParentPID, Command: p.Command, Mode: p.Mode, RuntimeVersion: p.RuntimeVersion, Start: p.Start}
}

// NewProcessDir makes process pid's directory under dir: dir/<pid>, or
// dir/<pid>-2, -3, ... when that pid already has one (the pid was reused, or
// a process exec'd another .NET program). Mkdir is exclusive, so no two
// processes ever write into the same directory.
func NewProcessDir(dir string, pid int) (string, error) {
	for n := 1; n <= 100; n++ {
		name := strconv.Itoa(pid)
		if n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		path := filepath.Join(dir, name)
		err := os.Mkdir(path, 0o755)
		if err == nil {
			return path, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s already holds 100 directories for pid %d", dir, pid)
}

// WriteStarted writes pr as procDir's started.json, atomically.
func WriteStarted(procDir string, pr Process) error {
	return atomicfile.Write(filepath.Join(procDir, StartedFile), 0o666, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(pr)
	})
}

func readStarted(path string) (Process, error) {
	var pr Process
	data, err := os.ReadFile(path)
	if err != nil {
		return pr, err
	}
	if err := strictUnmarshal(data, &pr); err != nil {
		return pr, jsonpos.Error(path, data, err)
	}
	return pr, nil
}

// Tree is what a profile directory holds: the profiles of the processes that
// wrote one, and the processes that started and wrote none.
type Tree struct {
	Dir       string     // the path read
	Processes []*Profile // by start time, then pid
	Paths     []string   // each process's profile.json, in the order of Processes
	Missing   []Missing  // by start time, then pid
}

// Missing is a process that started profiling and wrote no profile.
type Missing struct {
	Process
	Dir   string // its directory
	Ended *Ended // how it ended, when `vbench profile` saw it (its own child)
}

// EndedFile is how a process that wrote no profile ended, written into its
// directory by `vbench profile` (which waited for it, so knows its exit
// status), so that `vbench report DIR` can say it too.
const EndedFile = "ended.json"

// Ended is EndedFile's content: the exit code (128+n: killed by signal n).
type Ended struct {
	ExitCode int `json:"exit_code"`
}

// String says how the process ended: "died of signal 11 (segmentation
// fault)", "exited with code 3".
func (e Ended) String() string {
	if e.ExitCode > 128 && e.ExitCode < 128+65 {
		return fmt.Sprintf("died of signal %d (%v)", e.ExitCode-128, syscall.Signal(e.ExitCode-128))
	}
	return fmt.Sprintf("exited with code %d", e.ExitCode)
}

// WriteEnded records how the process whose directory is procDir ended.
func WriteEnded(procDir string, e Ended) error {
	return atomicfile.Write(filepath.Join(procDir, EndedFile), 0o666, func(w io.Writer) error {
		return json.NewEncoder(w).Encode(e)
	})
}

func readEnded(procDir string) *Ended {
	data, err := os.ReadFile(filepath.Join(procDir, EndedFile))
	var e Ended
	if err != nil || strictUnmarshal(data, &e) != nil {
		return nil
	}
	return &e
}

// NoProfileError is ReadTree's error for a directory without any profile.
// It matches fs.ErrNotExist.
type NoProfileError struct{ Dir string }

func (e *NoProfileError) Error() string {
	return fmt.Sprintf("%s holds no profile: no %s and no process directories (<pid>/%s)", e.Dir, JSONFile, StartedFile)
}

func (e *NoProfileError) Is(target error) bool { return target == fs.ErrNotExist }

// ReadTree reads a profile.json file, a directory holding one (a tree of one
// process), or a profile directory of per-process directories. Every profile
// read is validated; errors name the file. All processes must have run the
// same engine: a directory mixing them holds more than one run.
func ReadTree(path string) (*Tree, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() || present(filepath.Join(path, JSONFile)) {
		file := path
		if fi.IsDir() {
			file = filepath.Join(path, JSONFile)
		}
		p, err := readJSON(file)
		if err != nil {
			return nil, err
		}
		return &Tree{Dir: path, Processes: []*Profile{p}, Paths: []string{file}}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	t := &Tree{Dir: path}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(path, e.Name())
		if file := filepath.Join(sub, JSONFile); present(file) {
			p, err := readJSON(file)
			if err != nil {
				return nil, err
			}
			t.Processes = append(t.Processes, p)
			t.Paths = append(t.Paths, file)
		} else if started := filepath.Join(sub, StartedFile); present(started) {
			pr, err := readStarted(started)
			if err != nil {
				return nil, err
			}
			t.Missing = append(t.Missing, Missing{pr, sub, readEnded(sub)})
		}
	}
	if len(t.Processes)+len(t.Missing) == 0 {
		return nil, &NoProfileError{path}
	}
	sort.Sort(byStart{t})
	sort.SliceStable(t.Missing, func(i, j int) bool { return earlier(t.Missing[i].Process, t.Missing[j].Process) })
	if err := t.checkOneMode(); err != nil {
		return nil, err
	}
	return t, nil
}

// present reports whether path exists, or cannot be told not to (a
// permission error then surfaces when it is read).
func present(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

func earlier(a, b Process) bool {
	if !a.Start.Equal(b.Start) {
		return a.Start.Before(b.Start)
	}
	return a.PID < b.PID
}

// byStart sorts a tree's processes and their paths together.
type byStart struct{ t *Tree }

func (s byStart) Len() int { return len(s.t.Processes) }
func (s byStart) Less(i, j int) bool {
	return earlier(s.t.Processes[i].Process(), s.t.Processes[j].Process())
}
func (s byStart) Swap(i, j int) {
	s.t.Processes[i], s.t.Processes[j] = s.t.Processes[j], s.t.Processes[i]
	s.t.Paths[i], s.t.Paths[j] = s.t.Paths[j], s.t.Paths[i]
}

func (t *Tree) checkOneMode() error {
	var all []Process
	for _, p := range t.Processes {
		all = append(all, p.Process())
	}
	for _, m := range t.Missing {
		all = append(all, m.Process)
	}
	for _, pr := range all[1:] {
		if pr.Mode != all[0].Mode {
			return fmt.Errorf("%s mixes profiling modes (pid %d: %s, pid %d: %s): it holds more than one run's profiles",
				t.Dir, all[0].PID, all[0].Mode, pr.PID, pr.Mode)
		}
	}
	return nil
}

// Mode is the engine every process of the tree ran.
func (t *Tree) Mode() modes.Engine {
	if len(t.Processes) > 0 {
		return t.Processes[0].Mode
	}
	return t.Missing[0].Mode
}

// Find returns the profile of process pid and its profile.json's path.
func (t *Tree) Find(pid int) (*Profile, string, error) {
	var pids []string
	for i, p := range t.Processes {
		if p.PID == pid {
			return p, t.Paths[i], nil
		}
		pids = append(pids, strconv.Itoa(p.PID))
	}
	for _, m := range t.Missing {
		if m.PID == pid {
			return nil, "", fmt.Errorf("%s: %v started and wrote no profile", t.Dir, m.Process)
		}
	}
	return nil, "", fmt.Errorf("%s: no process with pid %d (the profiles are of pids %s)", t.Dir, pid, strings.Join(pids, ", "))
}

// readOnlyProcess reads the one profile of a profile directory, for readers
// of a single profile.
func readOnlyProcess(dir string) (*Profile, error) {
	t, err := ReadTree(dir)
	if err != nil {
		return nil, err
	}
	if len(t.Missing) > 0 {
		return nil, fmt.Errorf("%s: %v started and wrote no profile", dir, t.Missing[0].Process)
	}
	if len(t.Processes) > 1 {
		return nil, fmt.Errorf("%s holds the profiles of %d processes (pids %s), not one", dir, len(t.Processes), t.pids())
	}
	return t.Processes[0], nil
}

func (t *Tree) pids() string {
	var s []string
	for _, p := range t.Processes {
		s = append(s, strconv.Itoa(p.PID))
	}
	return strings.Join(s, ", ")
}

// Merge returns one profile of the whole tree: every process's threads (each
// Thread.PID set), functions of the same name and module in different
// processes as one row, the table derived again. Its identity (PID, command,
// parent) is the first process's; start and end span all of them; samples
// add up; warnings are prefixed with their pid. Allocation profiles' types
// add up by name and each thread's allocation tree is kept (AllocTree.PID
// set); their collections are listed in process order, the totals summed. A tree of one process is
// merged into that process's own profile, unchanged.
func (t *Tree) Merge() *Profile {
	if len(t.Processes) == 0 {
		return nil
	}
	if len(t.Processes) == 1 {
		return t.Processes[0]
	}
	if f := t.Processes[0].Focus; f != nil {
		// Merged whole, then focused: the merged functions' callers outside
		// the focus stay theirs.
		whole := *t
		whole.Processes = make([]*Profile, len(t.Processes))
		for i, p := range t.Processes {
			whole.Processes[i] = p.Whole
		}
		return whole.Merge().Focused(f)
	}
	first := t.Processes[0]
	m := &Profile{Schema: SchemaVersion, Mode: first.Mode, RuntimeVersion: first.RuntimeVersion,
		PID: first.PID, ParentPID: first.ParentPID, Command: first.Command, Start: first.Start, End: first.End,
		IntervalNs: first.IntervalNs, TimeSample: first.TimeSample, Include: first.Include, Exclude: first.Exclude,
		Complete: true, Functions: []Function{}, Threads: []Thread{}}
	index := map[[2]string]int{}
	typeIndex := map[string]int{}
	for _, p := range t.Processes {
		if p.End.After(m.End) {
			m.End = p.End
		}
		m.Samples += p.Samples
		m.Complete = m.Complete && p.Complete
		// The kernel's figures of the processes that marked one: the
		// others' samples are none of the measured part.
		m.KernelMarked = m.KernelMarked || p.KernelMarked
		for _, w := range p.Warnings {
			m.Warnings = append(m.Warnings, fmt.Sprintf("pid %d: %s", p.PID, w))
		}
		remap := make([]int, len(p.Functions))
		for i, f := range p.Functions {
			k := [2]string{f.Name, f.Module}
			j, ok := index[k]
			if !ok {
				j = len(m.Functions)
				index[k] = j
				m.Functions = append(m.Functions, Function{ID: j, Name: f.Name, Module: f.Module, Assembly: f.Assembly, Callers: []Caller{},
					Token: f.Token, ModulePath: f.ModulePath, File: f.File, Line: f.Line})
			}
			remap[i] = j
		}
		for _, bc := range p.Blocks {
			bc.Fn = remap[bc.Fn]
			m.Blocks = append(m.Blocks, bc)
		}
		for _, e := range p.Executions {
			e.Fn = remap[e.Fn]
			m.Executions = append(m.Executions, e)
		}
		for _, th := range p.Threads {
			flat := Flatten(th.Roots)
			for i := range flat {
				flat[i].Fn = remap[flat[i].Fn]
			}
			roots, _ := Unflatten(flat) // Flatten's order is always valid
			m.Threads = append(m.Threads, Thread{OSID: th.OSID, ManagedID: th.ManagedID, CPUNs: th.CPUNs,
				Samples: th.Samples, Roots: roots, PID: p.PID})
		}
		if p.Allocations != nil {
			if m.Allocations == nil {
				m.Allocations = &Allocations{Types: []AllocType{}, Threads: []AllocTree{}}
			}
			mergeAllocations(m.Allocations, p, remap, typeIndex)
		}
		if p.GC != nil {
			if m.GC == nil {
				m.GC = &GC{Collections: []GCEvent{}}
			}
			mergeGC(m.GC, p.GC)
		}
	}
	if m.Allocations != nil {
		m.Allocations.SortTypes()
	}
	m.DurationNs = m.End.Sub(m.Start).Nanoseconds()
	m.FoldedBy = first.FoldedBy
	m.Derive()
	return m
}

// WritePprofFile writes the whole tree's pprof profile to path, atomically:
// for one process a copy of its own profile.pb.gz, for several the merged
// profile (every sample labelled with its pid).
func (t *Tree) WritePprofFile(path string) error {
	if len(t.Processes) == 1 {
		if b, err := os.ReadFile(filepath.Join(filepath.Dir(t.Paths[0]), PprofFile)); err == nil {
			return atomicfile.WriteFile(path, b, 0o666)
		}
	}
	m := t.Merge()
	if m == nil {
		return errors.New("no process wrote a profile")
	}
	return atomicfile.Write(path, 0o666, m.WritePprof)
}

// Entries lists what in dir belongs to profiles: profile.json and
// profile.pb.gz, and process directories (holding started.json or
// profile.json). A directory about to receive a new run's profiles must have
// none, or two runs would mix.
func Entries(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case !e.IsDir() && (e.Name() == JSONFile || e.Name() == PprofFile):
			out = append(out, path)
		case e.IsDir() && (present(filepath.Join(path, StartedFile)) || present(filepath.Join(path, JSONFile))):
			out = append(out, path+string(filepath.Separator))
		}
	}
	return out, nil
}

// RunDir returns the directory a profiled run's processes write into: out
// (created if needed), or a new temporary directory when out is "", after
// checking that a file can be created in it. An out that already holds
// profiles (Entries) is refused: the new run's processes would be read
// together with the old run's. So is an out another run is filling (it
// holds out's lock, which unlock releases once the profiles are read).
// Errors name out as flag (e.g. "--out").
func RunDir(flag, out string) (dir string, unlock func(), err error) {
	if out == "" {
		dir, err := os.MkdirTemp("", "vbench-profile-")
		return dir, func() {}, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", nil, fmt.Errorf("%s %s: %v", flag, out, err)
	}
	release, err := atomicfile.TryLock(out)
	if errors.Is(err, atomicfile.ErrLocked) {
		return "", nil, fmt.Errorf("%s %s: another vbench profile is writing its profiles there: wait for it to end, or choose another directory", flag, out)
	}
	if err != nil {
		return "", nil, fmt.Errorf("%s %s: %v", flag, out, err)
	}
	defer func() {
		if err != nil {
			release()
		}
	}()
	old, err := Entries(out)
	if err != nil {
		return "", nil, fmt.Errorf("%s %s: %v", flag, out, err)
	}
	if len(old) > 0 {
		if len(old) > 3 {
			old = append(old[:3], "...")
		}
		return "", nil, fmt.Errorf("%s %s already holds profiles (%s): vbench does not mix two runs' profiles; remove them or choose another directory",
			flag, out, strings.Join(old, ", "))
	}
	probe, err := os.CreateTemp(out, ".vbench-probe-*")
	if err != nil {
		return "", nil, fmt.Errorf("%s %s is not writable: %v", flag, out, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return out, release, nil
}
