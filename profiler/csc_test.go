package main

// The profiler at scale: the SDK's own C# compiler (csc.dll, a large real
// application: several threads, generics everywhere, exceptions, tens of
// thousands of methods) compiles a small library unprofiled, then under
// `vbench profile` (the whole CLI path) with tracing, with instrumentation
// (every method of every assembly rewritten, the core library's included)
// and with sampling of every assembly. The profiled compilations must behave
// exactly as the unprofiled one and their profiles must be readable.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vbench/internal/attach"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/internal/testapp"
	"vbench/internal/testbin"
)

// compiler finds csc.dll of the newest installed SDK and the reference
// assemblies of the newest targeting pack.
func compiler(t *testing.T) (csc string, refs []string) {
	t.Helper()
	dotnet := testbin.Dotnet(t)
	out, err := exec.Command(dotnet, "--list-sdks").Output()
	if err != nil {
		t.Fatalf("dotnet --list-sdks: %v", err)
	}
	// Lines look like "10.0.401 [/usr/share/dotnet/sdk]".
	var best []int
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		ver, dir, ok := strings.Cut(line, " [")
		if !ok {
			continue
		}
		if v := versionOf(ver); best == nil || less(best, v) {
			best, csc = v, filepath.Join(strings.TrimSuffix(dir, "]"), ver, "Roslyn", "bincore", "csc.dll")
		}
	}
	if _, err := os.Stat(csc); err != nil {
		t.Fatalf("no csc.dll in the newest SDK: %v (dotnet --list-sdks: %s)", err, out)
	}
	// <root>/sdk/<ver>/Roslyn/bincore/csc.dll -> <root>/packs/Microsoft.NETCore.App.Ref/<ver>/ref/net*/
	root := filepath.Clean(filepath.Join(filepath.Dir(csc), "..", "..", "..", ".."))
	packs, _ := filepath.Glob(filepath.Join(root, "packs", "Microsoft.NETCore.App.Ref", "*", "ref", "net*"))
	sort.Slice(packs, func(i, j int) bool {
		return less(versionOf(filepath.Base(filepath.Dir(filepath.Dir(packs[i])))), versionOf(filepath.Base(filepath.Dir(filepath.Dir(packs[j])))))
	})
	if len(packs) == 0 {
		t.Fatalf("no targeting pack under %s/packs/Microsoft.NETCore.App.Ref", root)
	}
	refs, _ = filepath.Glob(filepath.Join(packs[len(packs)-1], "*.dll"))
	if len(refs) < 100 {
		t.Fatalf("only %d reference assemblies in %s", len(refs), packs[len(packs)-1])
	}
	return csc, refs
}

func versionOf(s string) []int {
	var v []int
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '-' }) {
		n, err := strconv.Atoi(p)
		if err != nil {
			break
		}
		v = append(v, n)
	}
	return v
}

func less(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// cscArgs compiles testdata/csc/Extra.cs, a small library, against the
// targeting pack's reference assemblies, deterministically, into out. (A
// bigger input costs much more under tracing without telling more: the
// profiler's cost is dominated by the compiler's own start-up, binding and
// emitting over ~170 references, which every compilation does.)
func cscArgs(csc string, refs []string, out string) []string {
	args := []string{"exec", csc, "-noconfig", "-nologo", "-nostdlib+", "-deterministic", "-debug-", "-optimize+",
		"-nullable:enable", "-target:library", "-out:" + out}
	for _, r := range refs {
		args = append(args, "-r:"+r)
	}
	return append(args, filepath.Join("testdata", "csc", "Extra.cs"))
}

type compilation struct {
	stdout, stderr string
	code           int
	dll            []byte
	took           time.Duration
	maxRSS         int64 // bytes, of the process or its largest descendant
}

func run(t *testing.T, name string, args ...string) (c compilation) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(attach.ScrubEnv(os.Environ()), "DOTNET_CLI_TELEMETRY_OPTOUT=1")
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	start := time.Now()
	err := cmd.Run()
	c.took = time.Since(start)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running %s: %v", name, err)
	}
	c.stdout, c.stderr, c.code = so.String(), se.String(), cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		c.maxRSS = ru.Maxrss * 1024
	}
	return c
}

// memAvailable is /proc/meminfo's MemAvailable in bytes (0 if unknown).
func memAvailable() int64 {
	b, _ := os.ReadFile("/proc/meminfo")
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// sortedLines is the diagnostics as a multiset: csc reports the warnings of
// its concurrently compiled methods in whatever order its threads finish, so
// two unprofiled runs already differ in order; the set of lines may not.
func sortedLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// childStderr is vbench profile's stderr up to vbench's own report, which it
// prints only after the program exited: what remains is the program's.
func childStderr(s string) string {
	if i := strings.Index(s, "vbench: "); i >= 0 && (i == 0 || s[i-1] == '\n') {
		return s[:i]
	}
	return s
}

func TestCompilerUnderProfiler(t *testing.T) {
	l := lib(t)
	vb := testbin.Vbench(t)
	csc, refs := compiler(t)
	dotnet := testbin.Dotnet(t)

	plainDir := t.TempDir()
	plain := run(t, dotnet, cscArgs(csc, refs, filepath.Join(plainDir, "app.dll"))...)
	if plain.code != 0 {
		t.Fatalf("unprofiled csc: exit %d\n%s\n%s", plain.code, plain.stdout, plain.stderr)
	}
	if !strings.Contains(plain.stdout, "warning CS0168") {
		t.Fatalf("unprofiled csc printed no warnings to compare:\n%s", plain.stdout)
	}
	var err error
	if plain.dll, err = os.ReadFile(filepath.Join(plainDir, "app.dll")); err != nil {
		t.Fatal(err)
	}
	t.Logf("unprofiled: %v, peak RSS %s, %d bytes of output assembly", plain.took.Round(time.Millisecond), mib(plain.maxRSS), len(plain.dll))

	for _, c := range []struct {
		mode  modes.Engine
		flags []string
		// what a readable profile of this compilation holds at least
		functions, roslyn, threads int
		memory                     int64 // what the machine needs free (measured peak, plus margin)
	}{
		// No filter: every assembly, the framework's too (R2R code is then JIT-compiled with hooks).
		{"tracing", []string{"--mode", "tracing", "--include", "*"}, 5000, 2000, 3, 2 << 30},
		// Every method of every assembly rewritten (each one's precompiled code refused).
		{"instrumentation", []string{"--mode", "instrumentation", "--include", "*"}, 5000, 2000, 3, 2 << 30},
		{"sampling", []string{"--mode", "sampling", "--include", "*", "--interval", "1ms"}, 300, 100, 2, 1 << 30},
	} {
		t.Run(string(c.mode), func(t *testing.T) {
			// Tracing every method of the compiler peaks at ~0.7 GB: the
			// compilation itself takes ~5 s, then the profiler's Go writer
			// spends a few seconds turning ~2 million call-tree nodes into
			// profile.json and profile.pb.gz (measured 2026-11-22, see
			// docs/notebook/profiler.md, "The C# compiler under the profiler").
			if avail := memAvailable(); avail > 0 && avail < c.memory {
				t.Skipf("needs about %s of free memory, %s available", mib(c.memory), mib(avail))
			}
			dir := t.TempDir()
			prof := filepath.Join(dir, "profile")
			args := append([]string{"profile", "--profiler", l, "--out", prof, "--top", "5"}, c.flags...)
			args = append(append(args, "--", dotnet), cscArgs(csc, refs, filepath.Join(dir, "app.dll"))...)
			got := run(t, vb, args...)
			if got.code != plain.code {
				t.Fatalf("exit %d under %s, unprofiled %d\n%s", got.code, c.mode, plain.code, got.stderr)
			}
			if sortedLines(got.stdout) != sortedLines(plain.stdout) {
				t.Errorf("diagnostics differ under %s:\n--- unprofiled\n%s\n--- profiled\n%s", c.mode, plain.stdout, got.stdout)
			}
			if cs := childStderr(got.stderr); cs != plain.stderr {
				t.Errorf("csc's stderr differs under %s:\n--- unprofiled\n%q\n--- profiled\n%q", c.mode, plain.stderr, cs)
			}
			dll, err := os.ReadFile(filepath.Join(dir, "app.dll"))
			if err != nil || !bytes.Equal(dll, plain.dll) {
				t.Errorf("the compiled assembly differs under %s (%d vs %d bytes, %v): the profiler changed what csc computed", c.mode, len(dll), len(plain.dll), err)
			}

			fi, err := os.Stat(filepath.Join(testapp.ProcessDir(t, prof), profile.JSONFile))
			if err != nil {
				t.Fatalf("no profile: %v\n%s", err, got.stderr)
			}
			pb, _ := os.Stat(filepath.Join(prof, profile.PprofFile))
			readStart := time.Now()
			p, err := profile.ReadFile(prof)
			if err != nil {
				t.Fatalf("the profile is unreadable: %v", err)
			}
			readTook := time.Since(readStart)
			roslyn := 0
			for _, f := range p.Functions {
				if strings.HasPrefix(f.Name, "Microsoft.CodeAnalysis.CSharp.") {
					roslyn++
				}
			}
			// Threads appear in a profile once they ran profiled code.
			threads := len(p.Threads)
			t.Logf("%s: %v (unprofiled %v), peak RSS %s; profile.json %s, profile.pb.gz %s, read in %v; %d functions (%d Microsoft.CodeAnalysis.CSharp.*), %d threads",
				c.mode, got.took.Round(time.Millisecond), plain.took.Round(time.Millisecond), mib(got.maxRSS), mib(fi.Size()), mib(pb.Size()),
				readTook.Round(time.Millisecond), len(p.Functions), roslyn, threads)
			if p.Mode != c.mode || !p.Complete {
				t.Errorf("profile header: mode %q complete %v", p.Mode, p.Complete)
			}
			if len(p.Functions) < c.functions || roslyn < c.roslyn || threads < c.threads {
				t.Errorf("profile too small for a compiler run: %d functions (want >= %d), %d Roslyn C# functions (want >= %d), %d threads (want >= %d)",
					len(p.Functions), c.functions, roslyn, c.roslyn, threads, c.threads)
			}
			if f := p.Function("Microsoft.CodeAnalysis.CSharp.CSharpCompilation.Create"); c.mode.CountsCalls() && (f == nil || f.Calls < 1) {
				t.Errorf("CSharpCompilation.Create is missing from the trace: %+v", f)
			}
			if len(p.Skipped) > 0 {
				t.Errorf("%d methods left uninstrumented, first %+v", len(p.Skipped), p.Skipped[0])
			}
			// The function table is what the trees say: recompute it.
			want := map[string]int64{}
			for _, f := range p.Functions {
				want[f.Name+"\x00"+f.Module] += f.Calls + f.ExclusiveSamples
			}
			p.Derive()
			for _, f := range p.Functions {
				want[f.Name+"\x00"+f.Module] -= f.Calls + f.ExclusiveSamples
			}
			for k, d := range want {
				if d != 0 {
					t.Errorf("function %q: the table and the call trees disagree by %d", strings.Split(k, "\x00")[0], d)
					break
				}
			}
		})
	}
}

func mib(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
