package foreignprof

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"vbench/internal/profile"
)

// NettraceCounts is what the nettrace reader counted of EventPipe's
// sampler's thread samples: Managed ones (a thread running managed code:
// the profile's samples) and External ones (a thread waiting or in native
// code: left out, as a CPU sampler never takes them).
type NettraceCounts struct {
	Managed  int64 `json:"managed"`
	External int64 `json:"external"`
	Other    int64 `json:"other"`
}

// nettraceOutput is what the reader (nettrace/Program.cs) prints.
type nettraceOutput struct {
	NettraceCounts
	Stacks []Stack `json:"stacks"`
}

// NettraceReader runs the nettrace reader on one file and returns what it
// printed, or why it could not read the file.
type NettraceReader func(path string) ([]byte, error)

// DecodeNettraceStacks reads the nettrace reader's output into a sampled profile.
func DecodeNettraceStacks(r io.Reader) (*profile.Profile, NettraceCounts, error) {
	out, err := decodeNettrace(r)
	if err != nil {
		return nil, NettraceCounts{}, err
	}
	return FromStacks(out.Stacks, false), out.NettraceCounts, nil
}

func decodeNettrace(r io.Reader) (nettraceOutput, error) {
	var out nettraceOutput
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return out, fmt.Errorf("the nettrace reader's output: %w", err)
	}
	return out, nil
}

//go:embed nettrace/NettraceStacks.csproj nettrace/Program.cs
var nettraceSource embed.FS

// NettraceProject writes the nettrace reader's C# project into dir (which
// it creates) and returns its .csproj, for the runner to build as it builds
// workloads. Files already there with the same content are left as they
// are, so dotnet build finds nothing to do.
func NettraceProject(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	err := fs.WalkDir(nettraceSource, "nettrace", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := nettraceSource.ReadFile(path)
		dst := filepath.Join(dir, filepath.Base(path))
		if old, err := os.ReadFile(dst); err == nil && string(old) == string(b) {
			return nil
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "NettraceStacks.csproj"), nil
}
