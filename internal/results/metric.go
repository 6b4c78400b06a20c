package results

import (
	"math"
	"slices"
	"strconv"

	"golang.org/x/perf/benchunit"
)

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
	// disturbs least (docs/notebook/statistical-quality.md).
	MetricKernelCPU Metric = "kernel-cpu"
	// The service metrics, from a service workload's load generator
	// (runner/service.go). RPS is higher-is-better; every statistic keeps
	// lower-is-better by taking its value as the time per request
	// (1/rps, Of), so a median, an interval, an overhead (none's rps over
	// the mode's: x1.20 is 20% worse) and a verdict need no direction of
	// their own; only what a person reads turns it back into requests/s
	// (Format, Interval).
	MetricRPS        Metric = "rps"
	MetricLatencyP50 Metric = "latency-p50"
	MetricLatencyP99 Metric = "latency-p99"
	// MetricCPUPerRequest is the CPU time of the server's process tree
	// (the server, and a mode's wrapper with its helpers) during the
	// measured load over the requests it completed: a service's
	// kernel-cpu. A neighbour holding a core halves a server's requests
	// per second but barely moves the CPU each request costs it, and CPU
	// per request is the figure an APM agent's overhead is quoted in.
	MetricCPUPerRequest Metric = "cpu-per-request"
	// MetricInstructions is the instructions the run's whole process tree
	// executed, counted by valgrind's CPU simulator (runner/valgrind.go):
	// not a time, but a count that repeats to about 0.01 % whatever else
	// the machine runs (CodSpeed's way), so a verdict decides with a few
	// runs where time cannot (docs/instructions.md).
	MetricInstructions Metric = "instructions"
	// MetricKernelInstructions is what the process executed between the
	// workload's kernel marks (vbench's callgrind client requests, which
	// benchmarks/common/Harness.cs calls around its kernel), every thread
	// included: kernel-cpu's count, as instructions is cpu's.
	MetricKernelInstructions Metric = "kernel-instructions"
)

// Metrics lists the metrics.
var Metrics = []Metric{MetricElapsed, MetricWall, MetricCPU, MetricKernelCPU, MetricRPS, MetricLatencyP50, MetricLatencyP99, MetricCPUPerRequest, MetricInstructions, MetricKernelInstructions}

// Deterministic reports whether a run's reading of m does not depend on
// the machine's load: its runs may go in parallel, it needs no warmup,
// and its verdicts use the rule for near-exact readings (stats.JudgeExact).
func (m Metric) Deterministic() bool { return m.Count() }

// Count reports whether m counts events rather than time: its values
// print as counts ("253.4M instr"), not durations.
func (m Metric) Count() bool { return m == MetricInstructions || m == MetricKernelInstructions }

// Service reports whether m is measured by a service workload's load
// generator (and only there).
func (m Metric) Service() bool {
	return m == MetricRPS || m == MetricLatencyP50 || m == MetricLatencyP99 || m == MetricCPUPerRequest
}

// HigherIsBetter reports whether a larger reading of m is better (rps).
// Values (Of) are lower-is-better for every metric.
func (m Metric) HigherIsBetter() bool { return m == MetricRPS }

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
	case MetricRPS:
		return "requests per second"
	case MetricLatencyP50:
		return "median latency"
	case MetricLatencyP99:
		return "99th-percentile latency"
	case MetricCPUPerRequest:
		return "server CPU per request"
	case MetricInstructions:
		return "instructions (whole process)"
	case MetricKernelInstructions:
		return "instructions (the kernel)"
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
	case MetricRPS:
		return "requests the load generator completed per second (higher is better; overhead is none's over the mode's)"
	case MetricLatencyP50:
		return "the load generator's median request latency"
	case MetricLatencyP99:
		return "the load generator's 99th-percentile request latency"
	case MetricCPUPerRequest:
		return "the server's CPU time (its process tree's) during the measured load over the requests it completed"
	case MetricInstructions:
		return "instructions the whole process tree executed, counted under valgrind (not a time: valgrind runs a program ~30-50x slower)"
	case MetricKernelInstructions:
		return "instructions the process executed between the workload's kernel marks, counted under valgrind's callgrind"
	}
	return "the workload's own measurement, from its VBENCH line"
}

// Of is run r's value of the metric, in nanoseconds; for rps the time per
// request, 1e9/rps (0 when the run completed none).
func (m Metric) Of(r *Run) int64 {
	if m.Service() && r.Service == nil {
		return 0
	}
	switch m.OrDefault() {
	case MetricRPS:
		if r.RPS <= 0 {
			return 0
		}
		return int64(math.Round(1e9 / r.RPS))
	case MetricLatencyP50:
		return r.LatencyP50Ns
	case MetricLatencyP99:
		return r.LatencyP99Ns
	case MetricCPUPerRequest:
		if r.Requests <= 0 || r.ServerCPUNs <= 0 {
			return 0
		}
		return int64(math.Round(float64(r.ServerCPUNs) / float64(r.Requests)))
	case MetricWall:
		return r.WallNs
	case MetricCPU:
		return r.UserNs + r.SysNs
	case MetricKernelCPU:
		return r.CPUNs
	case MetricInstructions, MetricKernelInstructions:
		return r.Instructions
	}
	return r.ElapsedNs
}

// Format is a value of the metric (Of, a median of them) as a person
// reads it: requests/s for rps ("5210 req/s"), else a duration through
// duration (the caller's number format). 0 is "".
func (m Metric) Format(ns float64, duration func(float64) string) string {
	if ns <= 0 {
		return ""
	}
	if m.HigherIsBetter() {
		return strconv.FormatFloat(1e9/ns, 'f', 0, 64) + " req/s"
	}
	if m.Count() {
		return FormatCount(ns) + " instr"
	}
	return duration(ns)
}

// Interval is an interval of values [lo, hi] in the metric's reading
// order: for rps the bounds turn over (the shorter time per request is
// the higher rate).
func (m Metric) Interval(lo, hi float64) (float64, float64) {
	if m.HigherIsBetter() {
		return hi, lo
	}
	return lo, hi
}

// FormatCount prints a count with four significant digits and an SI
// prefix, as benchstat prints counts: "253.4M", "1.263G", "812".
func FormatCount(x float64) string {
	return benchunit.Scale(x, benchunit.Decimal)
}
