package profile

import (
	"bufio"
	"encoding/json"
	"io"
	"path/filepath"

	"vbench/atomicfile"
)

// Encode writes p as profile.json content: compact, since indentation grows
// with tree depth (a fully hooked C# compiler run was 1.9 GB indented).
func (p *Profile) Encode(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return err
	}
	return bw.Flush()
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
