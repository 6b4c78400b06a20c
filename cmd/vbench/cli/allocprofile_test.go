package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"vbench/internal/profile"
	"vbench/internal/testapp"
)

// vbench profile of a process tree under each allocation engine: two
// children run the test program's alloc scenario (10,000 AllocNode objects
// each, allocated in VbTest.Allocs.Nodes, and six induced collections) and
// its allocbig one (byte arrays, for the sampler). The merged profile keeps
// the allocations (exact counts summed over the processes under
// allocations, and every collection); the merged profile.pb.gz that vbench
// writes opens in google/pprof's reader and in `go tool pprof` with the
// sample types alloc_objects and alloc_space, a type label and each
// process's pid; `vbench report` tables the types, the paths and the GCs,
// and draws the flame graph by bytes.
func TestProfileAllocationsProcessTree(t *testing.T) {
	t.Parallel() // exact allocation counts
	dll := testapp.DLL(t)
	for _, mode := range []string{"allocations", "allocation-sampling"} {
		t.Run(mode, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "prof")
			stdout, stderr, code := runVbench(t, "profile", "--mode", mode, "--out", out, "--", "dotnet", dll, "spawn", "0", "alloc:1000", "allocbig:60000")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			exact := mode == "allocations"
			tree, err := profile.ReadTree(out)
			if err != nil || len(tree.Processes) != 3 {
				t.Fatalf("%v: %d processes", err, len(tree.Processes))
			}
			m := tree.Merge()
			a := m.Allocations
			if a == nil || m.GC == nil || a.Sampled == exact {
				t.Fatalf("merged profile: allocations %v, gc %v", a, m.GC)
			}
			var count, bytes, gcs, induced int64
			for _, p := range tree.Processes {
				count += p.Allocations.Count
				bytes += p.Allocations.Bytes
				gcs += p.GC.Count
				induced += p.GC.Induced
			}
			if a.Count != count || a.Bytes != bytes || m.GC.Count != gcs || int64(len(m.GC.Collections)) != gcs || m.GC.Induced != induced || induced < 6 {
				t.Errorf("merged: %d objects %d bytes, %d collections (%d listed, %d induced); the processes: %d, %d, %d (%d induced)",
					a.Count, a.Bytes, m.GC.Count, len(m.GC.Collections), m.GC.Induced, count, bytes, gcs, induced)
			}
			if exact {
				if typ := a.Type("VbTest.AllocNode"); typ == nil || typ.Count != 10000 {
					t.Errorf("merged AllocNode: %+v, want 10000", typ)
				}
				if c, _ := a.SelfByFunction(m, "VbTest.Allocs.Nodes", "VbTest.AllocNode"); c != 10000 {
					t.Errorf("merged: Allocs.Nodes allocated %d AllocNode, want 10000", c)
				}
			}
			big := a.Type("System.Byte[]")
			_, bigBytes := a.SelfByFunction(m, "VbTest.Allocs.Big", "System.Byte[]")
			if big == nil || bigBytes < 60000*1000*9/10 || (!exact && big.Samples == 0) || (exact && bigBytes < 60000*1000) {
				t.Errorf("merged System.Byte[]: %+v, %d bytes by Allocs.Big", big, bigBytes)
			}

			// The merged pprof vbench wrote, read by google/pprof: its
			// totals are the merged profile's, each sample labelled.
			pp := mergedPprof(t, out)
			if len(pp.SampleType) != 2 || pp.SampleType[0].Type != "alloc_objects" || pp.SampleType[1].Type != "alloc_space" || pp.DefaultSampleType != "alloc_space" {
				t.Fatalf("sample types %v (default %q)", pp.SampleType, pp.DefaultSampleType)
			}
			var objs, space, nodes int64
			pids := map[int64]bool{}
			for _, s := range pp.Sample {
				objs += s.Value[0]
				space += s.Value[1]
				if len(s.Label["type"]) != 1 || len(s.NumLabel["pid"]) != 1 {
					t.Fatalf("sample labels %v %v", s.Label, s.NumLabel)
				}
				pids[s.NumLabel["pid"][0]] = true
				if s.Label["type"][0] == "VbTest.AllocNode" {
					nodes += s.Value[0]
				}
			}
			// Sampled estimates are rounded per site in the pprof and per
			// type in profile.json: within one object a site.
			slack := int64(0)
			if !exact {
				slack = int64(len(pp.Sample))
			}
			if objs < a.Count-slack || objs > a.Count+slack || space < a.Bytes-slack || space > a.Bytes+slack || len(pids) < 2 || (exact && nodes != 10000) {
				t.Errorf("pprof: %d objects, %d bytes, %d AllocNode, pids %v; merged profile: %d, %d", objs, space, nodes, pids, a.Count, a.Bytes)
			}

			// go tool pprof itself, as a user runs it: the byte arrays' space
			// by -tagfocus on the type label.
			goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
			cmd := exec.Command(goBin, "tool", "pprof", "-sample_index=alloc_space", "-tagfocus", "type=System.Byte\\[\\]", "-top", "-unit=B", filepath.Join(out, profile.PprofFile))
			cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
			top, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("go tool pprof: %v\n%s", err, top)
			}
			mt := regexp.MustCompile(`(?m)^\s*(\d+)B\s+[\d.]+%\s+[\d.]+%\s+\d+B\s+[\d.]+%\s+VbTest\.Allocs\.Big$`).FindSubmatch(top)
			if mt == nil {
				t.Fatalf("go tool pprof -top shows no VbTest.Allocs.Big row:\n%s", top)
			}
			if n, _ := strconv.ParseInt(string(mt[1]), 10, 64); n != bigBytes {
				t.Errorf("go tool pprof: Allocs.Big allocated %dB of System.Byte[], the profile says %d", n, bigBytes)
			}

			// vbench report: the merged types, paths and collections.
			rep, stderr, code := runVbench(t, "report", out)
			if code != 0 {
				t.Fatalf("report: exit %d\n%s", code, stderr)
			}
			for _, want := range []string{"types by bytes allocated", "allocating paths by bytes", "VbTest.Allocs.Big ← VbTest.Program.Main [System.Byte[]",
				"Garbage collections: " + strconv.FormatInt(gcs, 10) + " (gen0 ", ", " + strconv.FormatInt(induced, 10) + " induced (GC.Collect), pause "} {
				if !strings.Contains(rep, want) {
					t.Errorf("vbench report lacks %q:\n%s", want, rep)
				}
			}
			if exact && !regexp.MustCompile(`\s10000\s+\S+%\s+VbTest\.AllocNode\n`).MatchString(rep) {
				t.Errorf("vbench report's types table has no row of 10000 VbTest.AllocNode:\n%s", rep)
			}
			svg := filepath.Join(t.TempDir(), "flame.svg")
			if _, stderr, code := runVbench(t, "report", out, "-o", svg); code != 0 {
				t.Fatalf("report -o flame.svg: exit %d\n%s", code, stderr)
			}
			b, _ := os.ReadFile(svg)
			want := `data-name="System.Byte[]" data-incl="` + strconv.FormatInt(bigBytes, 10) + `"`
			if !strings.Contains(string(b), want) || !strings.Contains(string(b), "width: bytes allocated") {
				t.Errorf("flame graph lacks the byte arrays' frame (%s)", want)
			}
		})
	}
}
