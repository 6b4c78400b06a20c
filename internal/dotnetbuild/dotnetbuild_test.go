package dotnetbuild

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A helper is built once per version of its source: the first of several
// concurrent callers builds it into the user's cache, the others wait and
// get the same assembly, a later call runs no dotnet at all (it finds the
// stamp), and the assembly runs. A changed source is another directory.
func TestEmbeddedBuildsOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dotnet build")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	src := os.DirFS("testdata")
	var wg sync.WaitGroup
	dlls, errs := make([]string, 3), make([]error, 3)
	for i := range dlls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dlls[i], errs[i] = Embedded(context.Background(), "hello", src, "hello")
		}()
	}
	wg.Wait()
	for i := range dlls {
		if errs[i] != nil || dlls[i] != dlls[0] {
			t.Fatalf("caller %d: %q, %v (caller 0: %q)", i, dlls[i], errs[i], dlls[0])
		}
	}
	out, err := exec.Command("dotnet", dlls[0]).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "hello from an embedded helper" {
		t.Fatalf("dotnet %s: %v: %s", dlls[0], err, out)
	}
	// Built: a later call reads the stamp; with no dotnet on PATH it
	// still answers.
	t.Setenv("PATH", t.TempDir())
	again, err := Embedded(context.Background(), "hello", src, "hello")
	if err != nil || again != dlls[0] {
		t.Fatalf("second call: %q, %v, want %q", again, err, dlls[0])
	}
	dir := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(dlls[0])))) // <cache>/vbench/hello-<hash>/bin/Release/net10.0/Hello.dll
	if !strings.HasPrefix(filepath.Base(dir), "hello-") {
		t.Errorf("built in %s, want <cache>/vbench/hello-<hash>", dir)
	}
}

// A helper that does not compile says so with the compiler's error, and
// leaves no stamp: the next call builds again.
func TestEmbeddedBuildFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dotnet build")
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	// Written here, not kept under testdata: every C# project there must
	// build (internal/testdatacheck).
	src := t.TempDir()
	proj, err := os.ReadFile("testdata/hello/Hello.csproj")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(src, "broken"), 0o755)
	os.WriteFile(filepath.Join(src, "broken", "Broken.csproj"), proj, 0o644)
	os.WriteFile(filepath.Join(src, "broken", "Program.cs"), []byte("System.Console.WriteLine(undefinedName);\n"), 0o644)
	_, err = Embedded(context.Background(), "broken", os.DirFS(src), "broken")
	if err == nil || !strings.Contains(err.Error(), "building the broken") || !strings.Contains(err.Error(), "error CS0103") {
		t.Fatalf("err = %v, want the build's CS0103 error", err)
	}
	stamps, _ := filepath.Glob(filepath.Join(cache, "vbench", "broken-*", stamp))
	if len(stamps) != 0 {
		t.Errorf("a failed build left a stamp: %v", stamps)
	}
	if _, err := Embedded(context.Background(), "missing", os.DirFS(src), "nope"); err == nil {
		t.Error("a directory that is not there: no error")
	}
}
