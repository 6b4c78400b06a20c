// Package testbin builds the real vbench binary and profiler library for
// tests, once per test process, so every test runs the actual artifacts and
// `go test ./...` works without a prior `make build`.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// build is one artifact built at most once per test process (and once per
// `go test` command: OnceShared). The vbench binary
// and the profiler library build separately, so a CLI test does not need (or
// wait for) the profiler to compile.
type build struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

var (
	dirOnce sync.Once
	dir     string
	dirErr  error

	vbench    = build{}
	lib       = build{}
	hooksLib  = build{}
	slowLib   = build{}
	benchstat = build{}
)

// RepoRoot returns the directory holding go.mod.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

func (b *build) get(t testing.TB, name string, args ...string) string {
	t.Helper()
	b.once.Do(func() {
		b.path, b.err = OnceShared("go-"+name, func() (string, error) {
			d := sharedDir
			if d == "" {
				dirOnce.Do(func() { dir, dirErr = os.MkdirTemp("", "vbench-testbin-") })
				if dirErr != nil {
					return "", dirErr
				}
				d = dir
			}
			path := filepath.Join(d, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return "", err
			}
			cmd := exec.Command("go", append([]string{"build", "-o", path}, args...)...)
			cmd.Dir = RepoRoot()
			var err error
			b.out, err = cmd.CombinedOutput()
			return path, err
		})
	})
	if b.err != nil {
		t.Fatalf("building %s: %v\n%s", name, b.err, b.out)
	}
	return b.path
}

// Vbench returns the path of a freshly built vbench binary. The profiler
// library, once a test asks for it, sits next to it, where vbench looks for it
// by default.
func Vbench(t testing.TB) string { return vbench.get(t, "vbench", "./cmd/vbench") }

// ProfilerLib returns the path of a freshly built libvbenchprof.so.
func ProfilerLib(t testing.TB) string {
	return lib.get(t, "libvbenchprof.so", "-buildmode=c-shared", "./profiler")
}

// TestHooksLib returns a libvbenchprof.so built with -tags vbenchtest: the
// profiler plus the switches only tests use (VBENCH_DEBUG_KEEP_ONSTACK). It
// sits in its own directory so it never shadows the real library.
func TestHooksLib(t testing.TB) string {
	return hooksLib.get(t, filepath.Join("testhooks", "libvbenchprof.so"), "-tags", "vbenchtest", "-buildmode=c-shared", "./profiler")
}

// SlowProfilerLib returns a libvbenchprof.so built with -tags vbenchslow, as
// `make slow-profiler` builds bin/libvbenchprof-slow.so: the profiler whose
// enter hook spins a fixed time per call (profiler/slow.h), a known
// regression. It sits in its own directory so it never shadows the real one.
func SlowProfilerLib(t testing.TB) string {
	return slowLib.get(t, filepath.Join("slow", "libvbenchprof-slow.so"), "-tags", "vbenchslow", "-buildmode=c-shared", "./profiler")
}

// Benchstat returns the real benchstat (golang.org/x/perf/cmd/benchstat, at
// the version in go.mod), the tool vbench's gobench output is written for.
func Benchstat(t testing.TB) string {
	return benchstat.get(t, "benchstat", "golang.org/x/perf/cmd/benchstat")
}

// Dotnet returns the dotnet host, failing the test when it is missing: every
// machine this project supports has the .NET SDK.
func Dotnet(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("dotnet")
	if err != nil {
		t.Fatalf("dotnet not found on PATH: the .NET SDK is required")
	}
	return p
}

var markers atomic.Int64

// Marker is a string unique to this test process and call, for a test to put
// in its processes' command lines and find them again with ProcessesWith.
// Test packages run side by side, so anything derived from t.TempDir alone
// ("001") names another package's processes too. It ends in "z" so no marker
// is a prefix of another.
func Marker(prefix string) string {
	return fmt.Sprintf("%s-%d-%dz", prefix, os.Getpid(), markers.Add(1))
}

// NoSuchPid is a pid no process can have (one above the kernel's pid_max):
// a process that has ended, for good.
func NoSuchPid(t testing.TB) int {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("/proc/sys/kernel/pid_max: %v", err)
	}
	return n + 1
}

// ProcessesWith lists the live processes whose command line holds s, as
// "pid: command line": what a test expects gone after a run.
func ProcessesWith(s string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

// MarkedLine is the line number of the line of a repository file (rel, from
// the root) that ends with the comment "// MARK": how tests find a test
// program's known lines, so editing above them is safe.
func MarkedLine(t testing.TB, rel, mark string) int {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(RepoRoot(), rel))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(strings.TrimSpace(l), "// "+mark) {
			return i + 1
		}
	}
	t.Fatalf("no line marked %s in %s", mark, rel)
	return 0
}
