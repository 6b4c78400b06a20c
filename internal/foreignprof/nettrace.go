package foreignprof

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"

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

// NettraceSource is the nettrace reader's C# project (directory nettrace),
// which the runner builds once into the user's cache (dotnetbuild.Embedded).
//
//go:embed nettrace/NettraceStacks.csproj nettrace/Program.cs
var NettraceSource embed.FS
