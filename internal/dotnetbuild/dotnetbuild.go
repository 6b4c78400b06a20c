// Package dotnetbuild builds C# projects with the .NET SDK: a workload's
// project (Project), and the small helpers vbench embeds in its binary —
// the startup hook, the PDB reader, the nettrace reader — once per machine
// and version of their source, into the user's cache directory (Embedded).
package dotnetbuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"vbench/internal/atomicfile"
)

// Env is the environment every build, and an embedded helper's run, gets:
// vbench's own, without what would profile or hook the SDK's processes or
// the helper (a profiling environment inherited from vbench profile), with
// no telemetry and no banner.
func Env() []string {
	var env []string
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		if strings.HasPrefix(k, "CORECLR_") || strings.HasPrefix(k, "VBENCH_") || k == "DOTNET_STARTUP_HOOKS" || k == "DOTNET_EnableEventPipe" {
			continue
		}
		env = append(env, e)
	}
	return append(env, "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1", "DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1")
}

// Project builds a C# project in Release and returns the path of its
// assembly. dotnet build decides what is out of date (incremental, about
// a second when nothing changed); asking for TargetPath in the same call
// avoids guessing the target framework or assembly name. Build servers are
// disabled so no compiler process lingers to disturb the measurements.
func Project(ctx context.Context, dotnet, csproj string) (string, error) {
	cmd := exec.CommandContext(ctx, dotnet, "build", csproj,
		"-c", "Release", "-nologo", "-v", "quiet", "--disable-build-servers", "-nodeReuse:false",
		"-t:Build", "-getProperty:TargetPath")
	cmd.Dir = filepath.Dir(csproj)
	cmd.Env = Env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("dotnet build %s failed (%v):\n%s", csproj, err, buildErrors(stdout.String()+"\n"+stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		p := strings.TrimSpace(lines[i])
		if strings.HasSuffix(p, ".dll") {
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("dotnet build %s: TargetPath %s does not exist", csproj, p)
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("dotnet build %s did not report a TargetPath (.dll):\n%s", csproj, LastLines(stdout.String(), 10))
}

// buildErrors is what a failed build said, for a person: the compiler's and
// MSBuild's error lines first (each once: MSBuild repeats them in its
// summary), else its last lines; never the blank lines, nor the TargetPath
// line -getProperty prints even when the build fails (a .dll that is not
// there).
func buildErrors(out string) string {
	var errs, other []string
	seen := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || seen[l] || (strings.HasSuffix(l, ".dll") && !strings.Contains(l, " ")) {
			continue
		}
		seen[l] = true
		if strings.Contains(l, ": error ") {
			errs = append(errs, l)
		} else {
			other = append(other, l)
		}
	}
	if len(errs) > 0 {
		if len(errs) > 15 {
			errs = append(errs[:15], fmt.Sprintf("… and %d more errors", len(errs)-15))
		}
		return strings.Join(errs, "\n")
	}
	return LastLines(strings.Join(other, "\n"), 15)
}

// LastLines is the last n lines of s, its surrounding space trimmed.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// stamp, written into a helper's directory after its build succeeded,
// names the assembly built: a directory without it (a build interrupted,
// or in progress elsewhere) is built again.
const stamp = ".built"

// Embedded builds the C# project whose files are directory dir of src (one
// .csproj and its sources; subdirectories are not copied) once per machine
// and version of its source: into <user cache>/vbench/<name>-<first 12 hex
// digits of the files' sha256>, and returns its assembly. A later call
// finds it built and runs no dotnet at all; concurrent callers (parallel
// tests, two vbench runs) wait on a lock on that directory, and the first
// builds.
func Embedded(ctx context.Context, name string, src fs.FS, dir string) (string, error) {
	entries, err := fs.ReadDir(src, dir)
	if err != nil {
		return "", fmt.Errorf("the %s: %w", name, err)
	}
	sum := sha256.New()
	files := map[string][]byte{}
	var csproj string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := fs.ReadFile(src, path.Join(dir, e.Name()))
		if err != nil {
			return "", fmt.Errorf("the %s: %w", name, err)
		}
		fmt.Fprintf(sum, "%s %d\n", e.Name(), len(b))
		sum.Write(b)
		files[e.Name()] = b
		if strings.HasSuffix(e.Name(), ".csproj") {
			csproj = e.Name()
		}
	}
	if csproj == "" {
		return "", fmt.Errorf("the %s: no .csproj in %s", name, dir)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	out := filepath.Join(cache, "vbench", name+"-"+hex.EncodeToString(sum.Sum(nil))[:12])
	if dll, ok := built(out); ok {
		return dll, nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("the %s: %w", name, err)
	}
	unlock, err := atomicfile.LockDir(filepath.Join(out, csproj), nil)
	if err != nil {
		return "", fmt.Errorf("the %s: %w", name, err)
	}
	defer unlock()
	if dll, ok := built(out); ok { // built while we waited
		return dll, nil
	}
	for f, b := range files {
		if err := os.WriteFile(filepath.Join(out, f), b, 0o666); err != nil {
			return "", fmt.Errorf("the %s: %w", name, err)
		}
	}
	dotnet, err := exec.LookPath("dotnet")
	if err != nil {
		return "", fmt.Errorf("the %s needs dotnet: %w", name, err)
	}
	dll, err := Project(ctx, dotnet, filepath.Join(out, csproj))
	if err != nil {
		return "", fmt.Errorf("building the %s: %w", name, err)
	}
	if err := atomicfile.WriteFile(filepath.Join(out, stamp), []byte(dll+"\n"), 0o666); err != nil {
		return "", fmt.Errorf("the %s: %w", name, err)
	}
	return dll, nil
}

// built is the assembly a finished build in dir names, if it is there.
func built(dir string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(dir, stamp))
	if err != nil {
		return "", false
	}
	dll := strings.TrimSpace(string(b))
	if _, err := os.Stat(dll); err != nil {
		return "", false
	}
	return dll, true
}
