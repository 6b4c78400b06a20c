package runner

import (
	"os"
	"path/filepath"
	"testing"

	"vbench/internal/results"
)

// Which commands are .NET programs and get the hook: `dotnet x.dll` and an
// apphost by their runtimeconfig.json (one asking for a runtime older than
// the hook's runs without it, and says why), an SDK command always, any
// other command never (and silently).
func TestHookFor(t *testing.T) {
	dir := t.TempDir()
	rc := func(name, tfm string) {
		os.WriteFile(filepath.Join(dir, name+".runtimeconfig.json"), []byte(`{"runtimeOptions": {"tfm": "`+tfm+`"}}`), 0o644)
	}
	rc("new", "net10.0")
	rc("old", "net8.0")
	rc("app", "net10.0")
	os.WriteFile(filepath.Join(dir, "app"), []byte("#!/bin/sh\n"), 0o755)
	h := &startupHook{dll: "/h.dll", major: 10}
	for _, c := range []struct {
		argv           []string
		dll, whyPrefix string
	}{
		{[]string{"/usr/bin/dotnet", "new.dll", "--n", "3"}, "/h.dll", ""},
		{[]string{"dotnet", "exec", filepath.Join(dir, "new.dll")}, "/h.dll", ""},
		{[]string{"/usr/bin/dotnet", "test", "x.csproj"}, "/h.dll", ""},
		{[]string{"dotnet", "old.dll"}, "", "it asks for .NET 8, older than the startup hook's .NET 10"},
		{[]string{"dotnet", "missing.dll"}, "", "its runtimeconfig.json names no framework"},
		{[]string{"./app"}, "/h.dll", ""},
		{[]string{"/bin/sh", "-c", "dotnet new.dll"}, "", ""},
	} {
		dll, why := hookFor(h, c.argv, dir)
		if dll != c.dll || len(why) < len(c.whyPrefix) || why[:len(c.whyPrefix)] != c.whyPrefix || (c.whyPrefix == "" && why != "") {
			t.Errorf("hookFor(%q) = %q, %q; want %q, %q…", c.argv, dll, why, c.dll, c.whyPrefix)
		}
	}
}

// What the hook wrote for a process tree: start-up to the root's hook call
// (the earliest process's when the root wrote none), the GC's work summed
// over the tree, and none of it when a process of the tree never exited
// normally; a line cut short counts as not written.
func TestWholeProgramOfATree(t *testing.T) {
	write := func(dir, pid, text string) { os.WriteFile(filepath.Join(dir, pid), []byte(text), 0o644) }
	dir := t.TempDir()
	write(dir, "100", "start mono_ns=5000\nexit gc0=3 gc1=2 gc2=1 pause_ns=70 alloc_bytes=1000\n")
	write(dir, "101", "start mono_ns=4000\nexit gc0=1 gc1=0 gc2=0 pause_ns=5 alloc_bytes=24\n")
	var r results.Run
	wholeProgram(dir, 100, 1000, &r)
	if r.StartupNs == nil || *r.StartupNs != 4000 || len(r.GCCollections) != 3 || r.GCCollections[0] != 4 || r.GCCollections[2] != 1 || *r.GCPauseNs != 75 || *r.AllocBytes != 1024 {
		t.Errorf("tree: %+v", r)
	}
	r = results.Run{}
	wholeProgram(dir, 999, 1000, &r) // the root wrote nothing: the earliest start
	if r.StartupNs == nil || *r.StartupNs != 3000 {
		t.Errorf("earliest start: %v", r.StartupNs)
	}
	write(dir, "102", "start mono_ns=6000\nexit gc0=1 gc1=0 gc2=0 pause_ns=5 alloc_by")
	r = results.Run{}
	wholeProgram(dir, 100, 1000, &r)
	if r.StartupNs == nil || *r.StartupNs != 4000 || r.GCCollections != nil || r.GCPauseNs != nil || r.AllocBytes != nil {
		t.Errorf("a process that did not exit normally: %+v", r)
	}
	r = results.Run{}
	wholeProgram(t.TempDir(), 100, 1000, &r)
	wholeProgram("", 100, 1000, &r)
	if r.StartupNs != nil || r.GCCollections != nil {
		t.Errorf("nothing written: %+v", r)
	}
}
