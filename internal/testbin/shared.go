package testbin

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// sharedDir is a directory every test binary started by one `go test`
// command shares, "" when this process was not started by one (a test
// binary run by hand). `go test ./...` starts a process per package, and
// each built the same vbench, profiler libraries and fakework again (a
// c-shared link is ~6 s of CPU even with every package cached) and ran
// `dotnet build` again on the same C# projects: the command's pid and start
// time name one invocation, so the binaries are built once per `go test`,
// from the tree as it is, never reused by a later one.
var sharedDir = func() string {
	ppid := os.Getppid()
	exe, err := os.Readlink("/proc/" + strconv.Itoa(ppid) + "/exe")
	if err != nil || filepath.Base(exe) != "go" {
		return ""
	}
	start := startTime(ppid)
	if start == "" {
		return ""
	}
	return filepath.Join(os.TempDir(), sharedPrefix+strconv.Itoa(ppid)+"-"+start)
}()

// sharedPrefix begins the name of every shared directory, followed by the
// go command's pid and start time.
const sharedPrefix = "vbench-testbin-go"

// startTime is process pid's start time (/proc's field 22, in clock ticks
// since boot), "" when there is no such process.
func startTime(pid int) string {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// Counted after the command's closing ")".
	_, rest, ok := strings.Cut(string(stat), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 20 {
		return ""
	}
	return f[19]
}

var sweepOnce sync.Once

// sweepShared removes the shared directories of go commands that have
// ended. No process knows it is its command's last, so none removes its
// own: each `go test ./...` left ~100 MB of builds in the temp directory.
// A directory stays while a process with its pid and start time runs (its
// command, or another's in the middle of its own tests), and for a day
// after it was made: a go command in another pid namespace that shares
// this temp directory is not in this /proc.
func sweepShared() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), sharedPrefix+"*"))
	for _, d := range dirs {
		pid, start, ok := strings.Cut(strings.TrimPrefix(filepath.Base(d), sharedPrefix), "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || d == sharedDir || startTime(n) == start {
			continue
		}
		if st, err := os.Stat(d); err != nil || time.Since(st.ModTime()) < 24*time.Hour {
			continue
		}
		os.RemoveAll(d)
	}
}

// OnceShared returns what build made, calling it once per `go test`
// command across its processes (once per process when not run by one):
// key names the artifact; build returns its path.
func OnceShared(key string, build func() (string, error)) (string, error) {
	if sharedDir == "" {
		return build()
	}
	key = strings.NewReplacer("/", "_", " ", "_").Replace(key)
	unlock, err := lockShared(key)
	if err != nil {
		return "", err
	}
	defer unlock()
	if p := sharedStamp(key); p != "" {
		return p, nil
	}
	p, err := build()
	if err != nil {
		return "", err
	}
	return p, writeSharedStamp(key, p)
}

// lockShared takes an exclusive lock named name in the shared directory
// (made if missing) and returns its release.
func lockShared(name string) (func(), error) {
	sweepOnce.Do(sweepShared)
	if err := os.MkdirAll(sharedDir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(sharedDir, name+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// sharedStamp reads what an earlier process of this `go test` wrote under
// name (a built artifact's path), "" if none did.
func sharedStamp(name string) string {
	b, err := os.ReadFile(filepath.Join(sharedDir, name+".built"))
	if err != nil {
		return ""
	}
	p := strings.TrimSpace(string(b))
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// writeSharedStamp records that name was built, at path.
func writeSharedStamp(name, path string) error {
	return os.WriteFile(filepath.Join(sharedDir, name+".built"), []byte(path+"\n"), 0o644)
}
