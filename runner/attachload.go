package runner

// A service mode with attach: (modes.AttachPlan): the server starts
// unprofiled; after the warm-up one load runs through every window while
// vbench attaches the mode's engine to the server (the diagnostics port's
// AttachProfiler, as vbench profile --pid), lets it profile for the plan's
// duration and detach itself, and again; the load's requests are then cut
// into windows by when each started: before the first attach, during each
// (attach sent to profile written), after each (detach to the next attach,
// or the load's end).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"vbench/internal/attach"
	"vbench/internal/profile"
	"vbench/internal/results"
)

// attachDetachSlack is how long after an attach's duration vbench waits
// for its profile: the detach (the runtime waits for callbacks in flight)
// and the writing.
const attachDetachSlack = 60 * time.Second

// spikeSpan is how long after an attach is sent its spike is looked for.
const spikeSpan = time.Second

// span is one stretch of the measured load, from its start.
type span struct {
	name       string
	start, end time.Duration
}

// attachLoad runs the measured load of an attach cell against server pid:
// the load generator for the whole plan, the attaches in it. The profiles
// go to runDir/attach-1, attach-2, … (one process directory each). It
// returns the load's result and what the attaches did; an error is the
// run's failure (the load's, or an attach's).
func (l *launch) attachLoad(ctx context.Context, c *cellState, pid int, target, lib, runDir string) (*loadResult, *results.AttachLoad, error) {
	if pid <= 0 {
		return nil, nil, errors.New("cannot attach: the server's process id is not known")
	}
	plan := *c.Spec.Attach
	ld := c.Workload.Load
	// Longer than the plan can take: the load is stopped when the last
	// window ends.
	longest := plan.Load() + time.Duration(plan.Times)*(attach.AttachTimeout+attachDetachSlack) + time.Minute
	gen := startLoad(ctx, ld.Generator, target, ld.Connections, longest, c.Workload.Cwd)
	t0 := time.Now()
	if err := gen.cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("the load generator %s failed: %v", ld.Generator, err)
	}
	since := func() time.Duration { return time.Since(t0) }
	var spans []span
	var costs []results.AttachCost
	var attachErr error
	next := time.Duration(plan.At)
	spans = append(spans, span{name: results.WindowBefore})
	for k := 1; k <= plan.Times && attachErr == nil; k++ {
		if !sleepCtx(ctx, next-since()) {
			break
		}
		at := since()
		spans[len(spans)-1].end = at
		cost, err := l.attachOnce(ctx, c, k, pid, lib, runDir)
		costs = append(costs, cost)
		end := since()
		spans = append(spans, span{fmt.Sprintf("%s %d", results.WindowDuring, k), at, end}, span{name: fmt.Sprintf("%s %d", results.WindowAfter, k), start: end})
		if err != nil {
			attachErr = fmt.Errorf("attach %d of %d: %v", k, plan.Times, err)
			break
		}
		next = end + time.Duration(plan.Gap)
	}
	if attachErr == nil {
		sleepCtx(ctx, next-since())
	}
	spans[len(spans)-1].end = since()
	gen.stop()
	res, err := gen.wait(ctx)
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	if err == nil {
		err = attachErr
	}
	if err != nil {
		return nil, nil, err
	}
	return res, windows(res, spans, costs), nil
}

// attachOnce is attach k: the engine loaded into pid, profiling for the
// plan's duration, its profile waited for and moved to runDir/attach-k.
func (l *launch) attachOnce(ctx context.Context, c *cellState, k, pid int, lib, runDir string) (results.AttachCost, error) {
	var cost results.AttachCost
	sent := time.Now()
	tmp := filepath.Join(runDir, ".attach-"+strconv.Itoa(k))
	logFile := filepath.Join(runDir, "attach-"+strconv.Itoa(k)+".log")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return cost, err
	}
	d := time.Duration(c.Spec.Attach.Duration)
	opts := attach.Options{Engine: c.Spec.Engine, ProfileDir: tmp, Settings: c.Spec.ProfilerSettings}
	err := attach.Live(pid, lib, attach.ClientData(opts, d, logFile))
	var de *attach.DialError
	if errors.As(err, &de) {
		err = de.Err
	}
	cost.AttachNs = int64(time.Since(sent))
	if err != nil {
		return cost, fmt.Errorf("the runtime did not attach the profiler: %v%s", err, profilerLog(logFile))
	}
	planned := time.Now().Add(d)
	pdir := filepath.Join(tmp, strconv.Itoa(pid))
	for end := planned.Add(attachDetachSlack); ; {
		if _, err := os.Stat(filepath.Join(pdir, profile.JSONFile)); err == nil {
			break
		}
		if time.Now().After(end) {
			return cost, fmt.Errorf("no profile %v after its %v of profiling%s", attachDetachSlack, d, profilerLog(logFile))
		}
		if !sleepCtx(ctx, 50*time.Millisecond) {
			return cost, ctx.Err()
		}
	}
	cost.DetachNs = max(0, int64(time.Since(planned)))
	if err := os.Rename(pdir, filepath.Join(runDir, "attach-"+strconv.Itoa(k))); err != nil {
		return cost, err
	}
	os.Remove(tmp)
	return cost, nil
}

// profilerLog is what the profiler wrote to an attach's log, for a message.
func profilerLog(path string) string {
	b, _ := os.ReadFile(path)
	if s := strings.TrimSpace(string(b)); s != "" {
		return "; the profiler said: " + oneLine(s)
	}
	return ""
}

// sleepCtx sleeps for d (nothing when d <= 0); false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// windows cuts the load's requests at the spans (each request in the span
// it started in), pools each kind's, and finds each attach's spike: the
// requests in flight in the spikeSpan after it was sent.
func windows(res *loadResult, spans []span, costs []results.AttachCost) *results.AttachLoad {
	out := &results.AttachLoad{Attaches: costs}
	pooled := map[string]*pool{}
	for _, sp := range spans {
		var p pool
		for _, rq := range res.requests {
			if s := secs(rq.start); s >= sp.start && s < sp.end {
				p.add(rq.latency)
			}
		}
		p.ns += sp.end - sp.start
		out.Windows = append(out.Windows, p.window(sp.name, sp.start, sp.end))
		kind, _, _ := strings.Cut(sp.name, " ")
		if pooled[kind] == nil {
			pooled[kind] = &pool{}
		}
		pooled[kind].merge(&p)
	}
	for _, kind := range results.WindowKinds {
		if p := pooled[kind]; p != nil {
			out.Pooled = append(out.Pooled, p.window(kind, 0, 0))
		}
	}
	k := 0
	for _, sp := range spans {
		if !strings.HasPrefix(sp.name, results.WindowDuring) || k >= len(out.Attaches) {
			continue
		}
		var p pool
		for _, rq := range res.requests {
			if s := secs(rq.start); s < sp.start+spikeSpan && s+secs(rq.latency) > sp.start {
				p.add(rq.latency)
			}
		}
		a := &out.Attaches[k]
		a.SpikeRequests = int64(len(p.lat))
		if len(p.lat) > 0 {
			sort.Float64s(p.lat)
			a.SpikeMaxNs, a.SpikeP99Ns = nanos(p.lat[len(p.lat)-1]), quantileNs(p.lat, 0.99)
		}
		k++
	}
	return out
}

// pool is requests' latencies (s) and the time they were sent over.
type pool struct {
	lat []float64
	ns  time.Duration
}

func (p *pool) add(lat float64) { p.lat = append(p.lat, lat) }

func (p *pool) merge(o *pool) { p.lat, p.ns = append(p.lat, o.lat...), p.ns+o.ns }

// window is the pool's figures; start and end are the span's (0 pooled).
func (p *pool) window(name string, start, end time.Duration) results.Window {
	w := results.Window{Name: name, StartNs: int64(start), EndNs: int64(end), Requests: int64(len(p.lat))}
	if len(p.lat) == 0 {
		return w
	}
	sort.Float64s(p.lat)
	if p.ns > 0 {
		w.RPS = float64(len(p.lat)) / p.ns.Seconds()
	}
	w.P50Ns, w.P99Ns = quantileNs(p.lat, 0.50), quantileNs(p.lat, 0.99)
	return w
}

func secs(s float64) time.Duration { return time.Duration(s * 1e9) }

func nanos(s float64) int64 { return int64(math.Round(s * 1e9)) }
