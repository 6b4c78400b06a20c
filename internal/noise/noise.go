// Package noise holds run times recorded on a real machine and draws
// synthetic experiments from them, so that a verdict rule can be judged by
// its false alarms and its power on this machine's noise rather than on a
// textbook distribution (docs/notebook/statistical-quality.md).
//
// The recording (testdata/noise.json, made by scripts/studies/noise-study.sh and
// `go run -tags vbenchstudy ./scripts/studies/noisestudy record`) has two kinds of invocations:
//
//   - within: one `vbench run` whose cells ran in interleaved rounds: the
//     same build twice (A1, A2) and a 5% slower variant (B) of each workload,
//     so sample k of every cell is from round k;
//   - across: separate invocations alternating an A suite and a B suite, as
//     a stored baseline and a later run are.
package noise

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"time"

	"vbench/internal/results"
)

// Data is a recording.
type Data struct {
	Recorded    time.Time    `json:"recorded"`
	Machine     string       `json:"machine"`
	Note        string       `json:"note,omitempty"`
	Invocations []Invocation `json:"invocations"`
}

// Kinds of invocation.
const (
	Within = "within"
	Across = "across"
)

// Invocation is one `vbench run`: every cell's elapsed times in round order,
// and how busy the machine was meanwhile.
type Invocation struct {
	Name     string            `json:"name"`
	Kind     string            `json:"kind"`
	Side     string            `json:"side,omitempty"` // across: "a" or "b"
	Started  time.Time         `json:"started"`
	Seconds  float64           `json:"seconds"`          // the invocation's wall time
	OtherCPU float64           `json:"other_cpu"`        // cores other processes kept busy (vbench's figure)
	Load     []float64         `json:"load_average"`     // 1-minute load at start and end
	Uptime   []string          `json:"uptime,omitempty"` // `uptime` before and after
	Modes    map[string]string `json:"modes,omitempty"`  // workload → mode it ran under
	// Per workload, run k of round k, in three of vbench's metrics: the
	// workload's own elapsed time of its kernel and the CPU time of the
	// process during the kernel (both from its VBENCH line: metrics elapsed
	// and kernel-cpu), and the CPU time (user + system) of the whole
	// process, start-up included, as wait4 reported it (metric cpu).
	Elapsed   map[string][]float64 `json:"elapsed_ns"`
	KernelCPU map[string][]float64 `json:"cpu_ns"`
	CPU       map[string][]float64 `json:"process_cpu_ns"`
}

// Metrics lists the metrics a recording holds.
var Metrics = []results.Metric{results.MetricElapsed, results.MetricKernelCPU, results.MetricCPU}

// Cells returns the invocation's samples of one metric; nil for a metric
// the recording does not hold.
func (v *Invocation) Cells(metric results.Metric) map[string][]float64 {
	switch metric {
	case results.MetricElapsed:
		return v.Elapsed
	case results.MetricKernelCPU:
		return v.KernelCPU
	case results.MetricCPU:
		return v.CPU
	}
	return nil
}

// Load reads a recording.
func Load(path string) (*Data, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d Data
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &d, nil
}

// Of returns the invocations of one kind (and side, when side is not "").
func (d *Data) Of(kind, side string) []*Invocation {
	var out []*Invocation
	for i := range d.Invocations {
		v := &d.Invocations[i]
		if v.Kind == kind && (side == "" || v.Side == side) {
			out = append(out, v)
		}
	}
	return out
}

// Pair is one synthetic experiment: a baseline sample A and a new sample B.
// When Paired, A[k] and B[k] ran in the same round of one invocation.
type Pair struct {
	A, B   []float64
	Paired bool
}

// WithinPair draws n rounds (without replacement, in round order) of one
// within invocation, chosen at random, and returns cells a and b of those
// rounds, paired.
func (d *Data) WithinPair(rng *rand.Rand, metric results.Metric, n int, a, b string) (Pair, error) {
	inv := d.Of(Within, "")
	if len(inv) == 0 {
		return Pair{}, fmt.Errorf("no within invocations")
	}
	v := inv[rng.IntN(len(inv))]
	xa, xb := v.Cells(metric)[a], v.Cells(metric)[b]
	m := min(len(xa), len(xb))
	if m < n {
		return Pair{}, fmt.Errorf("%s: %s and %s have %d common rounds, need %d", v.Name, a, b, m, n)
	}
	idx := pick(rng, m, n)
	p := Pair{Paired: true}
	for _, k := range idx {
		p.A = append(p.A, xa[k])
		p.B = append(p.B, xb[k])
	}
	return p, nil
}

// AcrossPair draws two different across invocations, the first of side sa
// and the second of side sb, and n runs of cell w from each (in run order).
// The samples are not paired: they ran minutes apart.
func (d *Data) AcrossPair(rng *rand.Rand, metric results.Metric, n int, w, sa, sb string) (Pair, error) {
	ia, ib := d.Of(Across, sa), d.Of(Across, sb)
	if len(ia) == 0 || len(ib) == 0 || (sa == sb && len(ia) < 2) {
		return Pair{}, fmt.Errorf("not enough across invocations of sides %s and %s", sa, sb)
	}
	va := ia[rng.IntN(len(ia))]
	vb := ib[rng.IntN(len(ib))]
	for vb == va {
		vb = ib[rng.IntN(len(ib))]
	}
	var p Pair
	for _, side := range []struct {
		v   *Invocation
		dst *[]float64
	}{{va, &p.A}, {vb, &p.B}} {
		xs := side.v.Cells(metric)[w]
		if len(xs) < n {
			return Pair{}, fmt.Errorf("%s: %s has %d runs, need %d", side.v.Name, w, len(xs), n)
		}
		for _, k := range pick(rng, len(xs), n) {
			*side.dst = append(*side.dst, xs[k])
		}
	}
	return p, nil
}

// pick returns n distinct indices of [0, m), sorted.
func pick(rng *rand.Rand, m, n int) []int {
	idx := rng.Perm(m)[:n]
	sort.Ints(idx)
	return idx
}
