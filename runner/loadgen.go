package runner

// The load generator: hey (suite.LoadGenerator), run for a duration with its
// per-request CSV output. hey stops a timed load by letting every request in
// flight finish and reporting it, so the rows it prints are every request
// the server handled (wrk stops with requests in flight that the server
// still serves and wrk never counts); the CSV gives each request's latency,
// from which vbench takes its percentiles.

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"sort"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"gonum.org/v1/gonum/stat"
)

// heyMaxRows is how many requests hey keeps (its maxRes): a longer load's
// rows would be cut, and its counts with them.
const heyMaxRows = 1_000_000

// loadResult is one load's requests as the load generator reported them.
type loadResult struct {
	completed int64
	latencies []float64 // seconds, sorted
	spanNs    int64     // the first request's start to the last response's end
	bad       int64     // responses whose status was not 2xx
	firstBad  string
	requests  []request // in the CSV's order
}

// request is one completed request: when it started, from the load's
// start, and how long it took, in seconds.
type request struct{ start, latency float64 }

// runLoad drives url with conns connections for d and reads hey's CSV. hey
// runs in its own process group, killed on cancellation.
func runLoad(ctx context.Context, gen, url string, conns int, d time.Duration, dir string) (*loadResult, error) {
	ld := startLoad(ctx, gen, url, conns, d, dir)
	if err := ld.cmd.Start(); err != nil {
		return nil, fmt.Errorf("the load generator %s failed: %v", gen, err)
	}
	return ld.wait(ctx)
}

// load is a load generator's process.
type load struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

// startLoad is the load generator's command, to be started.
func startLoad(ctx context.Context, gen, url string, conns int, d time.Duration, dir string) *load {
	ld := &load{}
	cmd := exec.CommandContext(ctx, gen, "-z", d.String(), "-c", strconv.Itoa(conns), "-o", "csv", url)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &ld.stdout, &ld.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return unix.Kill(-cmd.Process.Pid, unix.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	ld.cmd = cmd
	return ld
}

// stop asks the load generator to end now: hey stops on SIGINT as at the
// end of its duration, lets the requests in flight finish and reports.
func (ld *load) stop() { ld.cmd.Process.Signal(syscall.SIGINT) }

// wait waits for the load generator's end and reads its CSV.
func (ld *load) wait(ctx context.Context) (*loadResult, error) {
	if err := ld.cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("the load generator %s failed: %v: %s", ld.cmd.Path, err, oneLine(ld.stderr.String()))
	}
	return parseHeyCSV(&ld.stdout)
}

// parseHeyCSV reads hey's -o csv: a header, then one row per completed
// request: response-time (s), DNS+dialup, DNS, request-write,
// response-delay, response-read, status-code, offset (s from the start).
func parseHeyCSV(rd io.Reader) (*loadResult, error) {
	cr := csv.NewReader(rd)
	cr.FieldsPerRecord = 8
	head, err := cr.Read()
	if err == io.EOF {
		return nil, errors.New("the load generator printed nothing")
	}
	if err != nil {
		return nil, fmt.Errorf("the load generator's CSV: %v", err)
	}
	if head[0] != "response-time" || head[6] != "status-code" || head[7] != "offset" {
		return nil, fmt.Errorf("the load generator's CSV has an unknown header %q (a hey of another version?)", head)
	}
	res := &loadResult{}
	end := 0.0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("the load generator's CSV: %v", err)
		}
		lat, e1 := strconv.ParseFloat(rec[0], 64)
		off, e2 := strconv.ParseFloat(rec[7], 64)
		code, e3 := strconv.Atoi(rec[6])
		if err := errors.Join(e1, e2, e3); err != nil {
			return nil, fmt.Errorf("the load generator's CSV row %q: %v", rec, err)
		}
		res.completed++
		res.latencies = append(res.latencies, lat)
		res.requests = append(res.requests, request{off, lat})
		end = math.Max(end, off+lat)
		if code < 200 || code > 299 {
			if res.bad == 0 {
				res.firstBad = rec[6]
			}
			res.bad++
		}
	}
	if res.completed >= heyMaxRows {
		return nil, fmt.Errorf("the load generator kept only its first %d requests: shorten the load's duration", heyMaxRows)
	}
	sort.Float64s(res.latencies)
	res.spanNs = int64(math.Round(end * 1e9))
	return res, nil
}

// ok says why the load's responses do not count: none completed, or some
// were not 2xx.
func (r *loadResult) ok() error {
	switch {
	case r.completed == 0:
		return errors.New("no request completed")
	case r.bad > 0:
		return fmt.Errorf("%d of %d responses were not 2xx (the first: %s)", r.bad, r.completed, r.firstBad)
	}
	return nil
}

// rps is the completed requests over the load's span.
func (r *loadResult) rps() float64 {
	if r.spanNs <= 0 {
		return 0
	}
	return float64(r.completed) / (float64(r.spanNs) / 1e9)
}

// quantile is the q-quantile of the latencies, in nanoseconds.
func (r *loadResult) quantile(q float64) int64 { return quantileNs(r.latencies, q) }

// quantileNs is the q-quantile of sorted latencies in seconds (the
// smallest latency with at least q of the requests at or below it), in
// nanoseconds; 0 without any.
func quantileNs(sorted []float64, q float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	return nanos(stat.Quantile(q, stat.Empirical, sorted, nil))
}
