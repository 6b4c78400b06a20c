package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// A reader never sees half a file: while one goroutine replaces the file
// over and over with contents of very different sizes, readers only ever
// read one complete version.
func TestReadersSeeOldOrNewNeverHalf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	versions := [][]byte{bytes.Repeat([]byte("a"), 10), bytes.Repeat([]byte("b"), 1<<20), bytes.Repeat([]byte("c"), 4097)}
	if err := WriteFile(path, versions[0], 0o666); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var torn atomic.Int64
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				b, err := os.ReadFile(path)
				if err != nil {
					torn.Add(1)
					continue
				}
				ok := false
				for _, v := range versions {
					ok = ok || bytes.Equal(b, v)
				}
				if !ok {
					torn.Add(1)
				}
			}
		}()
	}
	for i := 0; i < 60; i++ {
		if err := WriteFile(path, versions[i%len(versions)], 0o666); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if n := torn.Load(); n > 0 {
		t.Fatalf("readers saw %d missing or partial files", n)
	}
	assertOnly(t, filepath.Dir(path), "r.json")
}

// A failed write leaves the old file untouched and no temporary file.
func TestFailedWriteLeavesOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b.json")
	if err := WriteFile(path, []byte("baseline"), 0o666); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := Write(path, 0o666, func(w io.Writer) error {
		w.Write([]byte("half of a new ba"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write returned %v, want the fill error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "baseline" {
		t.Fatalf("the old file became %q", b)
	}
	assertOnly(t, dir, "b.json")
}

// The mode is 0666 filtered by the umask, as os.WriteFile's: a user with
// umask 077 gets 0600 files (they were 0644 whatever the umask: the temp
// file was chmod-ed, which the umask does not filter), and the mode of the
// file replaced does not matter.
func TestPermissionFollowsUmask(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ umask, want os.FileMode }{{0o077, 0o600}, {0o022, 0o644}, {0o002, 0o664}} {
		old := syscall.Umask(int(c.umask))
		path := filepath.Join(dir, "r.json")
		err := WriteFile(path, []byte("x"), 0o666)
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != c.want {
			t.Fatalf("umask %04o: mode %v, want %v (%v)", c.umask, fi.Mode().Perm(), c.want, err)
		}
	}
}

// A directory that cannot take files fails the write with the path named,
// and changes nothing.
func TestUnwritableDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain")
	os.WriteFile(file, []byte("x"), 0o666)
	err := WriteFile(filepath.Join(file, "r.json"), []byte("y"), 0o666)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(filepath.Join(file, "r.json"))) {
		t.Fatalf("err = %v", err)
	}
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if len(got) != len(names) || (len(got) > 0 && got[0] != names[0]) {
		t.Fatalf("%s holds %v, want only %v (temporary files left?)", dir, got, names)
	}
}

// TryLock refuses, without waiting, a directory whose lock is held, and
// takes it once released.
func TestTryLock(t *testing.T) {
	dir := t.TempDir()
	unlock, err := TryLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("second TryLock: %v, want ErrLocked", err)
	}
	unlock()
	again, err := TryLock(dir)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	again()
}
