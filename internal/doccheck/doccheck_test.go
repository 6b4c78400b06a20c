package doccheck

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"vbench/internal/testbin"
)

// designCard is the top level the project's design names, plus the rooms it
// allows beside them. A new top-level folder has to be argued for here.
var designCard = []string{".ci", ".github", "baseline", "benchmarks", "cmd", "docs", "internal", "profiler", "reports", "runner", "scripts", "stats"}

// tracked lists the repository's tracked files (paths relative to the root).
func tracked(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = testbin.RepoRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// topFolders are the top-level directories holding tracked files.
func topFolders(t *testing.T) []string {
	seen := map[string]bool{}
	for _, f := range tracked(t) {
		if dir, _, ok := strings.Cut(f, "/"); ok {
			seen[dir] = true
		}
	}
	var out []string
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// architecture reads the folder names DEVELOPERS.md's "## Architecture"
// code block lists (it left the README to keep that within 200 lines), one per line ("runner/   what it does").
func architecture(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(testbin.RepoRoot(), "DEVELOPERS.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	section, block := false, false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = line == "## Architecture"
		case section && strings.HasPrefix(line, "```"):
			if block {
				return out
			}
			block = true
		case section && block:
			if name, _, _ := strings.Cut(strings.TrimSpace(line), " "); strings.HasSuffix(name, "/") {
				out = append(out, strings.TrimSuffix(name, "/"))
			}
		}
	}
	t.Fatal(`DEVELOPERS.md has no "## Architecture" section with a code block of folders`)
	return nil
}

func TestArchitectureListsEveryTopLevelFolder(t *testing.T) {
	tree, listed := topFolders(t), architecture(t)
	for _, d := range tree {
		if !slices.Contains(listed, d) {
			t.Errorf("top-level folder %s/ is missing from DEVELOPERS.md's Architecture section", d)
		}
	}
	for _, d := range listed {
		if !slices.Contains(tree, d) {
			t.Errorf("DEVELOPERS.md's Architecture names %s/, which does not exist", d)
		}
	}
}

func TestTopLevelIsTheDesignCard(t *testing.T) {
	for _, d := range topFolders(t) {
		if !slices.Contains(designCard, d) {
			t.Errorf("top-level folder %s/ is not on the design card (%s): move it under internal/ (or cmd/ for a command)", d, strings.Join(designCard, ", "))
		}
	}
}

// movedAway are top-level folders that once existed: a doc naming one is stale.
var movedAway = []string{"atomicfile", "attach", "buildinfo", "cli", "doctor", "jsonpos", "machine", "numfmt", "profile", "render", "results", "suite"}

// repoPath finds repository paths named in prose: a top-level folder of the
// design card (or one that moved away), a slash, and more ("runner/exec.go",
// "internal/suite/").
var repoPath = regexp.MustCompile("(?:^|[\\s`(\\[\"'])((?:" + strings.Join(quoteAll(append(slices.Clone(designCard), movedAway...)), "|") + ")/[A-Za-z0-9_.\\-/]*)")

// codeSpan is Markdown inline code, where "[1](fib)" is text, not a link.
var codeSpan = regexp.MustCompile("`[^`]*`")

// mdLink finds Markdown link targets.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = regexp.QuoteMeta(x)
	}
	return out
}

// generated are paths that exist only after a build or run, never in a clean clone.
func generated(p string) bool {
	for _, part := range strings.Split(p, "/") {
		// baselines/ holds what `vbench baseline update` writes: never committed.
		if part == "bin" || part == "obj" || part == "out" || part == "profiles" || part == "baselines" {
			return true
		}
	}
	return false
}

// documents are the files whose paths and links must hold: every Markdown
// file, the workflow, the scripts, the Makefile, and Go comments.
func documents(t *testing.T) []string {
	var out []string
	for _, f := range tracked(t) {
		switch {
		case strings.Contains(f, "/testdata/"):
		case strings.HasSuffix(f, ".md"), strings.HasSuffix(f, ".yml"), strings.HasSuffix(f, ".yaml"),
			strings.HasSuffix(f, ".sh"), f == "Makefile", f == ".ci/run", strings.HasSuffix(f, ".go"):
			out = append(out, f)
		}
	}
	return out
}

func TestDocsNameOnlyPathsThatExist(t *testing.T) {
	root := testbin.RepoRoot()
	for _, doc := range documents(t) {
		data, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(data), "\n") {
			if strings.HasSuffix(doc, ".go") {
				// In Go only comments are prose; code builds its paths.
				i := strings.Index(line, "// ")
				if i < 0 {
					continue
				}
				line = line[i:]
			}
			for _, m := range repoPath.FindAllStringSubmatch(line, -1) {
				p := strings.TrimRight(m[1], ".,:;")
				if generated(p) || strings.ContainsAny(p, "<*…{$") || strings.Contains(p, "...") {
					continue
				}
				if !exists(filepath.Join(root, p)) {
					t.Errorf("%s:%d names %s, which does not exist", doc, n+1, p)
				}
			}
			if !strings.HasSuffix(doc, ".md") {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				target, _, _ := strings.Cut(m[1], "#")
				if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.Dir(doc), target)); err != nil {
					t.Errorf("%s:%d links to %s, which does not exist", doc, n+1, m[1])
				}
			}
		}
	}
}

// goSymbol is a Go identifier after a package path: "internal/testbin.Vbench".
var goSymbol = regexp.MustCompile(`\.[A-Z][A-Za-z0-9_]*$`)

// exists reports whether p names a file or folder, or a symbol of a package
// folder ("internal/testbin.Vbench").
func exists(p string) bool {
	if _, err := os.Stat(p); err == nil {
		return true
	}
	if dir := goSymbol.ReplaceAllString(p, ""); dir != p {
		fi, err := os.Stat(dir)
		return err == nil && fi.IsDir()
	}
	return false
}

// The README's Quick start says how to build, run the benchmark and test
// (make build, make bench, make test), each a target of the Makefile, and
// says how to build before its first example runs bin/vbench.
func TestReadmeSaysHowToBuild(t *testing.T) {
	root := testbin.RepoRoot()
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	_, quick, _ := strings.Cut(text, "## Quick start")
	quick, _, _ = strings.Cut(quick, "\n## ")
	for _, target := range []string{"build", "bench", "test"} {
		if !strings.Contains(quick, "`make "+target+"`") && !strings.Contains(quick, "make "+target+" ") {
			t.Errorf("README's Quick start does not name make %s", target)
		}
		if !regexp.MustCompile(`(?m)^` + target + `:`).Match(makefile) {
			t.Errorf("the Makefile has no %s target", target)
		}
	}
	if b, v := strings.Index(text, "make build"), strings.Index(text, "bin/vbench "); b < 0 || v < 0 || b > v {
		t.Errorf("README runs bin/vbench (at %d) before it says make build builds it (at %d)", v, b)
	}
}
