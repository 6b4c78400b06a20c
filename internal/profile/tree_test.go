package profile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vbench/internal/testbin"
)

// process writes one process's directory the way the profiler does: its
// directory, started.json, then the profile (pprof first, profile.json last).
func writeProcess(t *testing.T, dir string, p *Profile, write bool) string {
	t.Helper()
	pd, err := NewProcessDir(dir, p.PID)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteStarted(pd, p.Process()); err != nil {
		t.Fatal(err)
	}
	if write {
		if err := WriteDir(pd, p); err != nil {
			t.Fatal(err)
		}
	}
	return pd
}

// procSample is sample() as process pid, started at offset seconds.
func procSample(pid, ppid int, offset int, cmd ...string) *Profile {
	p := sample()
	p.PID, p.ParentPID, p.Command = pid, ppid, cmd
	p.Start = p.Start.Add(time.Duration(offset) * time.Second)
	p.DurationNs = int64(10 * time.Second)
	p.End = p.Start.Add(10 * time.Second)
	p.Complete = true
	return p
}

func TestTreeReadAndMerge(t *testing.T) {
	dir := t.TempDir()
	child := procSample(300, 100, 1, "dotnet", "child.dll")
	child.Functions[2].Module = "Child.dll" // Log in another module: its own row when merged
	child.Warnings = []string{"the call-tree arena ran out"}
	writeProcess(t, dir, child, true)
	writeProcess(t, dir, procSample(100, 1, 0, "dotnet", "parent.dll"), true)
	killed := writeProcess(t, dir, procSample(200, 100, 2, "dotnet", "killed.dll"), false)
	os.Mkdir(filepath.Join(dir, "notes"), 0o755) // not a process directory: ignored
	os.WriteFile(filepath.Join(dir, "notes", "x.txt"), []byte("x"), 0o644)

	tr, err := ReadTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Processes) != 2 || tr.Processes[0].PID != 100 || tr.Processes[1].PID != 300 {
		t.Fatalf("processes %v, want pids 100 then 300 (by start)", tr.pids())
	}
	if tr.Paths[1] != filepath.Join(dir, "300", JSONFile) || tr.Processes[1].ParentPID != 100 {
		t.Errorf("child read from %s with parent %d", tr.Paths[1], tr.Processes[1].ParentPID)
	}
	if len(tr.Missing) != 1 || tr.Missing[0].PID != 200 || tr.Missing[0].Dir != killed ||
		tr.Missing[0].String() != "pid 200 (dotnet killed.dll)" {
		t.Fatalf("missing %+v", tr.Missing)
	}
	if tr.Mode() != "tracing" {
		t.Errorf("mode %s", tr.Mode())
	}

	m := tr.Merge()
	if m.PID != 100 || len(m.Threads) != 4 || m.Threads[0].PID != 100 || m.Threads[3].PID != 300 {
		t.Fatalf("merged: pid %d, %d threads", m.PID, len(m.Threads))
	}
	// sample(): Fib 5 calls, Main 1, Log 8 per process; Log of Child.dll is its own row.
	if f := m.Function("Fib"); f.Calls != 10 || f.InclusiveNs != 200 || f.ExclusiveNs != 190 {
		t.Errorf("merged Fib %+v", f)
	}
	logs := 0
	for _, f := range m.Functions {
		if f.Name == "Log" {
			logs++
			if f.Calls != 8 {
				t.Errorf("Log of %q: %d calls, want 8", f.Module, f.Calls)
			}
		}
	}
	if logs != 2 || len(m.Functions) != 4 {
		t.Errorf("%d Log rows, %d functions; want 2 and 4", logs, len(m.Functions))
	}
	if !m.Start.Equal(tr.Processes[0].Start) || m.DurationNs != int64(11*time.Second) || !m.Complete {
		t.Errorf("merged span %v + %d ns, complete %v", m.Start, m.DurationNs, m.Complete)
	}
	if len(m.Warnings) != 1 || m.Warnings[0] != "pid 300: the call-tree arena ran out" {
		t.Errorf("warnings %q", m.Warnings)
	}
	if err := m.Validate(); err != nil {
		t.Error(err)
	}
	// The processes' own profiles are untouched by the merge.
	if tr.Processes[1].Function("Fib").Calls != 5 || tr.Processes[1].Threads[0].PID != 0 {
		t.Errorf("merging changed a process's profile")
	}

	// pprof of the tree, read back by pprof's own package: every sample
	// carries its pid; per pid the values are that process's.
	pb := filepath.Join(dir, PprofFile)
	if err := tr.WritePprofFile(pb); err != nil {
		t.Fatal(err)
	}
	pp := testbin.ReadPprof(t, pb)
	calls := map[int64]int64{}
	for _, s := range pp.Sample {
		if len(s.NumLabel["pid"]) != 1 || len(s.Label["thread"]) != 1 {
			t.Fatalf("sample labels %v %v", s.Label, s.NumLabel)
		}
		if s.Location[0].Line[0].Function.Name == "Fib" {
			calls[s.NumLabel["pid"][0]] += s.Value[0]
		}
	}
	if calls[100] != 5 || calls[300] != 5 || len(calls) != 2 {
		t.Errorf("Fib calls by pid label: %v", calls)
	}

	if p, path, err := tr.Find(300); err != nil || p.PID != 300 || path != tr.Paths[1] {
		t.Errorf("Find(300): %v %v", path, err)
	}
	if _, _, err := tr.Find(200); err == nil || !strings.Contains(err.Error(), "pid 200 (dotnet killed.dll) started and wrote no profile") {
		t.Errorf("Find(200): %v", err)
	}
	if _, _, err := tr.Find(7); err == nil || !strings.Contains(err.Error(), "no process with pid 7 (the profiles are of pids 100, 300)") {
		t.Errorf("Find(7): %v", err)
	}
	// A single-profile reader is told it is looking at several processes.
	if _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), "started and wrote no profile") {
		t.Errorf("ReadFile of a tree with a missing process: %v", err)
	}
	os.RemoveAll(killed)
	if _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), "holds the profiles of 2 processes (pids 100, 300), not one") {
		t.Errorf("ReadFile of a tree of two: %v", err)
	}
	// ... and reads a process's own directory, or a tree of one, directly.
	if p, err := ReadFile(filepath.Join(dir, "300")); err != nil || p.PID != 300 {
		t.Errorf("ReadFile(dir/300): %v", err)
	}
	os.RemoveAll(filepath.Join(dir, "100"))
	if p, err := ReadFile(dir); err != nil || p.PID != 300 {
		t.Errorf("ReadFile of a tree of one: %v", err)
	}

	entries, err := Entries(dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(entries, " ") != filepath.Join(dir, "300")+"/ "+pb {
		t.Errorf("Entries: %q", entries)
	}
}

// Pid reuse (or an exec of another runtime) never shares a directory.
func TestNewProcessDirIsExclusive(t *testing.T) {
	dir := t.TempDir()
	a, err1 := NewProcessDir(dir, 42)
	b, err2 := NewProcessDir(dir, 42)
	if err1 != nil || err2 != nil || filepath.Base(a) != "42" || filepath.Base(b) != "42-2" {
		t.Fatalf("%s %v, %s %v", a, err1, b, err2)
	}
	if _, err := NewProcessDir(filepath.Join(dir, "nope"), 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("in a missing directory: %v", err)
	}
}

func TestTreeLegacyLayoutAndErrors(t *testing.T) {
	// vbench before process trees: DIR/profile.json itself.
	dir := t.TempDir()
	if err := WriteDir(dir, procSample(77, 1, 0, "dotnet", "app.dll")); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dir, filepath.Join(dir, JSONFile)} {
		tr, err := ReadTree(path)
		if err != nil || len(tr.Processes) != 1 || tr.Processes[0].PID != 77 || tr.Merge() != tr.Processes[0] {
			t.Errorf("ReadTree(%s): %v", path, err)
		}
	}

	empty := t.TempDir()
	_, err := ReadTree(empty)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "holds no profile") {
		t.Errorf("empty directory: %v", err)
	}

	// Two modes in one directory: two runs' profiles, refused.
	mixed := t.TempDir()
	writeProcess(t, mixed, procSample(1, 0, 0), true)
	s := procSample(2, 0, 1)
	s.Mode = "sampling"
	writeProcess(t, mixed, s, false)
	if _, err := ReadTree(mixed); err == nil || !strings.Contains(err.Error(), "mixes profiling modes (pid 1: tracing, pid 2: sampling)") {
		t.Errorf("mixed modes: %v", err)
	}

	// A broken started.json or profile.json is named.
	broken := t.TempDir()
	os.Mkdir(filepath.Join(broken, "5"), 0o755)
	os.WriteFile(filepath.Join(broken, "5", StartedFile), []byte(`{"pid":5,"bogus":1}`), 0o644)
	if _, err := ReadTree(broken); err == nil || !strings.Contains(err.Error(), filepath.Join(broken, "5", StartedFile)) || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("broken started.json: %v", err)
	}
	os.WriteFile(filepath.Join(broken, "5", JSONFile), []byte(`{"schema":3,`), 0o644)
	if _, err := ReadTree(broken); err == nil || !strings.Contains(err.Error(), filepath.Join(broken, "5", JSONFile)) {
		t.Errorf("broken profile.json: %v", err)
	}
}

// A schema 2 profile (no parent_pid, no end) reads as the current schema
// with its end time computed; a schema 3 one (no allocations, no gc) as it is.
func TestReadSchema2(t *testing.T) {
	p := procSample(9, 0, 0)
	var buf bytes.Buffer
	if err := p.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if q, err := Decode(strings.NewReader(strings.Replace(buf.String(), fmt.Sprintf(`"schema":%d,`, SchemaVersion), `"schema":3,`, 1))); err != nil || q.Schema != SchemaVersion {
		t.Fatalf("a schema 3 profile: %v", err)
	}
	s := strings.Replace(buf.String(), fmt.Sprintf(`"schema":%d,`, SchemaVersion), `"schema":2,`, 1)
	s = strings.Replace(s, `"end":"2023-11-14T22:13:30Z",`, "", 1)
	if s == buf.String() || strings.Contains(s, `"end"`) {
		t.Fatalf("could not make a schema 2 file of %.200s", buf.String())
	}
	q, err := Decode(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	if q.Schema != SchemaVersion || !q.End.Equal(p.Start.Add(10*time.Second)) {
		t.Errorf("schema %d end %v", q.Schema, q.End)
	}
}
