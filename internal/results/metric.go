package results

import "slices"

// Metric is what a cell's statistics are computed from: which number of
// each run is "the time". Every statistic, overhead, verdict and report of
// a cell uses its metric and names it.
type Metric string

// The metrics. MetricElapsed, the default, and MetricKernelCPU need the
// workload's VBENCH line.
const (
	MetricElapsed Metric = "elapsed" // the workload's own kernel time (elapsed_ns on its VBENCH line)
	MetricWall    Metric = "wall"    // the process's start to exit, as the harness saw it
	MetricCPU     Metric = "cpu"     // user + system CPU of the process and the children it waited for
	// MetricKernelCPU is the CPU time the process spent during the
	// workload's kernel (cpu_ns on its VBENCH line): what a shared machine
	// disturbs least (docs/harness.md, "Statistical quality").
	MetricKernelCPU Metric = "kernel-cpu"
)

// Metrics lists the metrics.
var Metrics = []Metric{MetricElapsed, MetricWall, MetricCPU, MetricKernelCPU}

// Valid reports whether m is one of Metrics.
func (m Metric) Valid() bool { return slices.Contains(Metrics, m) }

// OrDefault is m, or MetricElapsed for "" (results files written before
// cells recorded their metric measured elapsed time).
func (m Metric) OrDefault() Metric {
	if m == "" {
		return MetricElapsed
	}
	return m
}

// Phrase is the metric in a few words for a report's prose: "wall time".
func (m Metric) Phrase() string {
	switch m.OrDefault() {
	case MetricWall:
		return "wall time"
	case MetricCPU:
		return "CPU time"
	case MetricKernelCPU:
		return "kernel CPU time"
	}
	return "elapsed time"
}

// Meaning says what the metric measures.
func (m Metric) Meaning() string {
	switch m.OrDefault() {
	case MetricWall:
		return "the process's start to exit"
	case MetricCPU:
		return "user + system CPU of the process and the children it waited for"
	case MetricKernelCPU:
		return "the process's CPU time during the workload's own measurement, from its VBENCH line"
	}
	return "the workload's own measurement, from its VBENCH line"
}

// Of is run r's value of the metric, in nanoseconds.
func (m Metric) Of(r *Run) int64 {
	switch m.OrDefault() {
	case MetricWall:
		return r.WallNs
	case MetricCPU:
		return r.UserNs + r.SysNs
	case MetricKernelCPU:
		return r.CPUNs
	}
	return r.ElapsedNs
}
