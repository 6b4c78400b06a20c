package profile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"

	"vbench/internal/atomicfile"
)

// Encode writes p as profile.json content: compact, since indentation grows
// with tree depth (a fully hooked C# compiler run was 1.9 GB indented). The
// threads are streamed out as they are written, not built in memory first.
func (p *Profile) Encode(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	// Everything but the threads through encoding/json; Threads is the last
	// field, so the head ends in `"threads":[]}`.
	head := profileFields(*p)
	head.Threads = []Thread{}
	var hb bytes.Buffer
	enc := json.NewEncoder(&hb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(head); err != nil {
		return err
	}
	const tail = "[]}\n"
	if !bytes.HasSuffix(hb.Bytes(), []byte(`"threads"`+":"+tail)) {
		return errors.New("profile: Encode expects threads to be the last field of Profile")
	}
	bw.Write(hb.Bytes()[:hb.Len()-len(tail)+1]) // up to and including '['
	tw := threadWriter{w: bw}
	for i := range p.Threads {
		if i > 0 {
			tw.b = append(tw.b, ',')
		}
		tw.thread(&p.Threads[i])
	}
	tw.b = append(tw.b, "]}\n"...)
	tw.flush(true)
	if tw.err != nil {
		return tw.err
	}
	return bw.Flush()
}

// WriteDir writes profile.json and profile.pb.gz into dir, each atomically
// (temp file + fsync + rename): a reader never sees half a profile.
func WriteDir(dir string, p *Profile) error {
	if err := atomicfile.Write(filepath.Join(dir, PprofFile), 0o666, p.WritePprof); err != nil {
		return err
	}
	// profile.json last: its presence means the whole profile is there.
	return atomicfile.Write(filepath.Join(dir, JSONFile), 0o666, p.Encode)
}
