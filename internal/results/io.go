package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"vbench/internal/atomicfile"
	"vbench/internal/jsonpos"
	"vbench/internal/modes"
	"vbench/internal/ownfile"
	"vbench/stats"
)

// Marshal renders f as the indented JSON that every vbench file uses.
func Marshal(f *File) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	// Nothing reads these files as HTML: keep "p<0.001" readable.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteFile writes f to path atomically: readers see the old file or the new
// one, never half of either. The directory must exist.
func WriteFile(path string, f *File) error {
	b, err := Marshal(f)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, b, 0o666)
}

// Kind is what a writer of results files (--json, a baseline, merge -o)
// replaces: a file with a results file's schema and suite, of any version.
var Kind = ownfile.Kind{Name: "a vbench results file", Is: func(data []byte) bool {
	var head struct {
		Schema, Suite json.RawMessage
	}
	return json.Unmarshal(data, &head) == nil && head.Schema != nil && head.Suite != nil
}}

// CheckWritable fails early, before a long run, when path's directory cannot
// take a new file. A missing directory is created (like mkdir -p): asking
// for out/r.json is asking for out/.
func CheckWritable(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("%s: cannot create output directory %s: %v", path, dir, err)
		}
		if fi, err = os.Stat(dir); err != nil {
			return fmt.Errorf("%s: output directory %s: %v", path, dir, err)
		}
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: %s is not a directory", path, dir)
	}
	tmp, err := os.CreateTemp(dir, ".vbench-write-test-*")
	if err != nil {
		// "cannot create a file in", not "not writable": /proc refuses
		// a new file with ENOENT, which "not writable: no such file" garbles.
		return fmt.Errorf("%s: cannot create a file in output directory %s: %v", path, dir, errors.Unwrap(err))
	}
	tmp.Close()
	os.Remove(tmp.Name())
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	return nil
}

// ReadFile reads and validates a results (or baseline) file: every reader of
// results files (compare, merge, baseline, report) goes through it. Errors
// start with the file's name and, for malformed JSON, line and column
// ("r.json:17:6: truncated JSON (file ends early)").
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: cannot read results: %w", path, err)
	}
	return Decode(path, data)
}

// Decode parses and validates a results file's bytes; name (usually the
// file's path) starts every error. The schema version is checked before
// anything else, so a file from another vbench version says so instead of
// failing on some field that moved. Unknown fields are accepted: a newer
// writer may add fields without bumping the schema.
func Decode(name string, data []byte) (*File, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: empty file, not a vbench results file", name)
	}
	var head struct {
		Schema  *int            `json:"schema"`
		Suite   json.RawMessage `json:"suite"`
		Threads json.RawMessage `json:"threads"`
	}
	if err := json.Unmarshal(data, &head); err == nil {
		switch {
		case head.Suite == nil && head.Threads != nil:
			return nil, fmt.Errorf("%s: this is a profile, not a results file", name)
		case head.Schema == nil:
			return nil, fmt.Errorf("%s: no \"schema\" field: not a vbench results file", name)
		case *head.Schema != SchemaVersion:
			return nil, fmt.Errorf("%s: results schema version %d, this vbench reads version %d (re-create it with this vbench)", name, *head.Schema, SchemaVersion)
		}
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		if field, off := badTime(data); field != "" {
			return nil, fmt.Errorf("%s: field %s: not a time like 2025-06-04T09:14:00Z", jsonpos.At(name, data, off), field)
		}
		if field, path, value := badDuration(data); field != "" {
			at := name
			if off, ok := jsonpos.Find(data, path...); ok {
				at = jsonpos.At(name, data, off)
			}
			return nil, fmt.Errorf("%s: %s: %s is not a duration like 10ms", at, field, value)
		}
		return nil, jsonpos.Error(name, data, err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		end += int64(len(data[end:]) - len(bytes.TrimLeft(data[end:], " \t\r\n")))
		return nil, fmt.Errorf("%s: trailing data after the results object", jsonpos.At(name, data, end+1))
	}
	if err := f.Validate(); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			if off, ok := jsonpos.Find(data, fe.Path...); ok {
				return nil, fmt.Errorf("%s: %w", jsonpos.At(name, data, off), err)
			}
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for i := range f.Results {
		f.Results[i].Metric = f.Results[i].Metric.OrDefault()
	}
	return &f, nil
}

// badTime finds the top-level time field (started, finished) that does not
// hold an RFC 3339 time, and where its value ends: encoding/json reports
// such errors without an offset.
func badTime(data []byte) (string, int64) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", 0
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return "", 0
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", 0
		}
		key, _ := k.(string)
		if strings.EqualFold(key, "started") || strings.EqualFold(key, "finished") {
			var t time.Time
			if err := json.Unmarshal(v, &t); err != nil {
				return strings.ToLower(key), dec.InputOffset()
			}
		}
	}
	return "", 0
}

// badDuration names the first duration a results file spells wrong (the
// settings' interval, a mode's duration settings: modes.Fields): encoding/json
// gives a text field's error neither its field nor its place.
func badDuration(data []byte) (field string, path []any, value string) {
	var top struct {
		Settings struct {
			Interval  json.RawMessage              `json:"interval"`
			ModeSpecs []map[string]json.RawMessage `json:"mode_specs"`
		} `json:"settings"`
	}
	if json.Unmarshal(data, &top) != nil {
		return "", nil, ""
	}
	bad := func(v json.RawMessage) bool {
		var s string
		if v == nil || json.Unmarshal(v, &s) != nil {
			return false // a number or an object is json's own error, with its place
		}
		_, err := time.ParseDuration(s)
		return err != nil
	}
	if bad(top.Settings.Interval) {
		return "settings.interval", []any{"settings", "interval"}, string(top.Settings.Interval)
	}
	for i, m := range top.Settings.ModeSpecs {
		for _, fd := range modes.Fields {
			if k := fd.Key(); fd.IsDuration() && bad(m[k]) {
				return fmt.Sprintf("settings.mode_specs[%d].%s", i, k), []any{"settings", "mode_specs", i, k}, string(m[k])
			}
		}
	}
	return "", nil, ""
}

// Validate checks what readers rely on: named cells, no duplicates, known
// metrics, one metric per workload (its overheads divide one cell's times
// by another's), and mode definitions that name a mode once each.
func (f *File) Validate() error {
	if f.Suite.Name == "" {
		return errors.New("suite.name is empty")
	}
	seen := map[string]bool{}
	metric := map[string]*Cell{} // the first cell of each workload
	for i := range f.Results {
		c := &f.Results[i]
		if c.Workload == "" || c.Mode == "" {
			return fmt.Errorf("results[%d]: workload and mode must be set", i)
		}
		k := c.Key()
		if seen[k] {
			return fmt.Errorf("results[%d]: cell %s appears twice", i, k)
		}
		seen[k] = true
		if c.Runs < 0 || c.Runs > len(c.Samples) {
			return fmt.Errorf("results[%d] (%s): runs %d but %d samples", i, k, c.Runs, len(c.Samples))
		}
		if c.Metric != "" && !c.Metric.Valid() {
			return fmt.Errorf("results[%d] (%s): unknown metric %q (known: %s)", i, k, c.Metric, modes.List(Metrics))
		}
		if err := checkCell(i, c); err != nil {
			return err
		}
		if first, ok := metric[c.Workload]; !ok {
			metric[c.Workload] = c
		} else if first.Metric.OrDefault() != c.Metric.OrDefault() {
			return fmt.Errorf("results[%d] (%s): metric %s, but cell %s measured %s: a workload's cells share one metric", i, k, c.Metric.OrDefault(), first.Key(), first.Metric.OrDefault())
		}
	}
	defined := map[modes.Mode]bool{}
	for i, s := range f.Settings.ModeSpecs {
		if s.Name == "" || defined[s.Name] {
			return fmt.Errorf("settings.mode_specs[%d]: mode %q is unnamed or defined twice", i, s.Name)
		}
		defined[s.Name] = true
		if s.Engine != "" && !s.Engine.Valid() {
			return fmt.Errorf("settings.mode_specs[%d] (%s): unknown engine %q (known: %s)", i, s.Name, s.Engine, modes.List(modes.Engines))
		}
		if s.Against == s.Name {
			return fmt.Errorf("settings.mode_specs[%d] (%s): a mode cannot be judged against itself", i, s.Name)
		}
	}
	for _, w := range slices.Sorted(maps.Keys(f.Settings.WorkloadAgainst)) {
		if a := f.Settings.WorkloadAgainst[w]; w == "" || a == "" || a == w {
			return fmt.Errorf("settings.workload_against.%s: %q: a workload is judged against another, named workload", w, a)
		}
	}
	return nil
}

// ModeSpec is the definition of mode m in this file: the one the file
// records, else (files from before modes were defined in suites) the
// built-in mode's with the file's recorded interval, else a mode with no
// engine (measured only).
func (f *File) ModeSpec(m modes.Mode) modes.Spec {
	for _, s := range f.Settings.ModeSpecs {
		if s.Name == m {
			return s
		}
	}
	s := modes.BuiltinSpec(m)
	if s.Engine == modes.EngineSampling {
		s.Interval = f.Settings.Interval
	}
	return s
}

// Modes is every mode of the file's cells in report order (modes.Order over
// the recorded settings' order, then the cells').
func (f *File) Modes() []modes.Mode {
	var all []modes.Mode
	for _, s := range f.Settings.ModeSpecs {
		all = append(all, s.Name)
	}
	all = append(all, f.Settings.Modes...)
	for _, c := range f.Results {
		all = append(all, c.Mode)
	}
	return modes.Order(all)
}

// Metric is the metric of workload's cells (they share one), MetricElapsed
// when the file has none of them.
func (f *File) Metric(workload string) Metric {
	for _, c := range f.Results {
		if c.Workload == workload {
			return c.Metric.OrDefault()
		}
	}
	return MetricElapsed
}

// Key names a cell: "workload/mode".
func (c *Cell) Key() string { return c.Workload + "/" + string(c.Mode) }

// Find returns the cell for workload and mode, or nil.
func (f *File) Find(workload string, mode modes.Mode) *Cell {
	for i := range f.Results {
		if f.Results[i].Workload == workload && f.Results[i].Mode == mode {
			return &f.Results[i]
		}
	}
	return nil
}

// Measured reports whether the run counts in its cell's statistics: a
// measured run (not a warmup) that succeeded. It is the one definition every
// statistic, chart and export of a cell's runs filters by.
func (r *Run) Measured() bool { return !r.Warmup && r.Error == "" }

// Measured returns the cell's successful measured runs (Run.Measured).
func (c *Cell) Measured() []Run {
	var out []Run
	for _, r := range c.Samples {
		if r.Measured() {
			out = append(out, r)
		}
	}
	return out
}

// Attempts counts the cell's measured runs whether they succeeded or not
// (every run but the warmups): Runs is how many of them succeeded.
func (c *Cell) Attempts() int {
	n := 0
	for _, r := range c.Samples {
		if !r.Warmup {
			n++
		}
	}
	return n
}

// Values returns the cell's metric of each successful measured run: the
// numbers every statistic of the cell is computed from.
func (c *Cell) Values() []float64 {
	var out []float64
	for _, r := range c.Measured() {
		out = append(out, float64(c.Metric.Of(&r)))
	}
	return out
}

// Failed reports whether the cell failed (a run failed, or the profiler's
// call counts were wrong).
func (c *Cell) Failed() bool { return c.Failure != "" }

// Counts tallies the verdicts of a file's cells.
func (f *File) Counts() map[Verdict]int {
	m := map[Verdict]int{}
	for _, c := range f.Results {
		v := c.Verdict
		if v == "" {
			v = VerdictNew
			if c.Runs == 0 && len(c.Measured()) == 0 && !c.Failed() {
				v = VerdictNotRun
			}
		}
		m[v]++
	}
	return m
}

// UndecidedShare is the share of a run's A/B pairs that may be
// inconclusive before the run says it cannot show that nothing regressed:
// a run most of whose pairs decided nothing passes a regression as easily
// as a no-op change (issue 40).
const UndecidedShare = 0.25

// UndecidedSentence is, when more than UndecidedShare of the run's A/B
// pairs (cells judged against another cell of the run: --against's twin,
// a mode's or a workload's against:) are inconclusive, "this run cannot
// show that nothing regressed: 12 of 17 pairs inconclusive"; "" otherwise.
// Every output says it, and `vbench run` exits 1 on it unless --fail-on
// regressed. Cells judged against a baseline do not count: a baseline's
// verdicts are about drift between invocations, judged by other rules.
func (f *File) UndecidedSentence() string {
	pairs := 0
	var inconclusive []*Cell
	for i := range f.Results {
		c := &f.Results[i]
		if c.Compare == nil || (c.Compare.Against == "" && c.Compare.AgainstWorkload == "") {
			continue
		}
		switch c.Verdict {
		case VerdictInconclusive:
			inconclusive = append(inconclusive, c)
		case VerdictRegressed, VerdictImproved, VerdictSame:
		default:
			continue
		}
		pairs++
	}
	if pairs == 0 || float64(len(inconclusive)) <= UndecidedShare*float64(pairs) {
		return ""
	}
	return fmt.Sprintf("this run cannot show that nothing regressed: %d of %d pairs inconclusive", len(inconclusive), pairs) + f.undecidedNoise(inconclusive)
}

// undecidedNoise says how far the run's inconclusive A/B pairs are from a
// verdict: the largest change any could hide, and the rounds a pair would
// need at the noise they showed for its interval to fit within ±min_change
// (an interval narrows as 1/sqrt(rounds): n x (hides/min_change)^2, the
// median over the pairs) — what --max-runs, or a larger min_change, would
// have to give. "" when no pair has an interval yet (too few rounds).
func (f *File) undecidedNoise(inconclusive []*Cell) string {
	var widest float64
	var need []float64
	for _, c := range inconclusive {
		h := c.Compare.Hides
		if !(h > 0) || math.IsInf(h, 0) {
			continue
		}
		widest = max(widest, h)
		if m := f.MinChangeOf(c); m > 0 {
			need = append(need, float64(len(c.Measured()))*(h/m)*(h/m))
		}
	}
	if widest == 0 {
		return ""
	}
	s := fmt.Sprintf(", which could hide changes up to ±%.1f%%", 100*widest)
	if len(need) > 0 {
		n := stats.Median(need)
		s += fmt.Sprintf("; at this noise ±%g%% takes ~%d rounds a pair", 100*f.MinChangeOf(inconclusive[0]), int(math.Ceil(n/5))*5)
	}
	return s
}

// SortCells orders cells by the given workload order (unknown workloads last,
// by name) and then by mode order.
func SortCells(cells []Cell, workloads []string, order []modes.Mode) {
	sort.SliceStable(cells, func(i, j int) bool {
		a, b := cells[i], cells[j]
		if wa, wb := index(workloads, a.Workload), index(workloads, b.Workload); wa != wb {
			return wa < wb
		}
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		return index(order, a.Mode) < index(order, b.Mode)
	})
}

// index is x's position in xs, or len(xs) when absent (sorts last).
func index[T comparable](xs []T, x T) int {
	if i := slices.Index(xs, x); i >= 0 {
		return i
	}
	return len(xs)
}

// CheckMeasured refuses a file one of whose cells that judged picks (and
// that did not fail) holds no measured value of its metric: no measured
// run, or a run whose metric is 0 (not recorded). Such a cell judged
// against reads "baseline 0s … regressed"; a verdict stored on it can be
// checked against nothing. name (the file as the user gave it) and the
// cell start the error.
func (f *File) CheckMeasured(name string, judged func(*Cell) bool) error {
	for i := range f.Results {
		c := &f.Results[i]
		if c.Failed() || !judged(c) {
			continue
		}
		xs := c.Values()
		if len(xs) == 0 {
			return fmt.Errorf("%s: results[%d] (%s) has no measured run: there is nothing to judge against or by (record it again)", name, i, c.Key())
		}
		for j, x := range xs {
			if !(x > 0) {
				return fmt.Errorf("%s: results[%d] (%s): measured run %d of %d has no %s (0): there is nothing to judge against or by (record it again)", name, i, c.Key(), j+1, len(xs), c.Metric.OrDefault())
			}
		}
	}
	return nil
}

// AnyCell and JudgedCell are CheckMeasured's usual choices: a baseline's
// every cell is judged against; a results file's cells that hold a verdict
// are judged by their runs.
func AnyCell(*Cell) bool { return true }

// JudgedCell picks the cells whose verdict is a judgement (Verdict.Judged).
func JudgedCell(c *Cell) bool { return c.Verdict.Judged() }
