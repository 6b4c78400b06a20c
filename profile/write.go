package profile

import (
	"encoding/json"
	"io"
	"path/filepath"

	"vbench/atomicfile"
)

// Encode writes p as profile.json content.
func (p *Profile) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	return enc.Encode(p)
}

// WriteDir writes profile.json and profile.pb.gz into dir, each atomically
// (temp file + fsync + rename): a reader never sees half a profile.
func WriteDir(dir string, p *Profile) error {
	if err := atomicfile.Write(filepath.Join(dir, PprofFile), 0o644, p.WritePprof); err != nil {
		return err
	}
	// profile.json last: its presence means the whole profile is there.
	return atomicfile.Write(filepath.Join(dir, JSONFile), 0o644, p.Encode)
}
