package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"vbench/internal/testbin"
)

// maxReferenceLines is how long a reference page may grow: past it a page
// is two subjects, or a notebook.
const maxReferenceLines = 500

// dated is a heading that reports a measurement rather than says what the
// tool does: one with a date, or one that opens with "Measured", "Figures"
// or "Before". Those live in docs/notebook/, linked from the reference.
var dated = regexp.MustCompile(`(?i)^#+\s+(?:.*\b20\d\d-\d\d-\d\d\b|measured\b|figures\b|before\b)`)

// aDate is a day in prose; code (an example's output, a timestamp field)
// and a link's target (a notebook section's anchor) may hold one.
var aDate = regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b`)

// linkTarget is a Markdown link's target, "(notebook/x.md#y-2026-11-26)".
var linkTarget = regexp.MustCompile(`\]\([^)]*\)`)

// referencePages are docs/*.md: the reference a user reads. The notebook
// (docs/notebook/) is apart: studies and measurement history.
func referencePages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(testbin.RepoRoot(), "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	return pages
}

// Each reference page is short and says what the tool does; what was
// measured, and when (a dated heading or sentence), is in the notebook.
func TestReferencePagesAreShortAndUndated(t *testing.T) {
	root := testbin.RepoRoot()
	for _, page := range referencePages(t) {
		rel, _ := filepath.Rel(root, page)
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > maxReferenceLines {
			t.Errorf("%s has %d lines, more than %d: split it by subject, or move what was measured to docs/notebook/", rel, len(lines), maxReferenceLines)
		}
		fence := false
		for n, line := range lines {
			if strings.HasPrefix(line, "```") {
				fence = !fence
			}
			if fence || strings.HasPrefix(line, "```") {
				continue
			}
			if dated.MatchString(line) {
				t.Errorf("%s:%d: %q is a measurement's heading: it belongs in docs/notebook/, linked from here", rel, n+1, line)
			} else if prose := linkTarget.ReplaceAllString(codeSpan.ReplaceAllString(line, ""), "]"); aDate.MatchString(prose) {
				t.Errorf("%s:%d: a dated result (%s) in the reference: move it to docs/notebook/ and link it", rel, n+1, aDate.FindString(prose))
			}
		}
	}
}

func TestReadmeIsShort(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testbin.RepoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Split(strings.TrimRight(string(data), "\n"), "\n")); n > 200 {
		t.Errorf("README.md has %d lines, more than 200", n)
	}
}

// htmlAnchor is an explicit anchor: <a id="sampled-shares"></a>.
var htmlAnchor = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)

// anchors are the fragments a Markdown file answers to: its headings'
// slugs as GitHub makes them (lower case, punctuation dropped, spaces to
// hyphens, a repeat numbered -1, -2…) and its explicit anchors.
func anchors(data string) map[string]bool {
	out, seen, fence := map[string]bool{}, map[string]int{}, false
	for _, line := range strings.Split(data, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence {
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		if !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// A link to a section reaches it: moving a section between pages (or
// renaming its heading) updates every link to it.
func TestLinksReachTheirAnchors(t *testing.T) {
	root := testbin.RepoRoot()
	cache := map[string]map[string]bool{}
	load := func(p string) map[string]bool {
		if a, ok := cache[p]; ok {
			return a
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		cache[p] = anchors(string(data))
		return cache[p]
	}
	checked := 0
	for _, doc := range documents(t) {
		if !strings.HasSuffix(doc, ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(data), "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
				target, frag, ok := strings.Cut(m[1], "#")
				if !ok || strings.Contains(target, "://") || (target != "" && !strings.HasSuffix(target, ".md")) {
					continue
				}
				file := filepath.Join(root, doc)
				if target != "" {
					file = filepath.Join(root, filepath.Dir(doc), target)
				}
				a := load(file)
				if a == nil {
					continue // a missing file is TestDocsNameOnlyPathsThatExist's
				}
				checked++
				if !a[frag] {
					t.Errorf("%s:%d links to %s, but %s has no section #%s", doc, n+1, m[1], filepath.Base(file), frag)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d links to sections", checked)
	}
}
