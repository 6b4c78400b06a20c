package runner

import (
	"context"
	"crypto/sha256"
	"debug/elf"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// The kernel marks: a tiny native library whose two functions are
// callgrind's client requests to start and stop counting. A workload calls
// them around its kernel (benchmarks/common/Harness.cs's Clock, when
// KernelMarksVar names the library), so metric kernel-instructions counts
// the kernel alone, as kernel-cpu times it. C, because a client request is
// an instruction sequence only valgrind's header (callgrind.h, in Debian's
// valgrind package) writes; built once per machine with the system's C
// compiler into the user's cache, as the startup hook is built with dotnet.

// exportsKernelMarks reports whether the profiler library at path exports
// the kernel marks (vbench_kernel_begin and _end: profiler/kernel.c), so
// that a sampling run can name it as the marks' library; an older build
// does not, and the harness would fail to find them. Read once per path.
func exportsKernelMarks(path string) bool {
	if v, ok := kernelMarkers.Load(path); ok {
		return v.(bool)
	}
	ok := false
	if f, err := elf.Open(path); err == nil {
		syms, _ := f.DynamicSymbols()
		n := 0
		for _, s := range syms {
			if s.Name == "vbench_kernel_begin" || s.Name == "vbench_kernel_end" {
				n++
			}
		}
		ok = n == 2
		f.Close()
	}
	kernelMarkers.Store(path, ok)
	return ok
}

var kernelMarkers sync.Map // library path → exportsKernelMarks

// KernelMarksVar names the kernel marks' library in a counted run's
// environment.
const KernelMarksVar = "VBENCH_KERNEL_MARKS"

//go:embed kernelmarks/marks.c
var kernelMarksSource []byte

// BuildKernelMarks builds the kernel marks' library (once: it is kept under
// the user's cache directory, named by its source's hash) and returns its
// path. It needs cc and valgrind's callgrind.h.
func BuildKernelMarks(ctx context.Context) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256(kernelMarksSource)
	dir := filepath.Join(cache, "vbench", "kernelmarks-"+hex.EncodeToString(sum[:6]))
	lib := filepath.Join(dir, "libvbenchmarks.so")
	if _, err := os.Stat(lib); err == nil {
		return lib, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	src := filepath.Join(dir, "marks.c")
	if err := os.WriteFile(src, kernelMarksSource, 0o644); err != nil {
		return "", err
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		return "", fmt.Errorf("no C compiler (cc) to build the kernel marks: %v", err)
	}
	tmp := lib + fmt.Sprintf(".%d.tmp", os.Getpid())
	out, err := exec.CommandContext(ctx, cc, "-shared", "-fPIC", "-O2", "-o", tmp, src).CombinedOutput()
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("building the kernel marks (%s): %v: %s", src, err, strings.TrimSpace(string(out)))
	}
	return lib, os.Rename(tmp, lib) // atomic: a concurrent build wins or loses whole
}
