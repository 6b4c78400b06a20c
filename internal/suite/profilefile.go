package suite

import (
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"vbench/internal/modes"
)

// profileFields are the fields of a mode's profile block.
var profileFields = []string{"path", "format"}

// profileFile reads a mode's profile block: {path: "{rundir}/…", format:
// nettrace|pprof|speedscope}. The path is the run's directory's
// ({rundir}/…) or absolute, and may be a glob; an unknown format would read
// nothing right, so it is refused here rather than after every run.
func (p *parser) profileFile(n *yaml.Node, field string) *modes.ProfileFile {
	if n.Kind != yaml.MappingNode {
		p.fail(n, field, "must be a mapping {path: \"{rundir}/…\", format: %s}, got %s", modes.OneOf(modes.ProfileFormats), kindName(n))
		return nil
	}
	var pf modes.ProfileFile
	var pathNode, formatNode *yaml.Node
	p.fields(n, field, profileFields, func(key string, _, v *yaml.Node) {
		f := join(field, key)
		switch key {
		case "path":
			pathNode = v
			pf.Path = p.str(v, f)
		case "format":
			formatNode = v
			pf.Format = modes.ProfileFormat(p.str(v, f))
		}
	})
	if p.err != nil {
		return nil
	}
	switch {
	case pathNode == nil:
		p.fail(n, field+".path", "missing: where each run leaves the profile, e.g. \"{rundir}/trace.nettrace\"")
	case pf.Path == "":
		p.fail(pathNode, field+".path", "must not be empty")
	case !strings.HasPrefix(pf.Path, modes.RunDir) && !filepath.IsAbs(pf.Path):
		p.fail(pathNode, field+".path", "%q is neither in the run's directory (%s/…) nor absolute", pf.Path, modes.RunDir)
	case badGlob(pf.Path):
		p.fail(pathNode, field+".path", "%q is not a valid glob pattern", pf.Path)
	case formatNode == nil:
		p.fail(n, field+".format", "missing: the profile's format, %s", modes.OneOf(modes.ProfileFormats))
	case !pf.Format.Valid():
		p.fail(formatNode, field+".format", "unknown profile format %q (known: %s)", pf.Format, modes.List(modes.ProfileFormats))
	}
	if p.err != nil {
		return nil
	}
	return &pf
}

func badGlob(path string) bool {
	_, err := filepath.Match(path, "")
	return err != nil
}
