package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	"vbench/internal/numfmt"
	"vbench/internal/results"
	"vbench/reports"
	"vbench/runner"
)

// newProgress picks how a run reports progress on stderr: a bar on a
// terminal, plain lines otherwise (CI logs), nothing with --quiet.
func newProgress(stderr io.Writer, quiet bool) runner.Progress {
	if quiet {
		return nil
	}
	if f, ok := stderr.(*os.File); ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())) {
		return &barProgress{w: f}
	}
	return &lineProgress{w: stderr}
}

type barProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (p *barProgress) Begin(total int) {
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription("measuring"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionFullWidth(),
		progressbar.OptionClearOnFinish(),
	)
}

func (p *barProgress) Step(e runner.Event) {
	if e.Message != "" && e.Run != nil {
		// A failure deserves its own line above the bar.
		p.bar.Clear()
		fmt.Fprintf(p.w, "vbench: %s failed: %s\n", e.Cell, e.Message)
	}
	if int64(e.Total) > p.bar.GetMax64() { // adaptive rounds for an undecided A/B pair
		p.bar.ChangeMax(e.Total)
	}
	p.bar.Describe(e.Cell)
	p.bar.Set(e.Done)
}

func (p *barProgress) End() { p.bar.Finish() }

type lineProgress struct {
	w     io.Writer
	total int
}

func (p *lineProgress) Begin(total int) {
	p.total = total
	fmt.Fprintf(p.w, "vbench: %d runs planned\n", total)
}

func (p *lineProgress) Step(e runner.Event) {
	kind := "run"
	if e.Warmup {
		kind = "warmup"
	}
	if e.Why {
		kind = "why (callgrind, not measured)"
	}
	switch {
	case e.Run == nil: // a failed cell's remaining runs: said, so the count does not jump
		fmt.Fprintf(p.w, "vbench: [%d/%d] %s %s skipped (the cell failed)\n", e.Done, e.Total, e.Cell, kind)
	case e.Message != "":
		fmt.Fprintf(p.w, "vbench: [%d/%d] %s %s FAILED: %s\n", e.Done, e.Total, e.Cell, kind, e.Message)
	default:
		fmt.Fprintf(p.w, "vbench: [%d/%d] %s %s %s%s\n", e.Done, e.Total, e.Cell, kind, reports.Value(e.Metric, float64(e.Metric.Of(e.Run))), metricNote(e.Metric)+serviceNote(e.Run))
	}
}

func (p *lineProgress) End() {}

// metricNote names a run's metric after its time, unless it is the default.
// serviceNote is a service run's load in brief: every service metric, the
// requests served.
func serviceNote(r *results.Run) string {
	sv := r.Service
	if sv == nil {
		return ""
	}
	return fmt.Sprintf(" [%.0f req/s, p50 %s, p99 %s; %d warm-up + %d measured requests]", sv.RPS,
		numfmt.Duration(float64(sv.LatencyP50Ns)), numfmt.Duration(float64(sv.LatencyP99Ns)), sv.WarmupRequests, sv.Requests)
}

func metricNote(m results.Metric) string {
	if m.OrDefault() == results.MetricElapsed {
		return ""
	}
	return " (" + string(m) + ")"
}
