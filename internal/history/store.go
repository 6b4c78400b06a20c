package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"vbench/internal/atomicfile"
	"vbench/internal/jsonpos"
	"vbench/internal/machine"
	"vbench/internal/results"
)

// SchemaVersion is the version of an entry's layout; Read refuses others.
const SchemaVersion = 1

// Entry is one appended run: a complete results file (merged shards are one
// run) reduced to what a history needs.
type Entry struct {
	Schema   int                 `json:"schema"`
	Commit   string              `json:"commit"`
	Date     time.Time           `json:"date"` // when the run started
	Suite    results.Suite       `json:"suite"`
	Machine  machine.Fingerprint `json:"machine"`
	Settings results.Settings    `json:"settings"`
	Merged   int                 `json:"merged,omitempty"` // shards merged into the run, when it was merged
	// Cells are the run's cells that did not fail, with every raw run,
	// without the verdicts the run gave them.
	Cells []results.Cell `json:"cells"`
}

// FromResults makes the entry of a results file measured at commit. It
// refuses what is not one whole run of one build: partial results, a
// single shard, an A/B run.
func FromResults(f *results.File, commit string) (*Entry, error) {
	switch {
	case commit == "":
		return nil, errors.New("no commit to record the run under")
	case f.Partial:
		return nil, errors.New("the results are partial (the run was interrupted); a history keeps complete runs")
	case f.Shard != nil:
		return nil, fmt.Errorf("the results are shard %d/%d only; merge the shards first (vbench merge) and append the merged file", f.Shard.Index, f.Shard.Count)
	case f.AgainstBuild():
		return nil, fmt.Errorf("the results are an A/B run (--against %s): half of their cells measured another build; append a run without --against", f.Settings.Against)
	}
	e := &Entry{Schema: SchemaVersion, Commit: commit, Date: f.Started, Suite: f.Suite, Machine: f.Machine, Settings: f.Settings, Merged: len(f.Merged)}
	for _, c := range f.Results {
		if c.Failed() || c.Runs == 0 {
			continue // a gap in the cell's series
		}
		c.Verdict, c.Compare, c.Profile = "", nil, ""
		e.Cells = append(e.Cells, c)
	}
	if len(e.Cells) == 0 {
		return nil, errors.New("the results hold no cell with a measured run")
	}
	return e, nil
}

// SameRun reports whether a and b are one invocation: the same start, run
// order seed, suite file (its hash) and machine fingerprint. The commit is
// not part of it: it is what the user said, not what the file holds.
func SameRun(a, b *Entry) bool {
	return a.Date.Equal(b.Date) && a.Settings.Seed == b.Settings.Seed && a.Suite.SHA256 == b.Suite.SHA256 && a.Machine == b.Machine
}

// Read reads every entry of the history at path. A missing file is an
// error wrapping os.ErrNotExist. Errors name the file and line.
func Read(path string) ([]Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the history: %w", path, err)
	}
	return Decode(path, data)
}

// Decode parses a history's bytes; name starts every error.
func Decode(name string, data []byte) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	line, start := 0, 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		lineStart := start
		start += len(b) + 1
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var e Entry
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(&e); err != nil {
			return nil, jsonpos.Error(name, data, shift(err, int64(lineStart)))
		}
		if dec.More() {
			return nil, fmt.Errorf("%s:%d: more than one JSON value on the line (a history holds one entry a line)", name, line)
		}
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// shift moves a decoding error's offset from the line to the file.
func shift(err error, by int64) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return err
	case errors.As(err, &syn):
		syn.Offset += by
	case errors.As(err, &typ):
		typ.Offset += by
	}
	return err
}

func (e *Entry) check() error {
	switch {
	case e.Schema != SchemaVersion:
		return fmt.Errorf("schema: %d, this vbench reads history schema %d", e.Schema, SchemaVersion)
	case e.Commit == "":
		return errors.New("commit: missing")
	case e.Suite.Name == "":
		return errors.New("suite.name: missing")
	}
	for i, c := range e.Cells {
		switch {
		case c.Workload == "":
			return fmt.Errorf("cells[%d].workload: missing", i)
		case c.Mode == "":
			return fmt.Errorf("cells[%d].mode: missing", i)
		case !c.Metric.OrDefault().Valid():
			return fmt.Errorf("cells[%d].metric: unknown metric %q", i, c.Metric)
		}
	}
	return nil
}

// Append adds e to the history at path (created with its directory when
// missing): under the lock baselines take on the directory, the whole file
// is rewritten atomically, so a reader sees the history before or after,
// never half a line, and two appends never lose one another. The existing
// history is read first: an unreadable one, or one of another suite, is
// refused and left as it was.
func Append(path string, e *Entry, waiting func(dir string)) (n int, err error) {
	if err := e.check(); err != nil {
		return 0, fmt.Errorf("%s: the new entry: %v", path, err)
	}
	line, err := json.Marshal(e)
	if err != nil {
		return 0, fmt.Errorf("%s: encode the new entry: %w", path, err)
	}
	unlock, err := atomicfile.LockDir(path, waiting)
	if err != nil {
		return 0, err
	}
	defer unlock()
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("%s: cannot read the history: %w", path, err)
	}
	entries, err := Decode(path, old)
	if err != nil {
		return 0, fmt.Errorf("%w (nothing was appended)", err)
	}
	if len(entries) > 0 && entries[0].Suite.Name != e.Suite.Name {
		return 0, fmt.Errorf("%s is the history of suite %q, not %q (nothing was appended)", path, entries[0].Suite.Name, e.Suite.Name)
	}
	// The same results appended twice would count one invocation as two
	// runs in every series (a change point's test takes them as
	// independent), and under another commit as a run of a build it never
	// measured: a run is what its file holds (SameRun), whatever commit it
	// is appended as.
	for i, o := range entries {
		if SameRun(&o, e) {
			also := ""
			if o.Commit != e.Commit {
				also = fmt.Sprintf(", not %s: the same results file cannot measure two commits", e.Commit)
			}
			return 0, fmt.Errorf("%s already holds this run as run %d, appended as commit %s%s (started %s, seed %d, suite sha256 %.12s, machine %s); nothing was appended",
				path, i, o.Commit, also, e.Date.UTC().Format(time.RFC3339Nano), e.Settings.Seed, e.Suite.SHA256, e.Machine.Hostname)
		}
	}
	if len(old) > 0 && old[len(old)-1] != '\n' {
		old = append(old, '\n')
	}
	if err := atomicfile.WriteFile(path, append(append(old, line...), '\n'), 0o666); err != nil {
		return 0, err
	}
	return len(entries) + 1, nil
}
