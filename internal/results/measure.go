package results

import "slices"

// Measure is a figure of a run besides its time metric, judged like time:
// what a profiler costs the whole program in memory, start-up, the GC's
// work and what it writes. A cell summarises each measure its runs
// recorded (Cell.Metrics); a measure no run recorded is absent, never 0.
type Measure string

// The measures.
const (
	MeasureCPU          Measure = "cpu"           // the process tree's user + system CPU, exec to exit (ns)
	MeasureWall         Measure = "wall"          // exec to exit, as the harness saw it (ns)
	MeasureRSS          Measure = "rss"           // peak resident memory of the largest process of the tree (bytes)
	MeasureStartup      Measure = "startup"       // exec to the entry of Main; a service: to its first ready answer (ns)
	MeasureGCCount      Measure = "gc_count"      // garbage collections, every generation
	MeasureGCPause      Measure = "gc_pause"      // the runtime's total GC pause (ns)
	MeasureAllocBytes   Measure = "alloc_bytes"   // bytes the program allocated on the managed heap
	MeasureProfileBytes Measure = "profile_bytes" // bytes the profiler wrote (engine modes)
	MeasureProfilerMem  Measure = "profiler_mem"  // the profiler's own peak memory, as its profile reports it (bytes)
	// A service under a mode that attaches (Service.Attach): the load's
	// throughput and latency before, during and after the attaches (each
	// kind's windows pooled), and the slowest request in flight in the
	// first second of an attach, the slowest attach's.
	MeasureRPSBefore Measure = "rps_before"
	MeasureRPSDuring Measure = "rps_during"
	MeasureRPSAfter  Measure = "rps_after"
	MeasureP50Before Measure = "p50_before"
	MeasureP50During Measure = "p50_during"
	MeasureP50After  Measure = "p50_after"
	MeasureP99Before Measure = "p99_before"
	MeasureP99During Measure = "p99_during"
	MeasureP99After  Measure = "p99_after"
	MeasureAttachMax Measure = "attach_max"
)

// Measures lists the measures in the order reports show them.
var Measures = []Measure{MeasureCPU, MeasureWall, MeasureRSS, MeasureStartup, MeasureGCCount, MeasureGCPause, MeasureAllocBytes, MeasureProfileBytes, MeasureProfilerMem,
	MeasureRPSBefore, MeasureRPSDuring, MeasureRPSAfter, MeasureP50Before, MeasureP50During, MeasureP50After, MeasureP99Before, MeasureP99During, MeasureP99After, MeasureAttachMax}

// Valid reports whether m is one of Measures.
func (m Measure) Valid() bool { return slices.Contains(Measures, m) }

// Unit is what the measure counts: "ns", "B" or "" (a count).
func (m Measure) Unit() string {
	if m.HigherIsBetter() {
		return "req/s"
	}
	if m.Window() {
		return "ns"
	}
	switch m {
	case MeasureCPU, MeasureWall, MeasureStartup, MeasureGCPause:
		return "ns"
	case MeasureRSS, MeasureAllocBytes, MeasureProfileBytes, MeasureProfilerMem:
		return "B"
	}
	return ""
}

// Of is run r's reading of the measure, and false when r did not record it.
func (m Measure) Of(r *Run) (float64, bool) {
	opt := func(p *int64) (float64, bool) {
		if p == nil {
			return 0, false
		}
		return float64(*p), true
	}
	if m.Window() {
		return windowOf(m, r)
	}
	if r.Instructions > 0 {
		switch m {
		case MeasureCPU, MeasureWall, MeasureRSS:
			// A run counted under valgrind ran ~30-50x slower with
			// valgrind's memory in its RSS: neither is the program's.
			return 0, false
		}
	}
	switch m {
	case MeasureCPU:
		return float64(r.UserNs + r.SysNs), r.WallNs > 0
	case MeasureWall:
		return float64(r.WallNs), r.WallNs > 0
	case MeasureRSS:
		if r.PeakRSS != nil {
			return float64(*r.PeakRSS), true
		}
		return float64(r.MaxRSS), r.MaxRSS > 0
	case MeasureStartup:
		return opt(r.StartupNs)
	case MeasureGCCount:
		if len(r.GCCollections) == 0 {
			return 0, false
		}
		return float64(r.GCCollections[0]), true // a collection of any generation collects gen 0
	case MeasureGCPause:
		return opt(r.GCPauseNs)
	case MeasureAllocBytes:
		return opt(r.AllocBytes)
	case MeasureProfileBytes:
		return opt(r.ProfileBytes)
	case MeasureProfilerMem:
		return opt(r.ProfilerMem)
	}
	return 0, false
}

// MeasureSummary is a cell's statistics of one measure, as of its time:
// the median over its measured runs with a 95% interval, the multiple
// over the workload's none cell, the difference from its reference (an
// A/B pair's other side or the baseline's cell) in the measure's unit,
// and its verdict.
type MeasureSummary struct {
	Runs       int     `json:"runs"` // measured runs that recorded it
	Median     float64 `json:"median"`
	Lo         float64 `json:"lo,omitempty"`
	Hi         float64 `json:"hi,omitempty"`
	Overhead   float64 `json:"overhead,omitempty"` // over the workload's none cell
	OverheadLo float64 `json:"overhead_lo,omitempty"`
	OverheadHi float64 `json:"overhead_hi,omitempty"`
	// Diff is median − the none cell's median, in the measure's unit
	// ("+34 MB [+30, +38]" of RSS), with its bootstrap interval.
	Diff   float64 `json:"diff,omitempty"`
	DiffLo float64 `json:"diff_lo,omitempty"`
	DiffHi float64 `json:"diff_hi,omitempty"`
	// Compare is the judgement against the cell's reference, as a cell's
	// time has (Cell.Compare), and Verdict its outcome.
	Compare *Change `json:"compare,omitempty"`
	Verdict Verdict `json:"verdict,omitempty"`
}

// Int64 is a pointer to n, for a Run's optional measures.
func Int64(n int64) *int64 { return &n }

// MeasureValues is the cell's measured runs' readings of m, those runs
// that recorded it.
func (c *Cell) MeasureValues(m Measure) []float64 {
	var out []float64
	for _, r := range c.Measured() {
		if v, ok := m.Of(&r); ok {
			out = append(out, v)
		}
	}
	return out
}

// TrustedValues is MeasureValues of the runs whose reading can be judged
// (Measure.Trusted).
func (c *Cell) TrustedValues(m Measure) []float64 {
	var out []float64
	for _, r := range c.Measured() {
		if v, ok := m.TrustedOf(&r); ok {
			out = append(out, v)
		}
	}
	return out
}

// TrustedOf is Of where the reading can be judged (Trusted), else false.
func (m Measure) TrustedOf(r *Run) (float64, bool) {
	if !m.Trusted(r) {
		return 0, false
	}
	return m.Of(r)
}

// MinChange is the smallest change of a measure that counts: relative
// (0.05 is 5%) and, where set, absolute in the measure's unit (bytes, ns,
// a count): a change must pass both, so 1 MB of RSS on a 30 MB program
// is not a 3% story and 5% of a 2 GB heap is not waved through.
type MinChange struct {
	Rel float64 `json:"rel"`
	Abs float64 `json:"abs,omitempty"`
}

// Of is the relative threshold the change from ref (the reference's
// median) must pass: the larger of Rel and Abs / ref.
func (mc MinChange) Of(ref float64) float64 {
	if mc.Abs > 0 && ref > 0 && mc.Abs/ref > mc.Rel {
		return mc.Abs / ref
	}
	return mc.Rel
}

// Trusted reports whether run r's reading of m can be judged: rss only
// where the process reported its own peak (Run.PeakRSS); the rusage peak
// of a program without the startup hook held vbench's own memory in files
// of older vbench, and is now known only above vbench's own.
func (m Measure) Trusted(r *Run) bool {
	if m == MeasureRSS {
		return r.PeakRSS != nil
	}
	return true
}

// Judged reports whether a cell's measure gets a verdict: the figures
// whose growth users are judged by (memory, start-up, the GC's work, the
// profile's size). The whole-program CPU and wall, the profiler's own
// memory are shown, not judged: the cell's time metric is judged already,
// and each judged figure makes the run's family larger.
func (m Measure) Judged() bool {
	switch m {
	case MeasureRSS, MeasureStartup, MeasureGCCount, MeasureGCPause, MeasureAllocBytes, MeasureProfileBytes:
		return true
	}
	return m.Window()
}

// DefaultMinChange is a judged measure's threshold when a suite sets none:
// the suite's relative min_change, with a floor of 1 MB for RSS and 5 ms
// for start-up (a few pages or a page fault more are not a regression).
func (m Measure) DefaultMinChange(rel float64) MinChange {
	switch m {
	case MeasureRSS:
		return MinChange{Rel: rel, Abs: 1 << 20}
	case MeasureStartup:
		return MinChange{Rel: rel, Abs: 5e6}
	}
	return MinChange{Rel: rel}
}

// MinChangeOf is the minimum relative change cell c is held to: the
// suite's min_change_instructions for a cell measured in instructions, when
// set, else its min_change.
func (f *File) MinChangeOf(c *Cell) float64 {
	if c.Metric.Deterministic() && f.Settings.CountThreshold > 0 {
		return f.Settings.CountThreshold
	}
	return f.Settings.Threshold
}

// MeasureMinChange is the threshold of measure m in f: the suite's own
// (Settings.MeasureMinChange), else m.DefaultMinChange of the file's
// min_change.
func (f *File) MeasureMinChange(m Measure) MinChange {
	if mc, ok := f.Settings.MeasureMinChange[m]; ok {
		return mc
	}
	return m.DefaultMinChange(f.Settings.Threshold)
}
