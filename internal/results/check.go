package results

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"vbench/stats"
)

// FieldError is what Validate refuses, at Path in the file (keys and
// array indices, as jsonpos.Find takes them): Decode prefixes the line.
type FieldError struct {
	Path []any
	Msg  string // "results[0] (fib/none).verdict: …"
}

func (e *FieldError) Error() string { return e.Msg }

func fieldErr(path []any, format string, args ...any) error {
	return &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// checkCell refuses what a hand-edited or corrupt file could hold that
// every reader would render as if vbench had measured it: a verdict no
// vbench gives, a judged verdict without the comparison it was judged by
// (readers dereference it), negative run figures, and summaries the runs
// do not give (a stored median_ns is what tables print; it must be the
// runs' median).
func checkCell(i int, c *Cell) error {
	at := func(field ...any) []any { return append([]any{"results", i}, field...) }
	name := fmt.Sprintf("results[%d] (%s)", i, c.Key())
	if err := checkVerdict(at(), name, c.Verdict, c.Compare); err != nil {
		return err
	}
	for _, m := range slices.Sorted(maps.Keys(c.Metrics)) {
		if ms := c.Metrics[m]; ms != nil {
			if err := checkVerdict(at("metrics", string(m)), fmt.Sprintf("%s.metrics.%s", name, m), ms.Verdict, ms.Compare); err != nil {
				return err
			}
		}
	}
	for j := range c.Samples {
		r := &c.Samples[j]
		for _, f := range runFigures(r) {
			if f.v < 0 {
				return fieldErr(at("samples", j, f.name), "%s.samples[%d].%s: %d is negative: not a measurement (the file was edited, or is corrupt)", name, j, f.name, f.v)
			}
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"median_ns", c.MedianNs}, {"ci_lo_ns", c.CILoNs}, {"ci_hi_ns", c.CIHiNs}, {"mad_ns", c.MADNs},
		{"overhead", c.Overhead}, {"overhead_lo", c.OverheadLo}, {"overhead_hi", c.OverheadHi},
		{"wall_median_ns", c.WallMedianNs}, {"user_median_ns", c.UserMedianNs}, {"sys_median_ns", c.SysMedianNs}, {"max_rss_median_bytes", c.MaxRSSMedian}} {
		if f.v < 0 {
			return fieldErr(at(f.name), "%s.%s: %s is negative: not a measurement (the file was edited, or is corrupt)", name, f.name, num(f.v))
		}
	}
	// 0: a cell written without its summary (tests build such files);
	// anything else must be what the runs give. Runs that recorded no
	// value (0) are left to CheckMeasured, which says so plainly.
	if xs := c.Values(); len(xs) > 0 && c.MedianNs != 0 && !slices.Contains(xs, 0) {
		if m := stats.Median(xs); math.Abs(c.MedianNs-m) > 1e-9*math.Abs(m) {
			return fieldErr(at("median_ns"), "%s.median_ns: %s, but its %d measured runs' median %s is %s: the summary does not match the runs (the file was edited, or is corrupt)", name, num(c.MedianNs), len(xs), c.Metric.OrDefault(), num(m))
		}
	}
	return nil
}

// checkVerdict refuses an unknown verdict, and a comparison's verdict
// without its comparison.
func checkVerdict(path []any, name string, v Verdict, ch *Change) error {
	if v == "" {
		return nil
	}
	if !v.Valid() {
		known := make([]string, len(Verdicts))
		for i, k := range Verdicts {
			known[i] = string(k)
		}
		return fieldErr(append(path, "verdict"), "%s.verdict: unknown verdict %q (known: %s)", name, v, strings.Join(known, ", "))
	}
	if v.Judged() && v != VerdictReference && ch == nil {
		return fieldErr(append(path, "verdict"), "%s.verdict: %q without the comparison it was judged by (no \"compare\"): judge it again with vbench compare or vbench report --baseline", name, v)
	}
	return nil
}

// num is x in full ("49651694831", not "4.9651694831e+10").
func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

type figure struct {
	name string
	v    int64
}

// runFigures are run r's figures that count something, none of which
// can be negative.
func runFigures(r *Run) []figure {
	fs := []figure{{"wall_ns", r.WallNs}, {"elapsed_ns", r.ElapsedNs}, {"cpu_ns", r.CPUNs}, {"instructions", r.Instructions}, {"processes", int64(r.Processes)}, {"user_ns", r.UserNs},
		{"sys_ns", r.SysNs}, {"max_rss_bytes", r.MaxRSS}, {"calls", r.Calls}, {"samples_taken", r.SamplesTaken}}
	for _, o := range []struct {
		name string
		p    *int64
	}{{"startup_ns", r.StartupNs}, {"gc_pause_ns", r.GCPauseNs}, {"alloc_bytes", r.AllocBytes}, {"jit_ns", r.JITNs}, {"profile_bytes", r.ProfileBytes}, {"peak_rss_bytes", r.PeakRSS}, {"profiler_mem_bytes", r.ProfilerMem}} {
		if o.p != nil {
			fs = append(fs, figure{o.name, *o.p})
		}
	}
	for k, n := range r.GCCollections {
		if n < 0 {
			fs = append(fs, figure{fmt.Sprintf("gc_collections[%d]", k), n})
		}
	}
	if s := r.Service; s != nil {
		fs = append(fs, figure{"requests", s.Requests}, figure{"load_ns", s.LoadNs}, figure{"latency_p50_ns", s.LatencyP50Ns},
			figure{"latency_p99_ns", s.LatencyP99Ns}, figure{"server_cpu_ns", s.ServerCPUNs}, figure{"warmup_requests", s.WarmupRequests})
	}
	return fs
}
