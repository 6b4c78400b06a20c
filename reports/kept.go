package reports

import (
	"os"
	"path/filepath"

	"vbench/internal/profile"
	"vbench/internal/speedscope"
	"vbench/internal/timeline"
)

// KeptFiles are one cell's kept profile files, for the HTML report's links.
type KeptFiles struct {
	Cell  string // workload/mode
	Links []Link
}

// Link is one file, its href relative to the page.
type Link struct{ Name, Href string }

// FindKept lists the files kept in profilesDir (<workload>/<mode>/: the
// speedscope file, each process's timeline, the merged pprof file) for m's
// cells, with hrefs relative to pageDir; nothing where none were kept.
func FindKept(m *Matrix, profilesDir, pageDir string) []KeptFiles {
	var out []KeptFiles
	for _, w := range m.Workloads {
		for _, mode := range m.Modes {
			dir := filepath.Join(profilesDir, w, string(mode))
			var names []string
			for _, n := range []string{speedscope.FileName, profile.PprofFile} {
				if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
					names = append(names, n)
				}
			}
			tls, _ := filepath.Glob(filepath.Join(dir, "*", timeline.File))
			for _, t := range tls {
				rel, _ := filepath.Rel(dir, t)
				names = append(names, rel)
			}
			if len(names) == 0 {
				continue
			}
			k := KeptFiles{Cell: w + "/" + string(mode)}
			for _, n := range names {
				href, err := filepath.Rel(pageDir, filepath.Join(dir, n))
				if err != nil {
					href = filepath.Join(dir, n)
				}
				k.Links = append(k.Links, Link{Name: n, Href: filepath.ToSlash(href)})
			}
			out = append(out, k)
		}
	}
	return out
}
