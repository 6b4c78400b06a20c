package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sample(suite string, cells ...Cell) *File {
	return &File{Schema: SchemaVersion, Suite: Suite{Name: suite, SHA256: "abc"}, Started: time.Unix(100, 0).UTC(), Finished: time.Unix(200, 0).UTC(), Results: cells}
}

func TestRoundTrip(t *testing.T) {
	f := sample("s", Cell{Workload: "w", Mode: "none", Runs: 1, Samples: []Run{{ElapsedNs: 5}}})
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	g, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if g.Suite.Name != "s" || g.Results[0].Samples[0].ElapsedNs != 5 || !g.Started.Equal(f.Started) {
		t.Errorf("round trip: %+v", g)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temp files left: %v", entries)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := map[string]string{
		"{\n  \"schema\": 1,\n  \"suite\": {\"name\": \"s\"},\n  \"results\": [{\"workload\": \"w\", \"mode\": \"none\"}, {\"workload\": \"w\", \"mode\": \"none\"}]\n}": ": results[1]: cell w/none appears twice",
		`{"schema": 1, "suite": {"name": "s"}, "results": [{"workload": "w", "mode": "none", "runs": 3, "samples": []}]}`:                                                "runs 3 but 0 samples",
		`{"schema": 1, "suite": {"name": ""}}`:                           "suite.name is empty",
		"{\"schema\": 1,\n\"suite\": {\"name\": \"s\"}} {}":              ":2: trailing data",
		"{\"schema\": 1,\n\"results\": [{\"runs\": \"ten\"}]}":           ":2: field results.runs: int cannot hold a JSON string",
		"{\"schema\": 1,\n\"suite\": {\"name\": \"s\"},\n\"results\": [": ":3: truncated JSON",
	}
	for in, want := range cases {
		_, err := Decode([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestMerge(t *testing.T) {
	a := sample("s", Cell{Workload: "w", Mode: "none", Verdict: VerdictSame})
	b := sample("s", Cell{Workload: "w", Mode: "tracing", Failure: "crashed"})
	b.Started = time.Unix(50, 0).UTC()
	m, err := Merge([]string{"a", "b"}, []*File{a, b}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Results) != 2 || m.Results[0].Verdict != "" || m.Results[1].Verdict != VerdictFailed || !m.Started.Equal(b.Started) || m.Shard != nil {
		t.Errorf("merged: %+v", m)
	}
	if _, err := Merge([]string{"a", "a2"}, []*File{a, a}, false); err == nil || !strings.Contains(err.Error(), "shards overlap") {
		t.Errorf("overlap: %v", err)
	}
	c := sample("t")
	if _, err := Merge([]string{"a", "c"}, []*File{a, c}, false); err == nil || !strings.Contains(err.Error(), "different suites") {
		t.Errorf("other suite: %v", err)
	}
	p := sample("s")
	p.Partial = true
	if _, err := Merge([]string{"a", "p"}, []*File{a, p}, false); err == nil || !strings.Contains(err.Error(), "partial") {
		t.Errorf("partial: %v", err)
	}
	if m, err := Merge([]string{"a", "p"}, []*File{a, p}, true); err != nil || !m.Partial {
		t.Errorf("allowed partial: %v", err)
	}
}

func TestSortCells(t *testing.T) {
	cells := []Cell{{Workload: "b", Mode: "tracing"}, {Workload: "a", Mode: "sampling"}, {Workload: "b", Mode: "none"}, {Workload: "a", Mode: "none"}}
	SortCells(cells, nil, []string{"none", "null", "tracing", "sampling"})
	var got []string
	for _, c := range cells {
		got = append(got, c.Key())
	}
	if strings.Join(got, " ") != "a/none a/sampling b/none b/tracing" {
		t.Errorf("sorted: %v", got)
	}
}
