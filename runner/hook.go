package runner

// The startup hook (startuphook/, embedded in bin/vbench): what every run of
// a .NET workload records of the whole program besides its time. The
// runtime calls it just before Main (DOTNET_STARTUP_HOOKS), in every mode
// alike; it writes the clock at that moment and, at a normal exit, the GC's
// collections, pause and allocated bytes into the run's hook directory, a
// file per process (startuphook/StartupHook.cs says the format).

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"vbench/internal/dotnetbuild"
	"vbench/internal/results"
)

//go:embed startuphook/StartupHook.cs startuphook/VbenchStartupHook.csproj
var hookSource embed.FS

// startupHook is the built hook: its assembly and the major version of the
// framework it targets (a runtime older than that cannot load it).
type startupHook struct {
	dll   string
	major int
}

// buildHook builds the hook once per machine and version of its source
// (dotnetbuild.Embedded: into the user's cache directory); a later run
// finds it built and only reads it.
func buildHook(ctx context.Context) (*startupHook, error) {
	dll, err := dotnetbuild.Embedded(ctx, "startuphook", hookSource, "startuphook")
	if err != nil {
		return nil, err
	}
	return readHook(dll)
}

// readHook is the hook built as dll: the framework it targets, from its
// deps.json's runtimeTarget (".NETCoreApp,Version=v10.0").
func readHook(dll string) (*startupHook, error) {
	b, err := os.ReadFile(strings.TrimSuffix(dll, ".dll") + ".deps.json")
	if err != nil {
		return nil, err
	}
	var deps struct {
		RuntimeTarget struct{ Name string } `json:"runtimeTarget"`
	}
	if err := json.Unmarshal(b, &deps); err != nil {
		return nil, fmt.Errorf("%s: %v", dll, err)
	}
	_, v, _ := strings.Cut(deps.RuntimeTarget.Name, ",Version=v")
	major, err := strconv.Atoi(strings.Split(v, ".")[0])
	if err != nil {
		return nil, fmt.Errorf("%s.deps.json: runtimeTarget %q names no framework version", strings.TrimSuffix(dll, ".dll"), deps.RuntimeTarget.Name)
	}
	return &startupHook{dll: dll, major: major}, nil
}

// dotnetRuntime says whether argv starts a .NET program and, when it can
// tell, the major version of the runtime it asks for (its
// runtimeconfig.json's tfm): `dotnet x.dll` and `dotnet exec x.dll`, an
// apphost (x beside x.runtimeconfig.json), or an SDK command (`dotnet test`,
// `dotnet run`: the SDK runs on its own runtime, sdk is true; the processes
// it starts may ask for another). A command that is none of these is no
// .NET program.
func dotnetRuntime(argv []string, cwd string) (major int, sdk, isDotnet bool) {
	if len(argv) == 0 {
		return 0, false, false
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) || cwd == "" {
			return p
		}
		return filepath.Join(cwd, p)
	}
	if b := filepath.Base(argv[0]); b == "dotnet" || b == "dotnet.exe" {
		args := argv[1:]
		if len(args) > 0 && args[0] == "exec" {
			args = args[1:]
		}
		if len(args) == 0 || !strings.HasSuffix(args[0], ".dll") {
			return 0, true, true
		}
		return runtimeconfigMajor(strings.TrimSuffix(abs(args[0]), ".dll") + ".runtimeconfig.json"), false, true
	}
	exe := argv[0]
	if !strings.Contains(exe, "/") {
		p, err := exec.LookPath(exe)
		if err != nil {
			return 0, false, false
		}
		exe = p
	}
	rc := abs(exe) + ".runtimeconfig.json"
	if _, err := os.Stat(rc); err != nil {
		return 0, false, false
	}
	return runtimeconfigMajor(rc), false, true
}

// runtimeconfigMajor is the major version of the framework a
// runtimeconfig.json asks for (runtimeOptions.tfm "net10.0"), 0 when it
// cannot be read.
func runtimeconfigMajor(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	var rc struct {
		RuntimeOptions struct{ TFM string } `json:"runtimeOptions"`
	}
	if json.Unmarshal(b, &rc) != nil {
		return 0
	}
	v, ok := strings.CutPrefix(rc.RuntimeOptions.TFM, "net")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(strings.Split(v, ".")[0])
	if err != nil {
		return 0
	}
	return n
}

// hookFor is the hook assembly a cell's runs get ("" for none) and, when a
// .NET program gets none, why. The same for every mode of a workload, so
// that the hook's own cost is in every mode alike.
func hookFor(h *startupHook, argv []string, cwd string) (dll, why string) {
	major, sdk, isDotnet := dotnetRuntime(argv, cwd)
	switch {
	case !isDotnet:
		return "", "" // not a .NET program: nothing to measure, nothing to say
	case h == nil:
		return "", "the startup hook could not be built"
	case sdk:
		return h.dll, ""
	case major == 0:
		return "", "its runtimeconfig.json names no framework (tfm)"
	case major < h.major:
		return "", fmt.Sprintf("it asks for .NET %d, older than the startup hook's .NET %d (the installed SDK's framework)", major, h.major)
	}
	return h.dll, ""
}

// wholeProgram reads what the hook wrote into dir for a run whose first
// process (root, started at startMono) vbench started, into r: the
// start-up (to the root's hook call; the earliest process's when the root
// wrote none) and the GC's work summed over the process tree, this only
// when every process that started also exited normally (a process that
// crashed or was killed took its figures with it, and a part of the tree's
// work is not its work). What was not measured stays nil.
func wholeProgram(dir string, root int, startMono int64, r *results.Run) {
	if dir == "" {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type proc struct {
		start      int64
		exit       bool
		gc         [3]int64
		pause, all int64
		hwm        int64 // the process's own peak RSS, 0 when not reported
		jit        int64 // its JIT compilation time, -1 when not reported
	}
	var procs []proc
	var rootStart, first int64
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var p proc
		for _, line := range strings.Split(string(b), "\n") {
			kind, rest, _ := strings.Cut(line, " ")
			v := hookFields(rest)
			switch kind {
			case "start":
				p.start = v["mono_ns"]
			case "exit":
				g0, ok0 := v["gc0"]
				g1, ok1 := v["gc1"]
				g2, ok2 := v["gc2"]
				pause, okp := v["pause_ns"]
				all, oka := v["alloc_bytes"]
				if ok0 && ok1 && ok2 && okp && oka {
					p.exit, p.gc, p.pause, p.all = true, [3]int64{g0, g1, g2}, pause, all
					p.hwm = v["hwm_bytes"]
					p.jit = -1
					if j, ok := v["jit_ns"]; ok {
						p.jit = j
					}
				}
			}
		}
		if p.start <= 0 {
			continue
		}
		procs = append(procs, p)
		if pid == root {
			rootStart = p.start
		}
		if first == 0 || p.start < first {
			first = p.start
		}
	}
	if len(procs) == 0 {
		return
	}
	if rootStart == 0 {
		rootStart = first
	}
	if startMono > 0 && rootStart > startMono {
		r.StartupNs = results.Int64(rootStart - startMono)
	}
	gc := make([]int64, 3)
	var pause, all, hwm, jit int64
	for _, p := range procs {
		if !p.exit {
			return
		}
		if jit >= 0 && p.jit >= 0 {
			jit += p.jit
		} else {
			jit = -1
		}
		for g := range gc {
			gc[g] += p.gc[g]
		}
		pause += p.pause
		all += p.all
		hwm = max(hwm, p.hwm)
	}
	r.GCCollections, r.GCPauseNs, r.AllocBytes = gc, results.Int64(pause), results.Int64(all)
	if jit >= 0 {
		r.JITNs = results.Int64(jit)
	}
	if hwm > 0 {
		r.PeakRSS = results.Int64(hwm) // the tree's largest process, as max_rss_bytes is
	}
}

// hookFields reads "k=v k=v" of non-negative integers; a malformed value
// (a line cut short by a kill) is left out.
func hookFields(s string) map[string]int64 {
	m := map[string]int64{}
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if n, err := strconv.ParseInt(v, 10, 64); ok && err == nil && n >= 0 {
			m[k] = n
		}
	}
	return m
}

// profileBytes is the total size of the files under dir: what the profiler
// wrote in an engine mode's run directory (each process's profile.json and
// profile.pb.gz).
func profileBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		return nil
	})
	return n, err
}
