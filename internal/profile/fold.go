package profile

import (
	"slices"
	"strings"
)

// TestRunnerFrames are the frames a `dotnet test` profile folds by default:
// the framework, the SDK and MSBuild, the test platform (vstest, testhost
// and the Newtonsoft.Json it talks with) and the test frameworks' runners and
// asserts (xunit, NUnit, MSTest). Focus patterns: each also matches the
// names under it ("Xunit" matches Xunit.Sdk.TestInvoker, not XunitTree.Tests).
var TestRunnerFrames = []string{"System", "Microsoft", "mscorlib", "netstandard", "Internal",
	"dotnet", "MSBuild", "NuGet", "vstest.console", "testhost", "Newtonsoft.Json",
	"xunit", "Xunit", "nunit", "NUnit", "MSTest"}

// IsTestHost reports whether p is a `dotnet test` test host: the process that
// runs the tests (testhost.dll, or the test assembly run with testhost's
// runtimeconfig and deps, as vstest starts it on Linux).
func (p *Profile) IsTestHost() bool {
	return slices.ContainsFunc(p.Command, func(a string) bool {
		return strings.HasSuffix(a, "testhost.dll") || strings.HasSuffix(a, "testhost.exe")
	})
}

// TestRun reports whether t is a profile of a test run: one of its processes
// is a test host.
func (t *Tree) TestRun() bool {
	return slices.ContainsFunc(t.Processes, (*Profile).IsTestHost)
}

// Folded returns the view of p without the frames f matches: each such frame
// is removed, its exclusive figures go to its nearest kept ancestor, and its
// callees take its place (merged with a sibling of the same function). The
// frames folded above the first kept one are dropped with their own time, so
// a thread's total is its kept frames' time. Threads left without a frame are
// left out. The function table is derived again; FoldedBy is set on the view.
func (p *Profile) Folded(f *Focus) *Profile {
	if f == nil {
		return p
	}
	v := *p
	v.FoldedBy = f
	v.Functions = make([]Function, len(p.Functions))
	copy(v.Functions, p.Functions)
	fold := make([]bool, len(p.Functions))
	for i := range p.Functions {
		fold[i] = f.Matches(&p.Functions[i])
	}
	v.Threads = nil
	for _, t := range p.Threads {
		flat := Flatten(t.Roots)
		var out []FlatNode
		stand := make([]int, len(flat)) // index in out of the kept node that stands for flat[i]; -1: none
		merged := map[[2]int]int{}      // (parent in out, function) → index in out
		for i, n := range flat {
			parent := -1
			if n.Parent >= 0 {
				parent = stand[n.Parent]
			}
			if fold[n.Fn] {
				stand[i] = parent
				if parent >= 0 {
					out[parent].ExclusiveNs += n.ExclusiveNs
					out[parent].ExclusiveSamples += n.ExclusiveSamples
					out[parent].KernelExclusive += n.KernelExclusive
				}
				continue
			}
			k := [2]int{parent, n.Fn}
			if j, ok := merged[k]; ok {
				o := &out[j]
				o.Calls += n.Calls
				o.InclusiveNs += n.InclusiveNs
				o.ExclusiveNs += n.ExclusiveNs
				o.InclusiveSamples += n.InclusiveSamples
				o.ExclusiveSamples += n.ExclusiveSamples
				o.KernelInclusive += n.KernelInclusive
				o.KernelExclusive += n.KernelExclusive
				stand[i] = j
				continue
			}
			n.Parent = parent
			merged[k], stand[i] = len(out), len(out)
			out = append(out, n)
		}
		if len(out) == 0 {
			continue
		}
		roots, err := Unflatten(out)
		if err != nil {
			panic("profile: folding broke the tree's order: " + err.Error()) // parents are always appended first
		}
		t.Roots = roots
		v.Threads = append(v.Threads, t)
	}
	v.Derive()
	return &v
}

// Folded returns the view of t with f's frames folded in every process
// (Profile.Folded), the test hosts first.
func (t *Tree) Folded(f *Focus) *Tree {
	if f == nil {
		return t
	}
	v := *t
	type proc struct {
		p    *Profile
		path string
	}
	ps := make([]proc, len(t.Processes))
	for i, p := range t.Processes {
		ps[i] = proc{p.Folded(f), t.Paths[i]}
	}
	slices.SortStableFunc(ps, func(a, b proc) int {
		switch {
		case a.p.IsTestHost() == b.p.IsTestHost():
			return 0
		case a.p.IsTestHost():
			return -1
		}
		return 1
	})
	v.Processes, v.Paths = make([]*Profile, len(ps)), make([]string, len(ps))
	for i, x := range ps {
		v.Processes[i], v.Paths[i] = x.p, x.path
	}
	return &v
}
