// Package attach knows how to make a .NET process load the vbench profiler:
// the CLSID, the environment variables CoreCLR and the profiler read, where the
// library lives, and how to tell a usable library from a broken one before a run;
// after one, ProfilerLines keeps what the profiler said on the program's
// stderr when it declined to load.
//
// Both `vbench profile` and `vbench run` attach through here, so a missing or
// unloadable library is always a clear error, never a silent unprofiled run.
package attach

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strings"

	"vbench/internal/modes"
)

// CLSID is the fixed class ID of the vbench profiler COM class.
// It must match profiler/clsid.h.
const CLSID = "{8C2F5D8A-6C1E-4B7A-9A57-3F0E2B1D7C41}"

// LibraryName is the file name `make build` gives the profiler, next to bin/vbench.
const LibraryName = "libvbenchprof.so"

// Environment variables the profiler reads besides its settings' (those are
// in modes.Fields, the settings table).
const (
	EnvMode       = "VBENCH_MODE"        // tracing | instrumentation | sampling | null
	EnvProfileDir = "VBENCH_PROFILE_DIR" // where each process writes its profile (DIR/<pid>/)
	EnvProcesses  = "VBENCH_PROCESSES"   // a regexp: profile only processes whose command line matches
	// the build a run's private copy of the library was made from (vbench
	// run loads a fresh copy each run; the profiler loads CORECLR_PROFILER_PATH)
	EnvBuild = "VBENCH_PROFILER_BUILD"
	// sampling: leaves where CoreCLR stopped each thread (its GC safe
	// points), without the interrupted function put back
	EnvSafepointLeaves = "VBENCH_SAMPLING_SAFEPOINT_LEAVES"
)

// The variables naming the library CoreCLR loads as its profiler, in the
// order it reads them on 64-bit Linux: the first one set wins.
var ProfilerPathVars = []string{"CORECLR_PROFILER_PATH_64", "CORECLR_PROFILER_PATH"}

// Options are what a caller loads the profiler with: an engine, where its
// profiles go, which processes, and its settings. The settings' values are
// checked where they are read (a suite, `vbench profile`'s flags) with
// modes.Validate: attach only writes them into the environment.
type Options struct {
	Engine     modes.Engine // null | tracing | instrumentation | sampling | …; "" loads no profiler
	ProfileDir string       // required: where the profile is written
	// Processes, a regular expression (CheckProcesses), limits profiling to
	// the processes whose command line it matches; "" profiles every one.
	Processes string
	// Settings: only those the engine reads reach the environment.
	Settings modes.ProfilerSettings
}

// CheckProcesses parses a --processes pattern: a Go regular expression (RE2
// syntax), matched unanchored against a process's command line with its
// arguments joined by single spaces, so a plain word matches wherever it
// appears ("testhost" matches ".../testhost.dll --port 40123").
func CheckProcesses(pattern string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%q is not a regular expression: %v", pattern, se.Code)
		}
		return nil, err
	}
	return re, nil
}

// Env returns the variables to add to a child's environment so that CoreCLR
// loads the library at libPath with opts. Without an engine it returns nothing.
func Env(libPath string, opts Options) []string {
	if opts.Engine == "" {
		return nil
	}
	env := []string{
		"CORECLR_ENABLE_PROFILING=1",
		"CORECLR_PROFILER=" + CLSID,
		"CORECLR_PROFILER_PATH=" + libPath,
		// The 64-bit variant wins over the generic one in CoreCLR; set both so an
		// inherited CORECLR_PROFILER_PATH_64 cannot point somewhere else.
		"CORECLR_PROFILER_PATH_64=" + libPath,
		EnvMode + "=" + string(opts.Engine),
		EnvProfileDir + "=" + opts.ProfileDir,
	}
	env = append(env, opts.Settings.Env(opts.Engine)...)
	if opts.Processes != "" {
		env = append(env, EnvProcesses+"="+opts.Processes)
	}
	return env
}

// ProfiledDefaults are variables a profiled process tree needs besides the
// profiler's own. Callers put them first in the child's environment, so that
// a value the user or a workload sets wins.
//
// VSTEST_TESTHOST_SHUTDOWN_TIMEOUT: vstest kills the test host 100 ms after
// a test run ends (microsoft/vstest#1335), often before a profiled test host
// has written its profile; a test host that exits sooner ends the wait sooner.
var ProfiledDefaults = []string{"VSTEST_TESTHOST_SHUTDOWN_TIMEOUT=30000"}

// ScrubEnv removes from env every variable that could load a profiler, so that
// a "none" run is truly unprofiled even if the caller's shell has them set:
// CORECLR_*PROFIL*, DOTNET_*PROFIL*, COMPlus_*PROFIL* (CORECLR_PROFILER_PATH,
// CORECLR_ENABLE_PROFILING, and the notification profilers of .NET 7+,
// CORECLR_ENABLE_NOTIFICATION_PROFILERS / CORECLR_NOTIFICATION_PROFILERS),
// and VBENCH_*.
func ScrubEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "VBENCH_") || LoadsProfiler(k) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// LoadsProfiler reports whether environment variable k can load a profiler
// into a .NET process (CORECLR_*PROFIL*, DOTNET_*PROFIL*, COMPlus_*PROFIL*).
func LoadsProfiler(k string) bool {
	u := strings.ToUpper(k)
	return (strings.HasPrefix(u, "CORECLR_") || strings.HasPrefix(u, "DOTNET_") || strings.HasPrefix(u, "COMPLUS_")) &&
		strings.Contains(u, "PROFIL")
}

// DefaultLibrary finds the profiler library: next to the running executable
// (bin/vbench → bin/libvbenchprof.so).
func DefaultLibrary() string {
	exe, err := os.Executable()
	if err != nil {
		return LibraryName
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Join(filepath.Dir(exe), LibraryName)
}

// ErrLibrary is wrapped by every error Check returns.
var ErrLibrary = errors.New("profiler library unusable")

// Check verifies that path is a profiler library this machine can load: it
// exists, is a regular file, a 64-bit x86-64 ELF shared object and exports
// the COM entry point. The suite checks another profiler named in a mode's
// env (CORECLR_PROFILER_PATH) with it too.
// It returns an absolute path, since CoreCLR resolves the path from the child's cwd.
func Check(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrLibrary, path, err)
	}
	if err := checkIdent(abs); err != nil {
		return "", err
	}
	f, err := elf.Open(abs)
	if err != nil {
		return "", fmt.Errorf("%w: %s is not an ELF shared library: %v", ErrLibrary, abs, err)
	}
	defer f.Close()
	if f.Type != elf.ET_DYN {
		return "", fmt.Errorf("%w: %s is %v, not a shared object", ErrLibrary, abs, f.Type)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return "", fmt.Errorf("%w: %s has no dynamic symbol table: %v", ErrLibrary, abs, err)
	}
	for _, s := range syms {
		if s.Name == "DllGetClassObject" && s.Section != elf.SHN_UNDEF {
			return abs, nil
		}
	}
	return "", fmt.Errorf("%w: %s does not export DllGetClassObject; it is not a CoreCLR profiler", ErrLibrary, abs)
}

// checkIdent reads the ELF identification and machine fields before
// debug/elf parses the rest, so that a library built for another class or
// architecture is named as such (a 32-bit file read with 64-bit headers fails
// with an obscure section error).
func checkIdent(path string) error {
	// Stat before opening: opening a FIFO would block, and a directory's
	// "no ELF header" would hide what it is.
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: %s does not exist (build it with `make build`, or pass --profiler PATH)", ErrLibrary, path)
		}
		return fmt.Errorf("%w: %s: %v", ErrLibrary, path, errors.Unwrap(err))
	}
	if !fi.Mode().IsRegular() {
		what := "not a regular file"
		if fi.IsDir() {
			what = "a directory"
		}
		return fmt.Errorf("%w: %s is %s, not a shared library", ErrLibrary, path, what)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrLibrary, path, errors.Unwrap(err))
	}
	defer f.Close()
	var h [20]byte
	if _, err := io.ReadFull(f, h[:]); err != nil || string(h[:4]) != elf.ELFMAG {
		return fmt.Errorf("%w: %s is not an ELF shared library (no ELF header)", ErrLibrary, path)
	}
	class, data := elf.Class(h[elf.EI_CLASS]), elf.Data(h[elf.EI_DATA])
	var machine elf.Machine
	switch data {
	case elf.ELFDATA2LSB:
		machine = elf.Machine(binary.LittleEndian.Uint16(h[18:]))
	case elf.ELFDATA2MSB:
		machine = elf.Machine(binary.BigEndian.Uint16(h[18:]))
	}
	if class != elf.ELFCLASS64 || data != elf.ELFDATA2LSB || machine != elf.EM_X86_64 {
		return fmt.Errorf("%w: %s is built for %v/%v (%v), this profiler host needs ELFCLASS64/EM_X86_64 (ELFDATA2LSB)", ErrLibrary, path, class, machine, data)
	}
	return nil
}
