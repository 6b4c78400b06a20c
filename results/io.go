package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"vbench/atomicfile"
)

// Marshal renders f as the indented JSON that every vbench file uses.
func Marshal(f *File) ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteFile writes f to path atomically: readers see the old file or the new
// one, never half of either. The directory must exist.
func WriteFile(path string, f *File) error {
	b, err := Marshal(f)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, b, 0o644)
}

// CheckWritable fails early, before a long run, when path's directory cannot
// take a new file.
func CheckWritable(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s: output directory %s does not exist", path, dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: %s is not a directory", path, dir)
	}
	tmp, err := os.CreateTemp(dir, ".vbench-write-test-*")
	if err != nil {
		return fmt.Errorf("%s: output directory %s is not writable: %v", path, dir, errors.Unwrap(err))
	}
	tmp.Close()
	os.Remove(tmp.Name())
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	return nil
}

// ReadFile reads and validates a results (or baseline) file. Errors name the
// file and, for malformed JSON, the line and field.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: cannot read results: %w", path, err)
	}
	f, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s%w", path, err)
	}
	return f, nil
}

// Decode parses and validates a results file's bytes. Errors start with ":"
// and a line number (when known) so callers can prefix the file name.
func Decode(data []byte) (*File, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New(": empty file, not a vbench results file")
	}
	// Check the schema first, so a file from another vbench version says so
	// instead of failing on some field that moved.
	var head struct {
		Schema *int `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err == nil {
		if head.Schema == nil {
			return nil, errors.New(": no \"schema\" field: not a vbench results file")
		}
		if *head.Schema != SchemaVersion {
			return nil, fmt.Errorf(": results schema version %d, this vbench reads version %d (re-create it with this vbench)", *head.Schema, SchemaVersion)
		}
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, jsonErr(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf(":%d: trailing data after the results object", lineOf(data, dec.InputOffset()))
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf(": %w", err)
	}
	return &f, nil
}

func jsonErr(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf(":%d: malformed JSON: %v", lineOf(data, se.Offset), se)
	case errors.As(err, &te):
		return fmt.Errorf(":%d: field %s: %s cannot hold a JSON %s", lineOf(data, te.Offset), te.Field, te.Type, te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf(":%d: truncated JSON (file ends early)", lineOf(data, int64(len(bytes.TrimRight(data, " \t\r\n")))))
	}
	if field, off := badTime(data); field != "" {
		return fmt.Errorf(":%d: field %s: not a time like 2025-06-04T09:14:00Z", lineOf(data, off), field)
	}
	return fmt.Errorf(": malformed JSON: %v", err)
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

func lineOf(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// Validate checks what readers rely on: named cells, no duplicates.
func (f *File) Validate() error {
	if f.Suite.Name == "" {
		return errors.New("suite.name is empty")
	}
	seen := map[string]bool{}
	for i, c := range f.Results {
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
	}
	return nil
}

// Key names a cell: "workload/mode".
func (c *Cell) Key() string { return c.Workload + "/" + c.Mode }

// Find returns the cell for workload and mode, or nil.
func (f *File) Find(workload, mode string) *Cell {
	for i := range f.Results {
		if f.Results[i].Workload == workload && f.Results[i].Mode == mode {
			return &f.Results[i]
		}
	}
	return nil
}

// Measured returns the cell's successful measured runs.
func (c *Cell) Measured() []Run {
	var out []Run
	for _, r := range c.Samples {
		if !r.Warmup && r.Error == "" {
			out = append(out, r)
		}
	}
	return out
}

// Elapsed returns the workload's own elapsed times of the successful measured runs.
func (c *Cell) Elapsed() []float64 {
	var out []float64
	for _, r := range c.Measured() {
		out = append(out, float64(r.ElapsedNs))
	}
	return out
}

// Failed reports whether the cell failed (a run failed, or the profiler's
// call counts were wrong).
func (c *Cell) Failed() bool { return c.Failure != "" }

// Counts tallies the verdicts of a file's cells.
func (f *File) Counts() map[string]int {
	m := map[string]int{}
	for _, c := range f.Results {
		v := c.Verdict
		if v == "" {
			v = VerdictNew
		}
		m[v]++
	}
	return m
}

// SortCells orders cells by the given workload order (unknown workloads last,
// by name) and then by mode order.
func SortCells(cells []Cell, workloads, modes []string) {
	idx := func(xs []string, x string) int {
		for i, y := range xs {
			if y == x {
				return i
			}
		}
		return len(xs)
	}
	sort.SliceStable(cells, func(i, j int) bool {
		a, b := cells[i], cells[j]
		if wa, wb := idx(workloads, a.Workload), idx(workloads, b.Workload); wa != wb {
			return wa < wb
		}
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		return idx(modes, a.Mode) < idx(modes, b.Mode)
	})
}
