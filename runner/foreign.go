package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"vbench/internal/dotnetbuild"
	"vbench/internal/foreignprof"
	"vbench/internal/modes"
	"vbench/internal/results"
)

// useForeign reads the profile a mode's own profiler wrote in a measured
// run (Spec.Profile: EventPipe's trace, another profiler's pprof) and scores
// it as an engine mode's: the call counts a calls profile has against the
// workload's, the samples of a sampled one towards the share checks and
// coverage. It returns why the run fails ("" when it does not): the
// profile is missing (with the path it expected), unreadable (with the
// reader's reason), or its shares cannot be counted.
func (l *launch) useForeign(c *cellState, r *results.Run, runDir string, rep Report) string {
	pf := c.Spec.Profile
	pattern := strings.ReplaceAll(pf.Path, modes.RunDir, runDir)
	paths, _ := filepath.Glob(pattern) // the pattern was checked with the suite
	if len(paths) == 0 {
		return fmt.Sprintf("the mode's profile was not written: expected %s (%s)%s", pf.Path, pattern, runDirHas(runDir))
	}
	sort.Strings(paths)
	p, err := foreignprof.Read(pf.Format, paths, ReadNettrace)
	if err != nil {
		return fmt.Sprintf("the mode's %s profile is unreadable: %v", pf.Format, err)
	}
	if p.Sampled() {
		// As an engine's (events): a kernel's metric counts the samples
		// of its share of the profile's span, where the profile has one
		// (perf script's timestamps); a nettrace's counts them all.
		_, r.SamplesTaken = events(modes.EngineSampling, c.Metric, len(paths), p, r.ElapsedNs)
		if msg := c.shares.add(p, rep.Shares); msg != "" {
			return msg
		}
		c.cover.addSampling(p)
	} else if len(rep.Calls) > 0 {
		checkCalls(c, r.Seq, p, rep.Calls)
	}
	return ""
}

// runDirHas says what the run's directory did hold, for a profile that is
// not where the mode said: often a name or a directory level off.
func runDirHas(dir string) string {
	var names []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && path != dir && len(names) < 8 {
			rel, _ := filepath.Rel(dir, path)
			names = append(names, rel)
		}
		return nil
	})
	if len(names) == 0 {
		return "; the run's directory was empty"
	}
	return "; the run's directory held: " + strings.Join(names, ", ")
}

// The nettrace reader (internal/foreignprof/nettrace: TraceEvent in a small
// C# program), built once per vbench process into the user's cache, as the
// workloads are built, on the first nettrace profile read.
var nettraceTool struct {
	sync.Mutex
	dll string
	err error
}

// NettraceTimeout bounds one read of a nettrace file.
const NettraceTimeout = 5 * time.Minute

func nettraceReaderDll() (string, error) {
	nettraceTool.Lock()
	defer nettraceTool.Unlock()
	if nettraceTool.dll != "" || nettraceTool.err != nil {
		return nettraceTool.dll, nettraceTool.err
	}
	nettraceTool.dll, nettraceTool.err = buildNettraceReader()
	return nettraceTool.dll, nettraceTool.err
}

func buildNettraceReader() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), NettraceTimeout)
	defer cancel()
	return dotnetbuild.Embedded(ctx, "nettrace-reader", foreignprof.NettraceSource, "nettrace")
}

// ReadNettrace runs the nettrace reader on path: its stacks as JSON, or
// the reader's reason for not reading the file (TraceEvent's).
func ReadNettrace(path string) ([]byte, error) {
	dll, err := nettraceReaderDll()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), NettraceTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "dotnet", dll, path)
	cmd.Env = dotnetbuild.Env() // the reader itself is not profiled
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("TraceEvent: %s", dotnetbuild.LastLines(msg, 3))
	}
	return stdout.Bytes(), nil
}
