// Package lines maps a profile's IL offsets to source lines after the run,
// from the program's own portable PDBs (beside each module, or embedded in
// it), and fills in each function's file and first line, each node's line
// counts and the functions' per-line totals.
//
// The PDBs are read by a small C# helper (pdblines/, System.Reflection.Metadata
// from the shared framework: no hand-written PDB parser), built once per
// version of its source into the user's cache directory. A module without a
// PDB, or whose PDB is another build's (its id is not the one the module's
// debug directory names), keeps method-level results and gets a one-line
// note among the profile's warnings; it is never mapped to wrong lines.
package lines

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"vbench/internal/dotnetbuild"
	"vbench/internal/profile"
)

//go:embed pdblines/PdbLines.csproj pdblines/Program.cs
var helperSrc embed.FS

// Module is what the helper said of one module.
type Module struct {
	Path    string             `json:"module"`
	Pdb     string             `json:"pdb"`  // "embedded", the .pdb read, or "" (none used)
	Note    string             `json:"note"` // why there are no lines; "" when there are
	Docs    []string           `json:"docs"`
	Methods map[string][][]int `json:"methods"` // token -> [IL offset, line (0: hidden), doc]
}

type request struct {
	Module string   `json:"module"`
	Tokens []uint32 `json:"tokens"`
}

// Read asks the helper for the sequence points of the given methods
// (metadata tokens) of each module path.
func Read(ctx context.Context, tokens map[string][]uint32) (map[string]*Module, error) {
	dll, err := Helper(ctx)
	if err != nil {
		return nil, err
	}
	var reqs []request
	for m, ts := range tokens {
		reqs = append(reqs, request{m, ts})
	}
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].Module < reqs[j].Module })
	in, _ := json.Marshal(reqs)
	cmd := exec.CommandContext(ctx, dotnet(), dll)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = helperEnv()
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("reading PDBs (%s): %v: %s", dll, err, strings.TrimSpace(stderr.String()))
	}
	var mods []*Module
	if err := json.Unmarshal(out.Bytes(), &mods); err != nil {
		return nil, fmt.Errorf("reading PDBs: the helper's answer: %v", err)
	}
	byPath := map[string]*Module{}
	for _, m := range mods {
		byPath[m.Path] = m
	}
	return byPath, nil
}

// helperEnv keeps the helper itself from being profiled (a profiling
// environment inherited from a vbench profile run) and quiet.
func helperEnv() []string {
	var env []string
	for _, e := range os.Environ() {
		if strings.HasPrefix(e, "CORECLR_") || strings.HasPrefix(e, "DOTNET_") || strings.HasPrefix(e, "VBENCH_") {
			continue
		}
		env = append(env, e)
	}
	return append(env, "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1", "DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1", "DOTNET_TieredPGO=0")
}

func dotnet() string {
	if p, err := exec.LookPath("dotnet"); err == nil {
		return p
	}
	return "dotnet"
}

// Helper builds the PDB reader (once per version of its source, into the
// user's cache directory: dotnetbuild.Embedded) and returns its assembly.
func Helper(ctx context.Context) (string, error) {
	return dotnetbuild.Embedded(ctx, "pdblines", helperSrc, "pdblines")
}

// Resolve maps every line count of p (nodes' Lines, by token and IL
// offset) to its source line, sets the functions' File and Line for every
// function of the modules involved, re-derives the per-line totals and
// adds a note to p.Warnings for each module it could not read lines for.
// A profile without line counts is left as it is.
func Resolve(ctx context.Context, p *profile.Profile) error { return ResolveAll(ctx, p) }

// ResolveAll resolves the lines of every profile in ps as Resolve does,
// with one run of the helper for them all (it costs ~0.25 s of CPU a run,
// however few methods it reads).
func ResolveAll(ctx context.Context, ps ...*profile.Profile) error {
	tokens := map[string][]uint32{}
	for _, p := range ps {
		if p.HasLines() {
			addTokens(p, tokens)
		}
	}
	if len(tokens) == 0 {
		return nil
	}
	for m, ts := range tokens {
		slices.Sort(ts)
		tokens[m] = slices.Compact(ts) // the profiles share methods
	}
	mods, err := Read(ctx, tokens)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if p.HasLines() {
			Apply(p, mods)
		}
	}
	return nil
}

// addTokens adds to tokens the methods of p's modules with line counts
// whose sequence points Apply needs: every function of those modules, and
// the overloads sharing a row.
func addTokens(p *profile.Profile, tokens map[string][]uint32) {
	used := map[string]bool{}
	for _, t := range p.Threads {
		callers(t.Roots, func(n *profile.Node, caller int) {
			if len(n.Lines) > 0 && p.Functions[n.Fn].ModulePath != "" {
				used[p.Functions[n.Fn].ModulePath] = true
			}
			if len(n.CallLines) > 0 && caller >= 0 && p.Functions[caller].ModulePath != "" {
				used[p.Functions[caller].ModulePath] = true
			}
		})
	}
	for _, b := range p.Blocks {
		if m := p.Functions[b.Fn].ModulePath; m != "" {
			used[m] = true
		}
	}
	for _, f := range p.Functions {
		if used[f.ModulePath] && f.Token != 0 {
			tokens[f.ModulePath] = append(tokens[f.ModulePath], f.Token)
		}
	}
	for _, t := range p.Threads {
		callers(t.Roots, func(n *profile.Node, caller int) {
			for _, l := range n.Lines {
				if m := p.Functions[n.Fn].ModulePath; used[m] && l.Token != 0 && l.Token != p.Functions[n.Fn].Token {
					tokens[m] = append(tokens[m], l.Token) // an overload sharing the row
				}
			}
			for _, l := range n.CallLines {
				if caller < 0 {
					break
				}
				if m := p.Functions[caller].ModulePath; used[m] && l.Token != 0 && l.Token != p.Functions[caller].Token {
					tokens[m] = append(tokens[m], l.Token)
				}
			}
		})
	}
}

// Apply fills p's lines from what the helper read (see Resolve).
func Apply(p *profile.Profile, mods map[string]*Module) {
	var notes []string
	for _, path := range sortedKeys(mods) {
		if m := mods[path]; m.Note != "" {
			notes = append(notes, "lines: "+m.Note)
		}
	}
	points := func(f *profile.Function, token uint32) (*Module, [][]int) {
		m := mods[f.ModulePath]
		if m == nil || m.Note != "" {
			return nil, nil
		}
		return m, m.Methods[strconv.FormatUint(uint64(token), 10)]
	}
	for i := range p.Functions {
		f := &p.Functions[i]
		m, ps := points(f, f.Token)
		if first := firstVisible(ps); first != nil {
			f.File, f.Line = m.Docs[first[2]], first[1]
		}
	}
	resolve := func(f *profile.Function, ls []profile.LineCount) {
		for j := range ls {
			l := &ls[j]
			tok := l.Token
			if tok == 0 {
				tok = f.Token
			}
			m, ps := points(f, tok)
			l.File, l.Line = "", 0
			if pt := pointAt(ps, l.IL); pt != nil {
				l.Line = pt[1]
				if doc := m.Docs[pt[2]]; doc != f.File {
					l.File = doc
				}
			}
		}
	}
	for ti := range p.Threads {
		callers(p.Threads[ti].Roots, func(n *profile.Node, caller int) {
			resolve(&p.Functions[n.Fn], n.Lines)
			if caller >= 0 {
				resolve(&p.Functions[caller], n.CallLines) // the caller's lines
			}
		})
	}
	p.Executions = executions(p, points)
	p.Warnings = append(p.Warnings, notes...)
	p.Derive()
}

// executions maps the instrumentation engine's block counts to lines: a
// sequence point ran as often as the basic block holding it (the block
// whose first instruction is the last at or before it), and a line as
// often as its most executed sequence point.
func executions(p *profile.Profile, points func(*profile.Function, uint32) (*Module, [][]int)) []profile.LineExec {
	type method struct {
		fn    int
		token uint32
	}
	blocks := map[method][]profile.BlockCount{}
	var order []method
	for _, b := range p.Blocks {
		k := method{b.Fn, b.Token}
		if _, ok := blocks[k]; !ok {
			order = append(order, k)
		}
		blocks[k] = append(blocks[k], b)
	}
	type lineKey struct {
		fn   int
		file string
		line int
	}
	best := map[lineKey]int64{}
	var keys []lineKey
	for _, k := range order {
		bs := blocks[k]
		sort.Slice(bs, func(i, j int) bool { return bs[i].IL < bs[j].IL })
		f := &p.Functions[k.fn]
		m, ps := points(f, k.token)
		for _, pt := range ps {
			if len(pt) != 3 || pt[1] <= 0 {
				continue
			}
			i := sort.Search(len(bs), func(i int) bool { return int(bs[i].IL) > pt[0] }) - 1
			if i < 0 {
				continue
			}
			lk := lineKey{k.fn, "", pt[1]}
			if doc := m.Docs[pt[2]]; doc != f.File {
				lk.file = doc
			}
			if old, ok := best[lk]; !ok {
				keys = append(keys, lk)
				best[lk] = bs[i].Executions
			} else if bs[i].Executions > old {
				best[lk] = bs[i].Executions
			}
		}
	}
	out := make([]profile.LineExec, 0, len(keys))
	for _, k := range keys {
		out = append(out, profile.LineExec{Fn: k.fn, File: k.file, Line: k.line, Executions: best[k]})
	}
	return out
}

func firstVisible(ps [][]int) []int {
	for _, pt := range ps {
		if len(pt) == 3 && pt[1] > 0 {
			return pt
		}
	}
	return nil
}

// pointAt is the sequence point that IL offset il belongs to: the last
// visible one at or before it (a hidden point, the compiler's jump into a
// loop's condition, belongs to the statement before it). The prolog
// belongs to the method's first line, the epilog to its last point.
func pointAt(ps [][]int, il int32) []int {
	switch {
	case il == -2:
		return firstVisible(ps)
	case il == -3:
		for k := len(ps) - 1; k >= 0; k-- {
			if ps[k][1] > 0 {
				return ps[k]
			}
		}
		return nil
	case il < 0:
		return nil
	}
	var best []int
	for _, pt := range ps {
		if len(pt) == 3 && pt[0] <= int(il) && pt[1] > 0 && (best == nil || pt[0] >= best[0]) {
			best = pt
		}
	}
	return best
}

// callers walks roots, giving each node with its parent's function (-1
// for a root).
func callers(roots []profile.Node, visit func(n *profile.Node, caller int)) {
	var path []int
	profile.Walk(roots, func(n *profile.Node, d int) bool {
		caller := -1
		if d > 0 {
			caller = path[d-1]
		}
		path = append(path[:d], n.Fn)
		visit(n, caller)
		return true
	}, nil)
}

func sortedKeys(m map[string]*Module) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// ResolveDir resolves the lines of the profile one process wrote into dir
// and writes it back (profile.json and profile.pb.gz, atomically).
func ResolveDir(ctx context.Context, dir string) error {
	p, err := profile.ReadFile(filepath.Join(dir, profile.JSONFile))
	if err != nil {
		return err
	}
	if !p.HasLines() {
		return nil
	}
	if err := Resolve(ctx, p); err != nil {
		p.Warnings = append(p.Warnings, "lines: "+err.Error())
	}
	return profile.WriteDir(dir, p)
}
