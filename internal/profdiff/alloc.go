package profdiff

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"vbench/internal/profile"
)

// Allocs is one side's allocations (the allocation engines' profiles),
// summed over its runs: objects and bytes by type, and by type and the
// path that allocated them (the allocating frame first).
type Allocs struct {
	Runs    int
	Sampled bool // estimates (allocation-sampling)
	types   map[string]*allocSum
	sites   map[string]*allocSum // by type + "\x00" + path
}

type allocSum struct {
	count, bytes int64
	path         []string
}

// AddAllocs adds one run's profile (its processes merged) to the side; a
// profile without an allocations section is an error.
func (a *Allocs) AddAllocs(p *profile.Profile) error {
	al := p.Allocations
	if al == nil {
		return fmt.Errorf("a %s profile records no allocations", p.Mode)
	}
	if a.types == nil {
		a.types, a.sites = map[string]*allocSum{}, map[string]*allocSum{}
	}
	a.Runs++
	a.Sampled = a.Sampled || al.Sampled
	for _, t := range al.Types {
		s := a.sum(a.types, t.Name, nil)
		s.count += t.Count
		s.bytes += t.Bytes
	}
	for ti := range al.Threads {
		th := &al.Threads[ti]
		for i, n := range th.Nodes {
			if len(n.Types) == 0 {
				continue
			}
			path := th.Path(p, i)
			for _, st := range n.Types {
				name := al.Types[st.Type].Name
				s := a.sum(a.sites, name+"\x00"+strings.Join(path, "\x00"), path)
				s.count += st.Count
				s.bytes += st.Bytes
			}
		}
	}
	return nil
}

func (a *Allocs) sum(m map[string]*allocSum, key string, path []string) *allocSum {
	s := m[key]
	if s == nil {
		s = &allocSum{path: path}
		m[key] = s
	}
	return s
}

// AllocRow is one type's (or one of its paths') objects and bytes, the
// mean per run of each side.
type AllocRow struct {
	Type     string   `json:"type"`
	Path     []string `json:"path,omitempty"` // a path row: the allocating frame first
	OldCount float64  `json:"old_objects"`
	NewCount float64  `json:"new_objects"`
	OldBytes float64  `json:"old_bytes"`
	NewBytes float64  `json:"new_bytes"`
}

// Change is the row's change in bytes per run.
func (r AllocRow) Change() float64 { return r.NewBytes - r.OldBytes }

// AllocDiff compares two sides' allocations: the totals, every type by the
// size of its change in bytes (largest first), and for each type its paths
// the same way.
type AllocDiff struct {
	OldRuns, NewRuns   int
	Sampled            bool // either side's figures are estimates
	OldBytes, NewBytes float64
	OldCount, NewCount float64
	Types              []AllocRow
	paths              map[string][]AllocRow
}

// CompareAllocs compares the allocations of two sides.
func CompareAllocs(old, new *Allocs) (*AllocDiff, error) {
	if old.Runs == 0 || new.Runs == 0 {
		return nil, fmt.Errorf("nothing to compare: %d old and %d new allocation profiles", old.Runs, new.Runs)
	}
	d := &AllocDiff{OldRuns: old.Runs, NewRuns: new.Runs, Sampled: old.Sampled || new.Sampled, paths: map[string][]AllocRow{}}
	on, nn := float64(old.Runs), float64(new.Runs)
	row := func(typ string, path []string, o, n *allocSum) AllocRow {
		r := AllocRow{Type: typ, Path: path}
		if o != nil {
			r.OldCount, r.OldBytes = float64(o.count)/on, float64(o.bytes)/on
		}
		if n != nil {
			r.NewCount, r.NewBytes = float64(n.count)/nn, float64(n.bytes)/nn
		}
		return r
	}
	for _, name := range union(old.types, new.types) {
		r := row(name, nil, old.types[name], new.types[name])
		d.Types = append(d.Types, r)
		d.OldBytes += r.OldBytes
		d.NewBytes += r.NewBytes
		d.OldCount += r.OldCount
		d.NewCount += r.NewCount
	}
	for _, key := range union(old.sites, new.sites) {
		typ, _, _ := strings.Cut(key, "\x00")
		o, n := old.sites[key], new.sites[key]
		path := []string(nil)
		if n != nil {
			path = n.path
		} else {
			path = o.path
		}
		d.paths[typ] = append(d.paths[typ], row(typ, path, o, n))
	}
	byChange(d.Types)
	for _, rows := range d.paths {
		byChange(rows)
	}
	return d, nil
}

// Paths are the paths of type typ, the largest change in bytes first.
func (d *AllocDiff) Paths(typ string) []AllocRow { return d.paths[typ] }

func union(a, b map[string]*allocSum) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// byChange sorts rows by the size of their change in bytes, largest first
// (a tie by name, so the order is stable).
func byChange(rows []AllocRow) {
	sort.SliceStable(rows, func(i, j int) bool {
		ci, cj := math.Abs(rows[i].Change()), math.Abs(rows[j].Change())
		if ci != cj {
			return ci > cj
		}
		return rows[i].NewBytes > rows[j].NewBytes
	})
}
