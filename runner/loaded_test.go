package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"vbench/internal/testbin"
)

// The runtime check sees a file a real process maps, however it is named:
// by its own path, through a symlink (resolved), through a hard link (by
// device and inode: maps prints the name it was opened by), and in a
// grandchild; and does not see one the process never maps. The "library"
// here is the process's own executable, which the kernel maps as a library
// would be.
func TestExecSeesTheMappedLibrary(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "fakework")
	b, err := os.ReadFile(testbin.Fakework(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(dir, "via-symlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(exe, filepath.Join(dir, "via-hardlink")); err != nil {
		t.Fatal(err)
	}
	run := []string{exe, "-sleep", "100ms"}
	cases := []struct {
		name    string
		argv    []string
		library string
		dir     string
		want    bool
	}{
		{"its own path", run, exe, "", true},
		{"relative to the workload's directory", run, "fakework", dir, true},
		{"a symlink", run, filepath.Join(dir, "via-symlink"), "", true},
		{"a hard link", run, filepath.Join(dir, "via-hardlink"), "", true},
		{"in a grandchild", []string{"sh", "-c", "sh -c '" + exe + " -sleep 100ms; true'; true"}, exe, "", true},
		{"never mapped", run, testbin.FakeProfiler(t), "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := Exec(context.Background(), Spec{Argv: c.argv, Env: os.Environ(), Dir: c.dir, Library: c.library})
			if msg := out.Failure(0); msg != "" {
				t.Fatal(msg)
			}
			if out.Loaded != c.want || out.Pid == 0 {
				t.Errorf("Loaded %v (pid %d), want %v", out.Loaded, out.Pid, c.want)
			}
		})
	}
}

// CoreCLR reads CORECLR_PROFILER_PATH_64 before CORECLR_PROFILER_PATH on
// 64-bit Linux; the last value of a variable in the environment wins.
func TestForeignProfiler(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"PATH=/bin"}, ""},
		{[]string{"CORECLR_PROFILER_PATH=/a.so"}, "/a.so"},
		{[]string{"CORECLR_PROFILER_PATH=/a.so", "CORECLR_PROFILER_PATH_64=/b.so"}, "/b.so"},
		{[]string{"CORECLR_PROFILER_PATH=/a.so", "CORECLR_PROFILER_PATH_64="}, "/a.so"},
		{[]string{"CORECLR_PROFILER_PATH=/a.so", "CORECLR_PROFILER_PATH=/c.so"}, "/c.so"},
	} {
		if got := foreignProfiler(c.env); got != c.want {
			t.Errorf("foreignProfiler(%q) = %q, want %q", c.env, got, c.want)
		}
	}
}
