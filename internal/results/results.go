// Package results defines the results file `vbench run` writes (--json FILE,
// --format json): each (workload, mode) cell's summary and every raw run, plus
// what is needed to compare it later (suite identity, machine fingerprint).
//
// The layout is a contract between runner, stats, baseline and reports: fields
// may be added, never renamed or removed without bumping SchemaVersion.
package results

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"vbench/internal/machine"
	"vbench/internal/modes"
)

// SchemaVersion is the version of the results layout this package writes.
const SchemaVersion = 1

// File is one results file.
type File struct {
	Schema   int                 `json:"schema"`
	Suite    Suite               `json:"suite"`
	Machine  machine.Fingerprint `json:"machine"`
	Started  time.Time           `json:"started"`
	Finished time.Time           `json:"finished"`
	// Partial is set when the run was interrupted (Ctrl-C, SIGTERM): the cells
	// hold what was measured before that.
	Partial  bool     `json:"partial,omitempty"`
	Shard    *Shard   `json:"shard,omitempty"`
	Settings Settings `json:"settings"`
	Baseline string   `json:"baseline,omitempty"` // baseline file the verdicts refer to
	Warnings []string `json:"warnings,omitempty"` // e.g. fingerprint mismatch
	// Undecided says that the run decided too little to show that nothing
	// regressed (File.UndecidedSentence, set with the verdicts); "" when
	// it decided enough.
	Undecided string `json:"undecided,omitempty"`
	Results   []Cell `json:"results"`

	// BookkeepingNs is the harness's own time per launched run: the measuring
	// loop's wall time minus the children's wall times, over the runs.
	BookkeepingNs float64 `json:"bookkeeping_ns_per_run,omitempty"`
	// LoadAverage is the 1-minute load average when the run started and
	// when it finished (machine.LoadAverage).
	LoadAverage []float64 `json:"load_average,omitempty"`
	// OtherCPU is how many cores, on average over the run, processes other
	// than vbench and its workloads kept busy (machine.BusyCPU minus what
	// vbench and its children used). Above OtherCPUWarn the run warns.
	OtherCPU float64 `json:"other_cpu,omitempty"`
	// Merged lists the files `vbench merge` joined into this one.
	Merged []string `json:"merged,omitempty"`
	// Complexity is each scaled workload's growth against its sizes, per
	// mode and per counted function, with the verdict on its class.
	Complexity []Growth `json:"complexity,omitempty"`
}

// Suite identifies the suite that produced a file; merge refuses files whose
// suites differ.
type Suite struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"` // of the suite file's bytes
}

// Shard is set on results of `vbench run --shard i/n`.
type Shard struct {
	Index int `json:"index"` // 1-based
	Count int `json:"count"`
}

// Settings are the effective run settings after flags override the suite.
type Settings struct {
	Runs      int          `json:"runs"`
	MaxRuns   int          `json:"max_runs,omitempty"` // cap on an undecided A/B pair's runs (adaptive rounds)
	Warmup    int          `json:"warmup"`
	Modes     []modes.Mode `json:"modes"`
	Timeout   string       `json:"timeout"`
	Alpha     float64      `json:"alpha"`
	Threshold float64      `json:"threshold"` // minimum relative change that counts, e.g. 0.05
	// CountThreshold is the minimum change of a cell measured in
	// instructions (thresholds.min_change_instructions): a count repeats
	// to ~0.01 %, so it can hold a build to far less than time's
	// threshold. 0: Threshold.
	CountThreshold float64 `json:"threshold_instructions,omitempty"`
	// MeasureMinChange is a suite's own threshold of a measure
	// (thresholds.metrics); a measure it leaves out has its default
	// (Measure.DefaultMinChange).
	MeasureMinChange map[Measure]MinChange `json:"measure_min_change,omitempty"`

	Seed uint64 `json:"seed"` // of the randomized run order
	// Schedule is how each round ordered its launches: "pairs" (an A/B
	// pair's two cells back to back) or "shuffle" (every cell of a round
	// in one random order); empty in files written before it was recorded
	// (which shuffled).
	Schedule  string         `json:"schedule,omitempty"`
	Workloads []string       `json:"workloads,omitempty"` // --workloads filter, when given
	Profiler  string         `json:"profiler,omitempty"`  // library used for profiled modes
	Interval  modes.Duration `json:"interval,omitempty"`  // sampling interval given to the profiler (spelled "10ms")

	// Against is the OLD build of the profiler of an A/B run (`vbench run
	// --against OLD.so`): every engine mode also ran with it, as the mode's
	// OldBuild twin. Empty otherwise.
	Against string `json:"against,omitempty"`

	// ModeSpecs defines every mode of Modes: its engine, library, settings
	// and environment. Files written before modes were defined in suites
	// have none; File.ModeSpec then gives the built-in definition.
	ModeSpecs []modes.Spec `json:"mode_specs,omitempty"`

	// WorkloadAgainst maps each workload the suite judges against another
	// workload of the same run (its `against:`, e.g. the base commit's
	// build of the same program) to that workload: each of its cells is
	// judged against the other's cell of the same mode (results.File.Reference).
	// Absent when no workload says against.
	WorkloadAgainst map[string]string `json:"workload_against,omitempty"`

	// Calibration is the suite's calibration workload (its `calibration:`):
	// a history divides the other cells by its cell of the same mode in
	// the same run. Empty when the suite names none.
	Calibration string `json:"calibration,omitempty"`

	// CountingEnv is what vbench set in counted runs' environment where
	// the workload and mode left it unset (runner's countingDefaults:
	// tiering off, ...): counts taken under another differ by it, not by
	// the code, so a comparison says so. Absent when no cell counted, and
	// in files written before it was recorded.
	CountingEnv []string `json:"counting_env,omitempty"`
	// Valgrind is the valgrind that counted (`valgrind --version`,
	// "valgrind-3.19.0"): the CPU it shows a program decides the
	// instructions the JIT and the libraries choose, so counts taken by
	// another version may differ by it. Absent when no cell counted, and in
	// files written before it was recorded.
	Valgrind string `json:"valgrind,omitempty"`
}

// CountingSetup is what a counted file's counts depend on beyond the code
// and the machine (CountingEnv, Valgrind), in words, for saying that two
// differ: "DOTNET_TieredCompilation=0 ... under valgrind-3.19.0".
func (s *Settings) CountingSetup() string {
	env := strings.Join(s.CountingEnv, " ")
	if len(s.CountingEnv) == 0 {
		env = "none recorded (a file from before vbench turned tiered compilation off in counted runs)"
	}
	if s.Valgrind != "" {
		env += " under " + s.Valgrind
	}
	return env
}

// SameCounting reports whether counts taken under a and b were taken alike
// (CountingSetup): a version not recorded (an older file) matches any.
func SameCounting(a, b *Settings) bool {
	return slices.Equal(a.CountingEnv, b.CountingEnv) && (a.Valgrind == "" || b.Valgrind == "" || a.Valgrind == b.Valgrind)
}

// TieringOff is the counting environment's setting that turns tiered
// compilation off (Settings.CountingEnv): the runner sets it, the legend
// says what it means for a count.
const TieringOff = "DOTNET_TieredCompilation=0"

// Counted reports whether a cell of f was measured in instructions.
func (f *File) Counted() bool {
	return slices.ContainsFunc(f.Results, func(c Cell) bool { return c.Metric.Deterministic() })
}

// Cell is one (workload, mode) pair: the summary over its measured runs.
// Times are the cell's Metric of each run, in nanoseconds: the median, its
// interval, the MAD, the overhead and the comparison all use it.
type Cell struct {
	Workload string     `json:"workload"`
	Mode     modes.Mode `json:"mode"`
	// Metric is what the times are (Metric.Of each run); "" in files
	// written before cells recorded it, which measured MetricElapsed (Decode
	// fills that in). All cells of one workload share a metric.
	Metric Metric `json:"metric,omitempty"`
	Runs   int    `json:"runs"` // successful measured runs
	// PlannedRuns and MaxRuns are the runs the plan gave the cell and the
	// cap an undecided A/B pair's adaptive rounds could take it to: the
	// looks its verdict spends alpha over (stats.Looks). Zero in files
	// written before verdicts were sequential: one look.
	PlannedRuns int `json:"planned_runs,omitempty"`
	MaxRuns     int `json:"max_runs,omitempty"`
	// Stopped is, for the NEW side of an A/B pair, why its rounds stopped
	// when they did ("decided at its planned 10 rounds: same (…)",
	// "reached its cap of 30 rounds", "out of time …"). Its
	// verdict is the cell's Verdict: a pair at its cap may still decide.
	Stopped string `json:"stopped,omitempty"`

	MedianNs float64 `json:"median_ns"`
	CILoNs   float64 `json:"ci_lo_ns"` // 95% confidence interval of the median
	CIHiNs   float64 `json:"ci_hi_ns"`
	MADNs    float64 `json:"mad_ns"`

	// Overhead is this mode's median over the none mode's median, with a 95% interval.
	// Zero when the suite has no none cell for the workload.
	Overhead   float64 `json:"overhead,omitempty"`
	OverheadLo float64 `json:"overhead_lo,omitempty"`
	OverheadHi float64 `json:"overhead_hi,omitempty"`

	WallMedianNs float64 `json:"wall_median_ns"`
	UserMedianNs float64 `json:"user_median_ns"`
	SysMedianNs  float64 `json:"sys_median_ns"`
	MaxRSSMedian float64 `json:"max_rss_median_bytes"`
	// Metrics summarises each Measure the cell's runs recorded besides
	// its time metric; absent where no run recorded it.
	Metrics  map[Measure]*MeasureSummary `json:"metrics,omitempty"`
	Outliers int                         `json:"outliers,omitempty"`

	Verdict Verdict `json:"verdict,omitempty"`
	Compare *Change `json:"compare,omitempty"` // against the baseline, when there is one
	Failure string  `json:"failure,omitempty"` // why the cell failed

	Samples []Run `json:"samples"`

	// Scale is set on a cell of a scaled workload: its size.
	Scale *Scale `json:"scale,omitempty"`
	// Calls is, on a scaled workload's cell whose engine counts calls
	// exactly, each function's calls in every measured run.
	Calls map[string][]int64 `json:"calls,omitempty"`
	// LineExecutions is, on a scaled workload's cell with exact line
	// counts (instrumentation with lines), each line's executions in every
	// measured run, by function and then by "File.cs:N".
	LineExecutions map[string]map[string][]int64 `json:"line_executions,omitempty"`

	// Accuracy is set on tracing cells whose workload reports expected call
	// counts (calls.<Function>=N on its VBENCH line).
	Accuracy *Accuracy `json:"accuracy,omitempty"`
	// Coverage is set on sampling cells of workloads that also had a tracing
	// cell in the same run (see Coverage).
	Coverage *Coverage `json:"coverage,omitempty"`
	// Shares is set on sampling cells whose workload declares the shares of
	// its work (share.<Function>=F on its VBENCH line): one check per function.
	Shares []ShareCheck `json:"shares,omitempty"`
	// Allocs is set on allocation cells whose workload declares the objects
	// it allocates (alloc.<Type>=N on its VBENCH line): one check per type.
	Allocs []AllocCheck `json:"allocs,omitempty"`
	// Warnings about the statistics, e.g. too few runs for a 95% interval.
	Warnings []string `json:"warnings,omitempty"`
	// Profile is where the last measured run's profile was kept, if
	// anywhere; its runs/<seq>/ hold every measured run's.
	Profile string `json:"profile,omitempty"`

	// The profiler's cost per event (summary.Fill, docs/verdicts.md "Cost per
	// event"): (median − the none cell's median) / events per run, in ns,
	// with a 95% interval. Calls for cells whose engine counts them exactly
	// (tracing, instrumentation; null takes its calls from the workload's
	// tracing cell, whose hooks are the same), samples taken for sampling.
	// Zero (absent) when there is no none cell or no event count.
	CallsPerRun       float64 `json:"calls_per_run,omitempty"`
	CostPerCallNs     float64 `json:"cost_per_call_ns,omitempty"`
	CostPerCallLoNs   float64 `json:"cost_per_call_lo_ns,omitempty"`
	CostPerCallHiNs   float64 `json:"cost_per_call_hi_ns,omitempty"`
	SamplesPerRun     float64 `json:"samples_per_run,omitempty"`
	CostPerSampleNs   float64 `json:"cost_per_sample_ns,omitempty"`
	CostPerSampleLoNs float64 `json:"cost_per_sample_lo_ns,omitempty"`
	CostPerSampleHiNs float64 `json:"cost_per_sample_hi_ns,omitempty"`
}

// Accuracy compares the call counts a tracing profile reports with the exact
// counts the workload expects, over every measured run of a cell.
type Accuracy struct {
	Checked    int            `json:"checked"` // functions × runs compared
	Exact      int            `json:"exact"`
	Mismatches []CallMismatch `json:"mismatches,omitempty"` // the first few
}

// String is the accuracy as a table shows it: "20/20 exact".
func (a *Accuracy) String() string {
	if a == nil {
		return ""
	}
	return fmt.Sprintf("%d/%d exact", a.Exact, a.Checked)
}

// Coverage is how much of what the tracer found hot the sampler saw: of the
// functions with at least 1% of the total exclusive time in any measured
// run of the workload's tracing cell (Of), how many have inclusive samples
// in at least one measured run of its sampling cell (Found).
type Coverage struct {
	Found   int      `json:"found"`
	Of      int      `json:"of"`
	Missing []string `json:"missing,omitempty"` // the hot functions never sampled, by name
	// Tracing is the mode of the tracing cell the hot functions came from
	// (absent in files from before suites could define several).
	Tracing modes.Mode `json:"tracing,omitempty"`
}

// String is the coverage as a table shows it: "7/7 found".
func (c *Coverage) String() string {
	if c == nil {
		return ""
	}
	return fmt.Sprintf("%d/%d found", c.Found, c.Of)
}

// ShareCheck is one function's share of a sampling cell's samples, as its
// workload declares it (known by construction) and as the sampler measured
// it over every measured run of the cell together. The samples counted are
// those whose stack holds any of the functions the workload declares a share
// for (the declared shares partition that work, and sum to 1); Hits are those
// whose stack holds this one. Consecutive samples are not independent draws
// (a thread that did not run between two ticks shows the same stack twice),
// so they count as Effective independent ones; the check passes when the
// measured share lies within the central 99% of the shares a binomial
// distribution of Effective draws with probability Expected yields: [Lo, Hi].
type ShareCheck struct {
	Function  string  `json:"function"`
	Expected  float64 `json:"expected"`
	Measured  float64 `json:"measured"` // Hits / Samples (0 when Samples is 0)
	Hits      int64   `json:"hits"`
	Samples   int64   `json:"samples"`
	Effective int64   `json:"effective_samples"`
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
	Pass      bool    `json:"pass"`
}

// SharesText is the share checks as a table shows them: "2/2 shares"
// (passed of checked), "" when there are none.
func SharesText(checks []ShareCheck) string {
	return passedText(checks, func(s ShareCheck) bool { return s.Pass }, "shares")
}

// AccuracyText is what a table's accuracy column shows for the cell: the
// tracer's call counts, the sampler's shares and coverage, "" when none was
// measured.
func (c *Cell) AccuracyText() string {
	var parts []string
	if c.Accuracy != nil {
		parts = append(parts, c.Accuracy.String())
	}
	if s := SharesText(c.Shares); s != "" {
		parts = append(parts, s)
	}
	if s := AllocsText(c.Allocs); s != "" {
		parts = append(parts, s)
	}
	if c.Coverage != nil {
		parts = append(parts, c.Coverage.String())
	}
	return strings.Join(parts, ", ")
}

// AllocCheck is one type's objects as an allocation cell's workload declares
// them (Expected per run, known by construction) and as its measured runs'
// profiles report them. Under allocations (exact) every run must report
// Expected exactly; Wrong counts those that did not, Measured is the first
// wrong run's count (or Expected). Under allocation-sampling (Sampled) the
// runs' AllocationSampled events of the type (Samples, over Runs runs) are
// a binomial draw: each of the Expected × Runs objects is sampled with
// probability Prob (1 − (1 − 1/102400)^size, the runtime's per-byte rate);
// the check passes when Samples lies in the draw's central range at the
// cell's level, given per run as objects (the upscaled estimate) in
// [Lo, Hi], Measured the runs' mean estimate.
type AllocCheck struct {
	Type     string  `json:"type"`
	Expected int64   `json:"expected"`
	Runs     int     `json:"runs"`
	Measured float64 `json:"measured"`
	Wrong    int     `json:"wrong,omitempty"`
	Sampled  bool    `json:"sampled,omitempty"`
	Samples  int64   `json:"samples,omitempty"`
	Prob     float64 `json:"prob,omitempty"`
	Lo       float64 `json:"lo,omitempty"`
	Hi       float64 `json:"hi,omitempty"`
	Pass     bool    `json:"pass"`
}

// AllocsText is the allocation checks as a table shows them: "3/3 allocs"
// (passed of checked), "" when there are none.
func AllocsText(checks []AllocCheck) string {
	return passedText(checks, func(a AllocCheck) bool { return a.Pass }, "allocs")
}

// passedText is "passed/checked what", "" when nothing was checked.
func passedText[T any](checks []T, pass func(T) bool, what string) string {
	if len(checks) == 0 {
		return ""
	}
	n := 0
	for _, c := range checks {
		if pass(c) {
			n++
		}
	}
	return fmt.Sprintf("%d/%d %s", n, len(checks), what)
}

// CallMismatch is one function whose profiled call count is wrong, or
// (Line set) one source line whose counted executions are.
type CallMismatch struct {
	Seq      int    `json:"seq"`
	Function string `json:"function,omitempty"`
	Line     string `json:"line,omitempty"` // "Program.cs:43": a line.* check's
	Expected int64  `json:"expected"`
	Actual   int64  `json:"actual"`
}

// Change is a cell's comparison with the same cell in a baseline (or, in an
// A/B run, with the same cell measured with the other profiler).
type Change struct {
	BaselineMedianNs float64 `json:"baseline_median_ns"` // the baseline cell's median (of its metric)
	// Ratio is new over baseline (or over the Against cell) of the
	// fast-half means of the cell's metric (stats.Judge); P is the
	// permutation test's two-sided p-value.
	Ratio            float64 `json:"ratio"`
	P                float64 `json:"p"`
	BaselineOverhead float64 `json:"baseline_overhead,omitempty"`
	OverheadRatio    float64 `json:"overhead_ratio,omitempty"`

	RatioLo   float64 `json:"ratio_lo,omitempty"` // 95% bootstrap interval of Ratio
	RatioHi   float64 `json:"ratio_hi,omitempty"`
	OverheadP float64 `json:"overhead_p,omitempty"` // the same test on per-run overhead multiples
	// Against is the mode the cell was judged against in its own run (an
	// A/B comparison, modes.Spec.Against); empty for a baseline comparison.
	Against modes.Mode `json:"against,omitempty"`
	// AgainstWorkload is the workload the cell was judged against in its
	// own run, in the same mode (an A/B pair of two programs: the suite's
	// workload against:); empty otherwise.
	AgainstWorkload string `json:"against_workload,omitempty"`
	Reason          string `json:"reason,omitempty"` // what decided the verdict, in words
	Comparable      bool   `json:"comparable"`       // both sides had enough runs to test
	// TimeVerdict and OverheadVerdict are the verdicts of the time's test
	// and of the overhead's (when it had one) alone: the cell's verdict
	// also counts its judged measures' (Cell.Metrics). Absent in files of
	// older vbench.
	TimeVerdict     Verdict `json:"time_verdict,omitempty"`
	OverheadVerdict Verdict `json:"overhead_verdict,omitempty"`

	// PAdjusted is the p the verdict was decided by: the looks' p-values
	// folded by their share of alpha (stats.SequentialP), then adjusted by
	// Holm's method over Family tests, every test of the run (or of the
	// merged shards). A change is significant when PAdjusted < alpha.
	PAdjusted float64 `json:"p_adjusted"`
	Family    int     `json:"family,omitempty"`
	// Looks are the run counts the pair was judged at (A/B pairs with
	// adaptive rounds); absent for a single look.
	Looks []int `json:"looks,omitempty"`
	// Paired is set when the runs were paired by round (an A/B pair:
	// stats.JudgePaired); a stored baseline's are not.
	Paired bool `json:"paired,omitempty"`
	// Hides is, for an inconclusive verdict, the largest relative change
	// (e.g. 0.08 for 8%) the interval at 1 - alpha still allows.
	Hides float64 `json:"hides,omitempty"`
	// Explain lists, for an A/B pair whose mode has an engine, the
	// functions that contributed most to the change between the two
	// sides' profiles (every measured run of each), largest magnitude
	// first; ExplainUnit says what their figures are.
	Explain []Contribution `json:"explain,omitempty"`
	// ExplainScope is what part of each run the profiles explain:
	// ExplainKernel, or ExplainWholeProcess (start-up and all: the program
	// marks no kernel, or its engine does not count it apart).
	ExplainScope string `json:"explain_scope,omitempty"`
	ExplainUnit  string `json:"explain_unit,omitempty"` // "ns": self time per run (mean); ExplainPerRequest: per request served (a service); ExplainSampledPerRun: sampled self time per run (samples × interval); "share": share of samples (0 to 1)
	// ExplainUnnamed is, for a why in instructions, the code its launches
	// could not name: absent when they named all of it.
	ExplainUnnamed *Unnamed `json:"explain_unnamed,omitempty"`
	// ExplainLaunch is, for a why in instructions, how its launches ran
	// otherwise than the measured runs, beyond callgrind and the perf
	// map: LaunchNoReadyToRun, or "".
	ExplainLaunch string `json:"explain_launch,omitempty"`

	// ChangePerCallNs is an A/B pair's change per call (per sample taken
	// for a sampling pair: ChangePerSampleNs), in ns, with its 95%
	// interval: the Hodges-Lehmann estimate of the per-round differences
	// new − old over the pair's calls (samples) per run, and the exact
	// signed-rank interval of it (verdict.perEvent). Absent for baseline
	// comparisons and pairs without an event count.
	ChangePerCallNs     float64 `json:"change_per_call_ns,omitempty"`
	ChangePerCallLoNs   float64 `json:"change_per_call_lo_ns,omitempty"`
	ChangePerCallHiNs   float64 `json:"change_per_call_hi_ns,omitempty"`
	ChangePerSampleNs   float64 `json:"change_per_sample_ns,omitempty"`
	ChangePerSampleLoNs float64 `json:"change_per_sample_lo_ns,omitempty"`
	ChangePerSampleHiNs float64 `json:"change_per_sample_hi_ns,omitempty"`
}

// Explain scopes (Change.ExplainScope).
const (
	ExplainKernel       = "kernel"
	ExplainWholeProcess = "process"
)

// ExplainPerRequest is the explain unit of a service's pair under an
// engine that times: self time per request served (mean over the runs), as
// a fixed-length load serves fewer requests, not longer runs, when slower.
const ExplainPerRequest = "ns/request"

// ExplainAllocatedPerRun is the explain unit of a pair under an allocation
// engine: each entry is a type, on the path that allocated most of its
// change, with its bytes allocated per run (the mean over a side's runs;
// estimates under allocation-sampling).
const ExplainAllocatedPerRun = "alloc-bytes"

// ExplainSampledPerRun is the explain unit of a sampling pair: each
// function's sampled self time per run, its self samples (weights) times
// the interval — a thread's CPU time and its waits under sampling, every
// thread's wall time under suspend-sampling — the mean over a side's runs. A share of samples made a
// function whose work did not change read as shrinking when another grew
// (its share was diluted).
const ExplainSampledPerRun = "sampled-ns"

// ExplainInstructions is the explain unit of a counted pair (metric
// instructions): each function's own instructions in one launch a side
// under callgrind, with its calls where counted.
const ExplainInstructions = "instructions"

// LaunchNoReadyToRun is the ExplainLaunch of a why whose launches ran no
// precompiled (ReadyToRun) code: with no profiler loaded, the why's
// launches JIT-compile it, so that the runtime's perf map names it.
const LaunchNoReadyToRun = "readytorun-off"

// Contribution is one function's part in an A/B pair's change: its self
// figure on the reference side (Old) and the judged side (New), and New -
// Old (see internal/profdiff).
type Contribution struct {
	Function string  `json:"function"`
	Old      float64 `json:"old"`
	New      float64 `json:"new"`
	Change   float64 `json:"change"`
	// Lo and Hi bound Change at 95% (as vbench diff computes it: Welch over
	// the runs for times, a normal approximation for samples); absent when
	// it cannot be computed (one run a side).
	Lo *float64 `json:"change_lo,omitempty"`
	Hi *float64 `json:"change_hi,omitempty"`
	// Line is where in the function the change happened, when both sides'
	// profiles have lines: "Program.cs:88", the function's line whose
	// sampled time (executions, under instrumentation) per run moved most
	// the same way.
	Line string `json:"line,omitempty"`
	// Path is the call path, root to Function, the change is on, as the
	// profiles' call trees have it: set when the function's change
	// concentrates on a few of its paths (each then an entry of its own),
	// absent when it is spread over many.
	Path []string `json:"path,omitempty"`
	// OldCalls and NewCalls are the function's (or path's) calls per run,
	// the mean over each side's runs; absent when the engine does not
	// count calls (a sampler).
	OldCalls *float64 `json:"old_calls,omitempty"`
	NewCalls *float64 `json:"new_calls,omitempty"`
	// NotShown is set when the change's interval holds zero: it is not
	// shown to differ from no change, and explains nothing.
	NotShown bool `json:"not_shown,omitempty"`
}

// Unnamed is the code a counted pair's why launches could not name: no
// symbol and no perf map named it, so its instructions are summed by the
// place they ran from ("[jitted code]", "[libcoreclr.so]"), and the why
// says how much of the launch and of the change that is.
type Unnamed struct {
	// Places are each place's instructions in the reference launch (Old)
	// and the judged one (New), the most (New) first.
	Places []Contribution `json:"places"`
	// OldTotal and NewTotal are the launches' instructions, every function's.
	OldTotal float64 `json:"old_total"`
	NewTotal float64 `json:"new_total"`
	// NoPerfMap says why a launch that ran JIT-compiled code had no perf
	// map: all its .NET methods are then "[jitted code]".
	NoPerfMap string `json:"no_perf_map,omitempty"`
}

// Old and New are the unnamed code's instructions on each side.
func (u *Unnamed) Old() float64 { return u.sum(func(c Contribution) float64 { return c.Old }) }
func (u *Unnamed) New() float64 { return u.sum(func(c Contribution) float64 { return c.New }) }

func (u *Unnamed) sum(side func(Contribution) float64) float64 {
	var n float64
	for _, c := range u.Places {
		n += side(c)
	}
	return n
}

// Run is one launch of a workload.
type Run struct {
	Seq    int  `json:"seq"` // position in the whole run's schedule
	Warmup bool `json:"warmup,omitempty"`
	// Round is the measured round the run belongs to (1, 2, …): within a
	// round every cell that still needs a run runs once, in random order.
	// An A/B pair's runs are paired by it. 0 in warmups and older files.
	Round     int   `json:"round,omitempty"`
	WallNs    int64 `json:"wall_ns"`    // whole process, as the harness saw it
	ElapsedNs int64 `json:"elapsed_ns"` // the workload's own measurement
	// CPUNs is the CPU time of the whole process during the kernel, as the
	// workload measured it (cpu_ns on its VBENCH line); 0 when not reported.
	// It is the time of MetricKernelCPU.
	CPUNs int64 `json:"cpu_ns,omitempty"`
	// Instructions is what the run's process tree executed, counted under
	// valgrind (MetricInstructions); Processes how many processes the
	// count sums. 0 when the run was not counted.
	Instructions int64  `json:"instructions,omitempty"`
	Processes    int    `json:"processes,omitempty"`
	UserNs       int64  `json:"user_ns"`
	SysNs        int64  `json:"sys_ns"`
	MaxRSS       int64  `json:"max_rss_bytes"`
	ExitCode     int    `json:"exit_code"`
	Signal       string `json:"signal,omitempty"`
	Checksum     string `json:"checksum,omitempty"`
	Outlier      bool   `json:"outlier,omitempty"`
	Error        string `json:"error,omitempty"` // timeout, checksum mismatch, no VBENCH line, ...
	*Service
	// Calls is the total of the call counts in the run's profile (every
	// process of its tree): the calls the profiler handled, in engines
	// that count them exactly (tracing, instrumentation). SamplesTaken is
	// the sampling ticks of CPU time of a sampling run's profile (its
	// samples less its wait_samples) taken while the cell's metric timed: under elapsed and kernel-cpu the kernel's share
	// of them (runner.events). What a cell's cost per event divides by;
	// 0 (absent) otherwise.
	Calls        int64 `json:"calls,omitempty"`
	SamplesTaken int64 `json:"samples_taken,omitempty"`

	// What the run cost the whole program besides its time (Measure.Of):
	// each nil when the run could not measure it, never 0 for unknown.
	StartupNs *int64 `json:"startup_ns,omitempty"` // exec to the entry of Main (a service: to its first ready answer)
	// GCCollections is GC.CollectionCount(0), (1), (2) at exit: each
	// generation's collections, a higher one counted in the lower too.
	GCCollections []int64 `json:"gc_collections,omitempty"`
	GCPauseNs     *int64  `json:"gc_pause_ns,omitempty"`   // GC.GetTotalPauseDuration at exit
	AllocBytes    *int64  `json:"alloc_bytes,omitempty"`   // GC.GetTotalAllocatedBytes(precise) at exit
	JITNs         *int64  `json:"jit_ns,omitempty"`        // JitInfo.GetCompilationTime at exit: the runtime's JIT time
	ProfileBytes  *int64  `json:"profile_bytes,omitempty"` // bytes of the profiles written (engine modes)
	// PeakRSS is the peak resident memory of the tree's largest .NET
	// process as the process itself saw it (VmHWM at exit, by the startup
	// hook). MaxRSS, from the rusage vbench reads at wait, is kept only
	// when it exceeds vbench's own memory at the exec (a vforked child's
	// rusage counts its parent's peak; runner/maxrss.go), else 0:
	// PeakRSS is the figure rss is judged by.
	PeakRSS     *int64 `json:"peak_rss_bytes,omitempty"`
	ProfilerMem *int64 `json:"profiler_mem_bytes,omitempty"`
}

// Service is what a service workload's run measured (runner/service.go):
// the load generator's requests and latencies during the measured load,
// the requests of its warm-up, and the port the server listened on.
type Service struct {
	Port           int     `json:"port,omitempty"`
	WarmupRequests int64   `json:"warmup_requests,omitempty"`
	Requests       int64   `json:"requests,omitempty"` // completed during the measured load
	LoadNs         int64   `json:"load_ns,omitempty"`  // first request sent to last response read
	RPS            float64 `json:"rps,omitempty"`      // Requests over LoadNs
	LatencyP50Ns   int64   `json:"latency_p50_ns,omitempty"`
	LatencyP99Ns   int64   `json:"latency_p99_ns,omitempty"`
	// ServerCPUNs is the CPU time of the server's process tree (every
	// thread of the server and, under a mode's wrapper, of the wrapper and
	// its helpers) from just before the measured load to just after it:
	// metric cpu-per-request's numerator.
	ServerCPUNs int64 `json:"server_cpu_ns,omitempty"`
	// Attach is set when the run's mode attached the profiler during the
	// measured load (modes.AttachPlan): its windows and attaches.
	Attach *AttachLoad `json:"attach,omitempty"`
}

// AgainstBuild reports whether f holds an A/B run's cells: measured with two
// builds of the profiler (`vbench run --against`).
func (f *File) AgainstBuild() bool { return f.Settings.Against != "" }
